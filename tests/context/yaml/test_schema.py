"""The YAML 1.2 core schema as Pi's ``yaml`` package resolves scalars (pi-behavior.md §1)."""

from __future__ import annotations

import math

import pytest

from lsp_server.context.yaml import parse_yaml


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


def test_timestamps_and_binary_become_their_json_forms() -> None:
    assert value("a: !!timestamp 2024-01-02T03:04:05+01:00\nb: !!binary aGk=") == {
        "a": "2024-01-02T02:04:05.000Z",
        "b": {"type": "Buffer", "data": [104, 105]},
    }


def test_unknown_tag_keeps_the_string_and_warns() -> None:
    result = parse_yaml("a: !custom x")
    assert result.value == {"a": "x"} and result.warnings[0].text == "Unresolved tag: !custom"
