"""Writing YAML values that read back as written, and locating whole frontmatter fields."""

from __future__ import annotations

import random

import pytest

from lsp_server.context.frontmatter import parse_frontmatter
from lsp_server.context.yaml import parse_yaml
from lsp_server.editing.text import LineIndex, apply_edits
from lsp_server.editing.yamltext import field_span, is_plain_safe, replace_value, yaml_scalar

# Characters YAML treats specially somewhere, plus ordinary and non-BMP ones.
PALETTE = list(" \t\n\r\\\"'#:-?,[]{}&*!|>%@`~.0123456789aeEx+é😀\x00\x07\x7f\x85\u2028\ufeff\ufffe")


def _samples() -> list[str]:
    rng = random.Random(20240601)
    fixed = ["", " ", "yes", "No", "~", "null", "0o7", ".nan", "-.inf", "2001-12-14", "a: b", "#", "'x'", '"x"']
    return fixed + ["".join(rng.choice(PALETTE) for _ in range(rng.randint(1, 12))) for _ in range(3000)]


def test_a_scalar_reads_back_as_the_same_string() -> None:
    for value in _samples():
        result = parse_yaml(f"key: {yaml_scalar(value)}\n")
        assert result.error is None and result.value == {"key": value}, repr(value)


@pytest.mark.parametrize("value", ["pdf-tools", "Extract text from PDFs.", "a/b.md", "été"])
def test_ordinary_text_stays_plain(value: str) -> None:
    assert yaml_scalar(value) == value


@pytest.mark.parametrize("value", ["123", "true", "null", "1e3", "0x1f", "Use when: x", "a #b", "- item", " lead", ""])
def test_text_yaml_would_misread_is_quoted(value: str) -> None:
    assert not is_plain_safe(value) and yaml_scalar(value).startswith('"')


def edit_value(text: str, key: str, scalar: str) -> str:
    fm = parse_frontmatter(text)
    located = fm.field(key)
    assert located is not None
    index = LineIndex(text)
    span = field_span(fm, located, index)
    assert span is not None
    return apply_edits(text, [replace_value(fm, span, index, scalar)])


def test_an_empty_value_is_filled_after_the_colon() -> None:
    assert edit_value("---\nname:\nx: 1\n---\n", "name", "n") == "---\nname: n\nx: 1\n---\n"


def test_a_value_on_the_next_lines_is_replaced_from_the_colon() -> None:
    assert edit_value("---\nname:\n  - a\n  - b\nx: 1\n---\n", "name", "n") == "---\nname: n\nx: 1\n---\n"


def test_a_block_scalar_is_replaced_whole() -> None:
    assert edit_value("---\nname: |\n  a\n  b\nx: 1\n---\n", "name", "n") == "---\nname: n\nx: 1\n---\n"


def test_a_tag_is_dropped_and_an_anchor_kept() -> None:
    assert edit_value("---\nname: &a !!str N\n---\n", "name", "n") == "---\nname: &a n\n---\n"


def test_a_comment_after_the_value_stays() -> None:
    assert edit_value("---\nname: N # why\n---\n", "name", "n") == "---\nname: n # why\n---\n"


def test_a_field_on_the_fence_line_is_not_edited() -> None:
    text = "---name: x\n---\n"
    fm = parse_frontmatter(text)
    located = fm.field("ame")
    assert located is not None and field_span(fm, located, LineIndex(text)) is None


def test_a_field_spans_its_nested_block() -> None:
    text = "---\nhooks:\n  a:\n    - 1\nname: x\n---\n"
    fm = parse_frontmatter(text)
    located = fm.field("hooks")
    assert located is not None
    span = field_span(fm, located, LineIndex(text))
    assert span is not None and (span.key_line, span.last_line) == (1, 3)
