"""The per-script weighted estimator (tokens-and-local-llm.md Part 1)."""

from __future__ import annotations

import pytest

from lsp_server.tokens.weighted import CLASSES, PRESETS, class_counts, weighted_tokens


@pytest.mark.parametrize(
    ("char", "letter"),
    [
        ("a", "a"),
        ("Z", "a"),
        ("7", "d"),
        (" ", "s"),
        ("\n", "n"),
        ("\t", "n"),
        ("\r", "n"),
        ("{", "p"),
        ("\x00", "p"),
        ("é", "l"),
        ("Ж", "r"),
        ("ש", "b"),
        ("क", "o"),
        ("ệ", "v"),
        ("→", "y"),
        ("你", "c"),
        ("한", "h"),
        ("！", "f"),
        ("😀", "e"),
        ("𠀀", "e"),
    ],
)
def test_each_character_class_is_read_from_the_lead_byte(char: str, letter: str) -> None:
    counts = class_counts(char)
    assert counts[letter] == 1
    assert sum(counts.values()) == 1  # continuation bytes are never counted


def test_every_preset_has_a_weight_for_every_class() -> None:
    for preset in PRESETS.values():
        assert set(preset.hundredths) == set(CLASSES)


def test_empty_text_is_zero() -> None:
    assert weighted_tokens("") == 0


def test_sum_of_weights_is_rounded_up_once() -> None:
    assert weighted_tokens("abcd") == 1  # 4 x 0.23 = 0.92
    assert weighted_tokens("abcde") == 2  # 1.15


def test_integer_arithmetic_has_no_float_drift() -> None:
    # 100 letters x 0.23 = exactly 23; float summing could give 23.000000000000004 -> 24.
    assert weighted_tokens("a" * 100) == 23


def test_newlines_are_free_for_gpt_but_not_for_claude47() -> None:
    assert weighted_tokens("\n" * 10, "gpt") == 0
    assert weighted_tokens("\n" * 10, "claude47") == 5


def test_dense_scripts_cost_more_than_chars_over_four() -> None:
    assert weighted_tokens("你好世界" * 10) == 32  # 40 ideographs x 0.8
    assert weighted_tokens("😀" * 10) == 20


def test_lone_surrogates_do_not_raise() -> None:
    assert weighted_tokens("\ud800x") >= 1


def test_unknown_preset_is_a_key_error() -> None:
    with pytest.raises(KeyError):
        weighted_tokens("x", "nope")
