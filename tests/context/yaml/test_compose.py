"""Composition: nodes with source offsets, and the rules ``yaml`` checks while composing."""

from __future__ import annotations

from typing import Any

import pytest

from lsp_server.context.yaml import MapNode, ScalarNode, parse_yaml


def value(text: str) -> object:
    result = parse_yaml(text)
    assert result.error is None, result.error
    return result.value


def test_nodes_carry_source_offsets() -> None:
    result = parse_yaml("name: pdf\ndescription: 'x'")
    node = result.node
    assert isinstance(node, MapNode)
    key, val = node.pairs[1]
    assert isinstance(key, ScalarNode) and isinstance(val, ScalarNode)
    assert (key.start, key.end, val.value_start, val.end) == (10, 21, 23, 26)


def test_duplicate_keys_are_an_error_at_the_second_key() -> None:
    error = parse_yaml("name: a\nname: b").error
    assert error is not None
    assert error.message == "Map keys must be unique at line 2, column 1:\n\nname: a\nname: b\n^\n"


# Which keys collide is Pi 1.6.0's answer for each pair (``===`` on the key values).
@pytest.mark.parametrize(
    "text",
    [
        "1: a\n01: b",
        "1: a\n1.0: b",
        "true: a\nTrue: b",
        "~: a\nnull: b",
        ".inf: a\n.Inf: b",
        "0: a\n-0: b",
        "0x10: a\n16: b",
        "a: 1\n!!str a: 2",
        "1e3: a\n1000: b",
        "9007199254740993: a\n9007199254740992: b",
        "{: a, : b}",
        "a: 1\nb: 2\na: 3",
    ],
)
def test_keys_with_equal_values_collide(text: str) -> None:
    error = parse_yaml(text).error
    assert error is not None and error.code == "DUPLICATE_KEY"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('1: a\n"1": b', {"1": "b"}),  # a number and a string: same property, no collision
        ("true: a\n1: b", {"true": "a", "1": "b"}),
        (".nan: a\n.nan: b", {"NaN": "b"}),  # NaN equals nothing
        ("!!binary aGk=: a\n!!binary aGk=: b", {"hi": "b"}),  # two Buffers are two objects
        ("!!timestamp 2024-01-01: a\n!!timestamp 2024-01-01: b", {"2024-01-01T00:00:00.000Z": "b"}),
        ("&x a: 1\n*x : 2", {"a": 2}),  # an alias is not a scalar node
        ("? [a]\n: 1\n? [a]\n: 2", {"[ a ]": 2}),  # collections collide only with themselves
    ],
)
def test_keys_that_do_not_collide(text: str, expected: object) -> None:
    assert value(text) == expected


def test_duplicate_check_is_per_mapping() -> None:
    assert value("x:\n  a: 1\ny:\n  a: 2") == {"x": {"a": 1}, "y": {"a": 2}}
    error = parse_yaml("x:\n  a: 1\n  a: 2").error
    assert error is not None and (error.line, error.column) == (3, 3)


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


def test_tab_after_colon_is_a_separator() -> None:
    assert value("description:\tvalue with\ttab") == {"description": "value with\ttab"}


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("folded: >\n \n  x\n", {"folded": "\nx\n"}),  # Pi's answers (tests/conformance/golden/parse_frontmatter)
        ("kept: |+\n \n\n  \nname: n\n", {"kept": "\n\n\n", "name": "n"}),
    ],
)
def test_the_full_parser_takes_blank_lines_before_a_block_scalar_as_yaml_does(text: str, value: Any) -> None:
    """ruamel refused a leading blank line wider than the first one; YAML 1.2, Pi and libyaml do not."""
    result = parse_yaml(text, fast=False)
    assert result.error is None
    assert result.value == value
