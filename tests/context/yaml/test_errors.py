"""Errors as Pi shows them: yaml's text, line and UTF-16 column, and the excerpt with a caret.

Line/column agreement with Pi on broken input is covered case by case by the
``parse_frontmatter`` conformance goldens; these tests pin one rule each.
"""

from __future__ import annotations

import pytest

from lsp_server.context.yaml import parse_yaml


def test_error_columns_count_utf16_units() -> None:
    error = parse_yaml('x: "😀" bad').error
    assert error is not None and error.start == 7  # code points
    assert error.column == 9  # UTF-16 units, 1-based: the emoji counts 2


def test_tab_in_indentation_is_an_error() -> None:
    error = parse_yaml("a:\n\tb: 1").error
    assert error is not None and error.text == "Tabs are not allowed as indentation"


def test_an_unclosed_flow_sequence_points_at_the_end_like_yaml() -> None:
    error = parse_yaml("foo: [bar").error
    assert error is not None
    assert error.message == (
        "Flow sequence in block collection must be sufficiently indented and end with a ] at line 1, column 10:"
        "\n\nfoo: [bar\n         ^\n"
    )


@pytest.mark.parametrize(
    "text", ["[", "{", "a: [", "&", "*", "'", '"', "]", "}", "a: &", "%", "- [\n- {", "a: b: c: d"]
)
def test_broken_input_is_an_error_value_inside_the_text(text: str) -> None:
    error = parse_yaml(text).error
    assert error is not None and 0 <= error.start <= len(text)
