"""YAML 1.2 core schema as Pi's ``yaml`` package reads it (pi-behavior.md §1), with positions.

Line/column agreement with Pi on broken input is covered case by case by the
``parse_frontmatter`` conformance goldens; these tests pin one rule each.
"""

from __future__ import annotations

import math

import pytest

from lsp_server.context.yaml12 import MapNode, ScalarNode, parse_yaml


def value(text: str) -> object:
    result = parse_yaml(text)
    assert result.error is None, result.error
    return result.value


@pytest.mark.parametrize("word", ["yes", "no", "on", "off", "y", "n", "tRue"])
def test_yaml11_booleans_stay_strings(word: str) -> None:
    assert value(f"a: {word}") == {"a": word}


@pytest.mark.parametrize(("word", "expected"), [("true", True), ("True", True), ("TRUE", True), ("false", False)])
def test_core_booleans(word: str, expected: bool) -> None:
    assert value(f"a: {word}")["a"] is expected  # type: ignore[index]


def test_integral_float_is_the_number_one() -> None:
    result = value("a: 1.0")
    assert result == {"a": 1} and type(result["a"]) is int  # type: ignore[index]


@pytest.mark.parametrize(("text", "expected"), [("0x10", 16), ("0o17", 15), ("012", 12), ("+12", 12), ("1e3", 1000)])
def test_core_integers_and_exponents(text: str, expected: int) -> None:
    assert value(f"a: {text}") == {"a": expected}


@pytest.mark.parametrize("text", ["2024-01-01", "1_000", "0b11", "12:30:00", "0X10"])
def test_yaml11_scalars_stay_strings(text: str) -> None:
    assert value(f"a: {text}") == {"a": text}


@pytest.mark.parametrize("text", ["~", "null", "Null", "NULL", ""])
def test_null_spellings(text: str) -> None:
    assert value(f"a: {text}") == {"a": None}


def test_special_floats() -> None:
    result = value("a: .inf\nb: -.Inf\nc: .nan")
    assert result["a"] == math.inf and result["b"] == -math.inf and math.isnan(result["c"])  # type: ignore[index]


def test_big_integers_become_doubles_like_parseInt() -> None:
    assert value("a: 123456789012345678901234567890") == {"a": 1.2345678901234568e29}


def test_quoted_scalars_are_strings() -> None:
    assert value("a: \"true\"\nb: '1.0'") == {"a": "true", "b": "1.0"}


def test_explicit_tags_resolve_with_the_tag() -> None:
    assert value('a: !!str 12\nb: !!int "12"\nc: !!bool yes') == {"a": "12", "b": 12, "c": "yes"}


def test_unknown_tag_keeps_the_string_and_warns() -> None:
    result = parse_yaml("a: !custom x")
    assert result.value == {"a": "x"} and result.warnings[0].text == "Unresolved tag: !custom"


def test_keys_become_js_property_names() -> None:
    assert value("1: a\ntrue: b\nnull: c\n1.5: d\n? [x, y]\n: e") == {
        "1": "a",
        "true": "b",
        "": "c",
        "1.5": "d",
        "[ x, y ]": "e",
    }


def test_duplicate_keys_are_an_error_at_the_second_key() -> None:
    error = parse_yaml("name: a\nname: b").error
    assert error is not None
    assert error.message == "Map keys must be unique at line 2, column 1:\n\nname: a\nname: b\n^\n"


def test_duplicate_keys_compare_values_not_spelling() -> None:
    error = parse_yaml("1: a\n01: b").error
    assert error is not None and error.code == "DUPLICATE_KEY" and (error.line, error.column) == (2, 1)


def test_error_columns_count_utf16_units() -> None:
    error = parse_yaml('x: "😀" bad').error
    assert error is not None and error.start == 7  # code points
    assert error.column == 9  # UTF-16 units, 1-based: the emoji counts 2


def test_tab_after_colon_is_a_separator() -> None:
    assert value("description:\tvalue with\ttab") == {"description": "value with\ttab"}


def test_tab_in_indentation_is_an_error() -> None:
    error = parse_yaml("a:\n\tb: 1").error
    assert error is not None and error.text == "Tabs are not allowed as indentation"


def test_aliases_share_the_anchored_value() -> None:
    result = value("a: &x [1, 2]\nb: *x")
    assert result == {"a": [1, 2], "b": [1, 2]}


def test_undefined_alias_is_a_reference_error_without_position() -> None:
    error = parse_yaml("a: *nope").error
    assert error is not None and error.name == "ReferenceError" and not error.positioned
    assert error.message == "Unresolved alias (the anchor must be set before the alias): nope"


def test_alias_expansion_is_limited_like_yaml() -> None:
    lines = ["a: &a [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"{chr(98 + i)}: &{chr(98 + i)} [" + ", ".join([f"*{chr(97 + i)}"] * 10) + "]" for i in range(4)]
    error = parse_yaml("\n".join(lines)).error
    assert error is not None and error.text == "Excessive alias count indicates a resource exhaustion attack"


def test_merge_key_is_a_plain_key_in_yaml_12() -> None:
    assert value("b: &b {x: 1}\nc:\n  <<: *b") == {"b": {"x": 1}, "c": {"<<": {"x": 1}}}


def test_block_scalar_keeps_its_last_line_break_at_the_end_of_the_text() -> None:
    assert value("a: |\n  x") == {"a": "x\n"}
    assert value("a: |-\n  x") == {"a": "x"}


def test_second_document_is_an_error() -> None:
    error = parse_yaml("a: b\n...\nc: d").error
    assert error is not None and error.code == "MULTIPLE_DOCS"


def test_whitespace_only_is_null() -> None:
    assert parse_yaml("  \n ").value is None


def test_control_characters_are_kept() -> None:
    assert value("a: x\u0007y") == {"a": "x\u0007y"}


def test_nodes_carry_source_offsets() -> None:
    result = parse_yaml("name: pdf\ndescription: 'x'")
    node = result.node
    assert isinstance(node, MapNode)
    key, val = node.pairs[1]
    assert isinstance(key, ScalarNode) and isinstance(val, ScalarNode)
    assert (key.start, key.end, val.value_start, val.end) == (10, 21, 23, 26)


@pytest.mark.parametrize(
    "text", ["[", "{", "a: [", "&", "*", "'", '"', "]", "}", "a: &", "%", "- [\n- {", "a: b: c: d"]
)
def test_broken_input_is_an_error_value_inside_the_text(text: str) -> None:
    error = parse_yaml(text).error
    assert error is not None and 0 <= error.start <= len(text)
