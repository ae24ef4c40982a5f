"""The placeholder test: each documented rule, and a real-looking key never taken for a placeholder."""

from __future__ import annotations

import random
import string

import pytest

from lsp_server.rules.key_shapes import KEY_SHAPES, own_part
from lsp_server.rules.placeholders import MAX_VALUE, is_placeholder
from tests.support.secret_disguises import PLACEHOLDER_VALUES, real_looking_key


@pytest.mark.parametrize(
    ("value", "rule"),
    [
        ("${API_KEY}", "reference"),
        ("sk-${KEY}", "reference"),
        ("<token>", "reference"),
        ("{{ secrets.TOKEN }}", "reference"),
        ("%API_KEY%", "reference"),
        ("$(cat ~/.key)", "reference"),
        ("$API_KEY", "reference"),
        ("[YOUR_KEY]", "reference"),
        ("{apiKey}", "reference"),
        ("[A00000000000001]", "reference"),
        ("[A00000000000001", "reference"),  # a URL's query value stops before ']'
        ("abc...", "elision"),
        ("sk-ant…", "elision"),
        ("****", "elision"),
        ("••••••••", "elision"),
        ("xxxxxxxxxxxx", "elision"),
        ("XXXXXX-1234", "elision"),
        ("aaaa", "few characters"),
        ("abababababab", "few characters"),
        ("0000-0000", "few characters"),
        ("AKIAIOSFODNN7EXAMPLE", "marker"),
        ("my-sample-key-9f8e7d", "marker"),
        ("Q3RT-REDACTED-77", "marker"),
        ("your-api-key", "marker"),
        ("mypassword", "words"),
        ("changeme", "words"),
        ("MyPassword", "words"),
        ("secret123", "words"),
        ("YOUR_TOKEN_HERE", "words"),
        ("test", "words"),
        ("dummy", "words"),
        ("postgres", "words"),
        ("12345678", "digits"),
        ("TWILIO_API_KEY", "variable name"),
        ("MY_LLM_API_KEY", "variable name"),
        ("your-pi-api-key", "words"),
        ("ollama", "words"),
        ("2222", "digits"),
    ],
)
def test_each_rule_makes_a_placeholder(value: str, rule: str) -> None:
    assert is_placeholder(value), rule


@pytest.mark.parametrize(
    "value", ["hunter2", "Zq8vL2mN4pR7sT1x", "Summer2024!", "letmein", "s3cr3t-Pa55", "correct-horse-battery-staple"]
)
def test_what_does_not_read_as_a_stand_in_is_a_secret(value: str) -> None:
    assert not is_placeholder(value)


def test_the_documented_list_is_placeholders() -> None:
    for value in PLACEHOLDER_VALUES:
        assert is_placeholder(own_part(value)), value


@pytest.mark.parametrize("shape", KEY_SHAPES, ids=[s.kind for s in KEY_SHAPES])
def test_a_real_looking_key_is_never_a_placeholder(shape: object) -> None:
    """3,000 random keys of each provider's shape and length: none is skipped (the rules' chance
    thresholds are documented in lsp_server/rules/placeholders.py)."""
    rng = random.Random(f"placeholder-{shape}")
    for _ in range(3000):
        key = real_looking_key(shape, rng)  # type: ignore[arg-type]
        assert not is_placeholder(own_part(key)), key


def test_random_strings_of_sixteen_characters_or_more_are_never_placeholders() -> None:
    rng = random.Random(22)
    for alphabet in (string.ascii_letters + string.digits, string.hexdigits[:16], string.ascii_lowercase):
        for length in (16, 20, 32):
            for _ in range(5000):
                value = "".join(rng.choice(alphabet) for _ in range(length))
                assert not is_placeholder(value), value


def test_the_test_is_bounded() -> None:
    assert not is_placeholder("a" * (MAX_VALUE + 1))  # too long to be a stand-in: a blob, reported if it is a key
    assert is_placeholder("")
