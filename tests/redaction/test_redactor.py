"""The one redactor: a known key in every disguise a red team saw, and nothing else, replaced by ``***``."""

from __future__ import annotations

import base64
import logging
import re

import pytest

from lsp_server.redaction import KeyRing, RedactingFormatter, Redactor, Secret
from lsp_server.redaction.folding import fold, fold_with_map
from lsp_server.redaction.forms import base64_forms, is_key_like, key_forms
from tests.support.disguises import RED_TEAM_KEY, Disguise, assert_nothing_shown, disguises, shown_pieces

KEY = RED_TEAM_KEY
REDACTOR = Redactor([Secret(KEY)])


@pytest.mark.parametrize("disguise", disguises(KEY), ids=lambda d: d.name)
def test_every_disguise_of_the_key_is_replaced_and_the_message_around_it_kept(disguise: Disguise) -> None:
    assert shown_pieces(disguise.text, disguise.core)  # the disguise does show the key ...
    message = f'401 {{"error": "Invalid x-api-key: {disguise.text} (request req_42)"}}'
    out = REDACTOR.text(message)
    assert shown_pieces(out, disguise.core, key=KEY) == []  # ... and the redacted message does not
    assert out.startswith('401 {"error": "Invalid x-api-key: ') and out.endswith(' (request req_42)"}')
    assert "***" in out


def test_a_basic_header_value_keeps_only_what_the_user_name_decides() -> None:
    encoded = base64.b64encode(f"alice:{KEY}".encode()).decode()
    out = REDACTOR.text(f"Authorization: Basic {encoded}")
    assert out.startswith("Authorization: Basic YWxpY2U6") and "***" in out
    assert len(out) < len("Authorization: Basic ") + 16  # the rest of it, a piece of the key, is gone


def test_the_three_base64_alignments_each_hide_the_key_inside_a_longer_encoding() -> None:
    for prefix in (b"", b"a", b"ab", b"abc", b"user:"):
        encoded = base64.b64encode(prefix + KEY.encode() + b"!").decode()
        assert_nothing_shown(f"base64 after {prefix!r}", REDACTOR.text(encoded), KEY)


def test_forms_are_the_key_and_six_encodings_each_only_what_the_key_decides() -> None:
    forms = base64_forms(b"abcdefghi")
    assert forms[0] == "YWJjZGVmZ2hp"  # alignment 0: the whole encoding (9 bytes, no padding)
    assert all("=" not in form for form in forms)
    assert len(key_forms("sk-canary-0123456789abcdef")) == 4  # the key, base64 x3 (base64url identical here)
    forms = key_forms(KEY)
    assert fold(KEY) in forms and [len(f) for f in forms] == sorted((len(f) for f in forms), reverse=True)


def test_which_values_have_their_pieces_redacted() -> None:
    assert is_key_like(KEY) and is_key_like("hunter2hunter2")
    assert not is_key_like("/home/alice/.config/gcloud/credentials.json")  # a path
    assert not is_key_like("application/json")  # a header value that is no secret
    assert not is_key_like("correcthorsebatterystaple")  # words: replaced only whole
    assert is_key_like("AbCdEfGhIjKlMnOpQrStUvWxYz")  # 24+ characters of both cases
    assert not is_key_like("short1")
    assert not is_key_like("aaaaaaaaaaaa1")  # its pieces repeat: a run of one character is no key


def test_values_that_are_not_key_like_are_replaced_only_whole() -> None:
    path = "/home/alice/.config/gcloud/application_default_credentials.json"
    redactor = Redactor([path, "application/json", "abc"])
    text = f"read {path}; see /home/alice/.config/other and content-type application/json, abc"
    assert redactor.text(text) == "read ***; see /home/alice/.config/other and content-type ***, abc"


def test_text_without_a_key_is_returned_as_it_is() -> None:
    text = "The quick brown fox jumps over the lazy dog. sk-ant is a prefix, and so is sk-a."
    assert REDACTOR.text(text) is text
    assert Redactor().text(text) is text and not Redactor()


def test_keys_side_by_side_and_repeated_become_one_mark_each_run() -> None:
    other = "tok-9f8e7d6c5b4a3f2e1d0c"
    redactor = Redactor([KEY, other])
    assert redactor.text(f"[{KEY}{other}] [{KEY}] {other[3:]}") == "[***] [***] ***"


def test_a_spaced_key_is_replaced_with_its_spaces_but_not_the_words_around_it() -> None:
    spaced = " ".join(KEY[i : i + 10] for i in range(0, len(KEY), 10))
    assert REDACTOR.text(f"key is {spaced} , ok") == "key is *** , ok"


def test_percent_escapes_are_replaced_whole() -> None:
    escaped = "".join(f"%{b:02x}" for b in KEY.encode())
    assert REDACTOR.text(f"GET /v1?key={escaped}&x=1") == "GET /v1?key=***&x=1"


def test_json_values_keys_of_objects_included() -> None:
    value = {"errorMessage": f"bad {KEY.upper()}", KEY[:21]: [1, f"x {KEY[5:40]} y"], "n": 2}
    assert REDACTOR.value(value) == {"errorMessage": "bad ***", "***": [1, "x *** y"], "n": 2}
    clean = {"type": "text", "items": ["hello", 3]}
    assert REDACTOR.value(clean) is clean


@pytest.mark.parametrize(
    "text",
    ["", "plain", "a %41 b", "%2", "%%41%4", "tab\tand\nnewline  end", "ÄÖÜ İstanbul %C3%A9 ß", "%20%09x%0A"],
)
def test_folding_with_the_map_folds_as_the_fast_path_does(text: str) -> None:
    folded = fold_with_map(text)
    assert folded.folded == fold(text)
    for index in range(len(folded.folded)):
        start, end = folded.start_of(index), folded.end_of(index)
        assert fold(text[start:end]) == folded.folded[index]  # each folded character maps to its own source


def test_the_fast_fold_removes_exactly_what_the_mapped_fold_removes_in_all_of_unicode() -> None:
    from lsp_server.redaction.folding import SPACES

    spaces = [code for code in range(0x110000) if re.match(r"\s", chr(code))]
    assert sorted(SPACES) == spaces
    text = "".join(chr(code) for code in spaces) + "x"
    assert fold(text) == fold_with_map(text).folded == "x"


def test_the_log_formatter_redacts_every_line_with_the_keys_learned_so_far() -> None:
    ring = KeyRing()
    formatter = RedactingFormatter(ring, "%(message)s")
    record = logging.LogRecord("x", logging.INFO, __file__, 1, "Pi said: %s", (f"401 {KEY[10:50]}",), None)
    assert KEY[10:50] in formatter.format(record)  # nothing learned yet
    ring.add([Secret(KEY), None, ""])
    assert formatter.format(record) == "Pi said: 401 ***"
    before = ring.redactor
    ring.add([KEY])  # already known: the redactor is not rebuilt
    assert ring.redactor is before


def test_a_providers_prefix_alone_is_no_part_of_the_key() -> None:
    """``sk-ant-api03-`` begins every such key and every provider's documentation shows it: naming it shows nothing,
    while 8 characters past it are the key's own and are replaced with the prefix."""
    said = "Anthropic keys look like sk-ant-api03-… and go in ANTHROPIC_API_KEY."
    assert REDACTOR.text(said) == said
    assert REDACTOR.text(f"header {KEY[: 13 + 7]} cut") == f"header {KEY[: 13 + 7]} cut"  # 7 of its own: not yet shown
    assert REDACTOR.text(f"header {KEY[: 13 + 8]} cut") == "header *** cut"
    assert REDACTOR.text(f"key: {KEY}") == "key: ***"
