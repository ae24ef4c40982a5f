"""JavaScript strings: UTF-16 lengths, slices, sort order, trims, Node's UTF-8 (answers from Node 22)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lsp_server.js.strings import (
    from_code_units,
    js_len,
    js_slice,
    js_slice_head,
    js_sorted,
    js_trim,
    node_utf8,
    normalize_newlines,
    strip_bom,
    to_code_units,
    utf8_len,
)

GOLDEN = json.loads((Path(__file__).parents[1] / "golden" / "js.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize(("text", "as_json", "length"), GOLDEN["stringify"])
def test_length_counts_utf16_units(text: str, as_json: str, length: int) -> None:
    assert js_len(text) == length


@pytest.mark.parametrize(("text", "trimmed"), GOLDEN["trims"])
def test_trim_uses_ecmascript_whitespace(text: str, trimmed: str) -> None:
    assert js_trim(text) == trimmed


def test_default_sort_orders_by_utf16_code_units() -> None:
    assert js_sorted(GOLDEN["sortInput"]) == GOLDEN["sorted"]


def test_slice_counts_utf16_units_and_may_split_a_pair() -> None:
    assert js_slice("a😀b", 0, 2) == "a\ud83d"
    assert js_slice("a😀b", -2) == "\ude00b"
    assert js_slice("a😀b", 3, 1) == ""


def test_slice_head_never_splits_a_surrogate_pair() -> None:
    text = "ab😀cd"  # 😀 occupies UTF-16 units 2 and 3
    assert js_slice_head(text, 2) == "ab"
    assert js_slice_head(text, 3) == "ab"  # cutting inside the pair backs off one unit
    assert js_slice_head(text, 4) == "ab😀"
    assert js_slice_head(text, 100) == text
    assert js_slice_head(text, 0) == ""


def test_slice_head_keeps_a_lone_high_surrogate() -> None:
    assert js_slice_head("a\ud83dé", 2) == "a\ud83d"  # no low half follows: nothing to protect


def test_code_units_split_astral_characters_and_join_them_again() -> None:
    units = to_code_units("a😀")
    assert units == "a\ud83d\ude00" and len(units) == 3
    assert from_code_units(units) == "a😀"
    assert from_code_units(units[:2]) == "a\ud83d"


def test_utf8_length_counts_bytes() -> None:
    assert utf8_len("é😀") == 2 + 4
    assert utf8_len("a\ud83d") == len(node_utf8("a\ud83d")) == 4


def test_lone_surrogates_encode_as_replacement_characters() -> None:
    assert node_utf8("a\ud83d") == b"a\xef\xbf\xbd"


def test_bom_and_newlines() -> None:
    assert strip_bom("\ufeff\ufeffx") == "\ufeffx"
    assert normalize_newlines("a\r\nb\rc\n") == "a\nb\nc\n"
