"""``JSON.stringify`` and number printing against answers Node 22 gave (tests/golden/js.json)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lsp_server.js.json import js_json_stringify
from lsp_server.js.numbers import js_number, js_number_to_string

GOLDEN = json.loads((Path(__file__).parents[1] / "golden" / "js.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize(("value", "as_string", "as_json"), GOLDEN["numbers"])
def test_numbers_print_like_javascript(value: float, as_string: str, as_json: str) -> None:
    assert js_number_to_string(float(value)) == as_string
    assert js_json_stringify(float(value)) == as_json


@pytest.mark.parametrize(("text", "as_json", "length"), GOLDEN["stringify"])
def test_strings_stringify_like_javascript(text: str, as_json: str, length: int) -> None:
    assert js_json_stringify(text) == as_json


def test_nested_values_stringify_compact_and_indented() -> None:
    value = {"a": [1, 2.5, {"b": "x"}], "c": None, "d": True, "e": {}, "f": []}
    assert js_json_stringify(value) == GOLDEN["nested"]
    del value["d"]
    assert js_json_stringify(value, indent=2) == GOLDEN["nestedIndented"]


def test_integral_numbers_are_ints_while_exact() -> None:
    assert type(js_number(1.0)) is int and js_number(1.0) == 1
    assert js_number(2**53) == 2**53 and type(js_number(2**53)) is int
    assert type(js_number(2**53 + 1)) is float  # a double cannot hold it
    assert type(js_number(1.5)) is float and type(js_number(float("inf"))) is float
