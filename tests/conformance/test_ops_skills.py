"""The skills ops' JSON conversion: what ``JSON.stringify`` keeps of a parsed frontmatter."""

from __future__ import annotations

import math

import pytest

from lsp_server.conformance.ops_skills import to_json_value
from lsp_server.context.yaml import parse_yaml


def test_non_finite_numbers_become_null() -> None:
    assert to_json_value({"a": [math.inf, math.nan, 1.5]}) == {"a": [None, None, 1.5]}


def test_a_shared_alias_is_written_twice() -> None:
    assert to_json_value(parse_yaml("a: &a [1]\nb: [*a, *a]").value) == {"a": [1], "b": [[1], [1]]}


def test_a_cyclic_value_is_refused_like_json_stringify() -> None:
    with pytest.raises(TypeError, match=r"^Converting circular structure to JSON$"):
        to_json_value(parse_yaml("a: &a [*a]").value)
