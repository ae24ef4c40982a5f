"""JavaScript semantics against answers Node 22 gave (tests/golden/jscompat.json, made by Node)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lsp_server.jscompat import (
    js_json_stringify,
    js_len,
    js_number_to_string,
    js_slice_head,
    js_sorted,
    js_trim,
    normalize_newlines,
    strip_bom,
    utf8_len,
)

GOLDEN = json.loads((Path(__file__).parent / "golden" / "jscompat.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize(("value", "as_string", "as_json"), GOLDEN["numbers"])
def test_numbers_print_like_javascript(value: float, as_string: str, as_json: str) -> None:
    assert js_number_to_string(float(value)) == as_string
    assert js_json_stringify(float(value)) == as_json


@pytest.mark.parametrize(("text", "as_json", "length"), GOLDEN["stringify"])
def test_strings_stringify_and_length_like_javascript(text: str, as_json: str, length: int) -> None:
    assert js_json_stringify(text) == as_json
    assert js_len(text) == length


@pytest.mark.parametrize(("text", "trimmed"), GOLDEN["trims"])
def test_trim_uses_ecmascript_whitespace(text: str, trimmed: str) -> None:
    assert js_trim(text) == trimmed


def test_default_sort_orders_by_utf16_code_units() -> None:
    assert js_sorted(GOLDEN["sortInput"]) == GOLDEN["sorted"]


def test_nested_values_stringify_compact_and_indented() -> None:
    value = {"a": [1, 2.5, {"b": "x"}], "c": None, "d": True, "e": {}, "f": []}
    assert js_json_stringify(value) == GOLDEN["nested"]
    del value["d"]
    assert js_json_stringify(value, indent=2) == GOLDEN["nestedIndented"]


def test_slice_head_never_splits_a_surrogate_pair() -> None:
    text = "ab😀cd"  # 😀 occupies UTF-16 units 2 and 3
    assert js_slice_head(text, 2) == "ab"
    assert js_slice_head(text, 3) == "ab"  # cutting inside the pair backs off one unit
    assert js_slice_head(text, 4) == "ab😀"
    assert js_slice_head(text, 100) == text
    assert js_slice_head(text, 0) == ""


def test_utf8_length_counts_bytes() -> None:
    assert utf8_len("é😀") == 2 + 4


def test_bom_and_newlines() -> None:
    assert strip_bom("\ufeff\ufeffx") == "\ufeffx"
    assert normalize_newlines("a\r\nb\rc\n") == "a\nb\nc\n"
