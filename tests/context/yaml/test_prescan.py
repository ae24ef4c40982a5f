"""The flow-nesting pre-scan: deep flow collections are refused before ruamel's quadratic scanner."""

from __future__ import annotations

import pytest

from lsp_server.context.yaml import limits
from lsp_server.context.yaml.parse import parse_yaml
from lsp_server.context.yaml.prescan import flow_depth_overflow


@pytest.mark.parametrize(
    ("text", "index"),
    [
        ("x: " + "[" * 2000 + "]" * 2000, 3 + 99),  # the mapping, then 100 "[" (as the composer counts)
        ("x: " + "[" * 2000, 3 + 99),  # unclosed
        ("- " + "{a: " * 150, 2 + 4 * 99),
        ("[" * 101, 100),  # a flow collection at the root has no block level around it
    ],
)
def test_deep_flow_is_found_where_the_composer_would_stop(text: str, index: int) -> None:
    assert flow_depth_overflow(text, limits.DEPTH.value) == index
    error = parse_yaml(text).error
    assert error is not None and error.code == limits.DEPTH.code


@pytest.mark.parametrize(
    "text",
    [
        "x: '" + "[" * 300 + "'",
        'x: "' + "{" * 300 + '"',
        "x: a" + "[" * 300,  # a plain scalar may hold brackets in block context
        "d: |\n  " + "[" * 300 + "\ne: 1",
        "# " + "[" * 300 + "\nx: 1",
        "x: [" + "[], " * 500 + "]",  # wide, not deep
    ],
)
def test_brackets_that_open_no_collection_are_not_counted(text: str) -> None:
    assert flow_depth_overflow(text, limits.DEPTH.value) is None
    assert parse_yaml(text).error is None
