"""Pi's frontmatter split (pi-behavior.md §5.4) and the positions we map back to the file."""

from __future__ import annotations

from lsp_server.base.findings import Position, Range
from lsp_server.context.frontmatter import parse_frontmatter, split_frontmatter, strip_frontmatter


def test_no_opening_fence_means_no_frontmatter_and_an_untrimmed_body() -> None:
    parsed = parse_frontmatter("\n  body  \n")
    assert parsed.data == {} and parsed.body == "\n  body  \n"


def test_unclosed_frontmatter_is_body() -> None:
    parsed = parse_frontmatter("---\nname: x\nbody")
    assert parsed.data == {} and parsed.body == "---\nname: x\nbody" and parsed.is_unclosed


def test_opening_fence_need_not_end_its_line() -> None:
    assert parse_frontmatter("---name: x\n---\n").data == {"ame": "x"}


def test_closing_fence_is_the_first_newline_dashes() -> None:
    assert split_frontmatter("---\na: 1\n----\nbody").yaml_text == "a: 1"
    assert split_frontmatter("---\na: 1\n---foo\nbody").body == "foo\nbody"


def test_body_after_frontmatter_is_trimmed() -> None:
    assert parse_frontmatter("---\na: 1\n---\n\n  body \n\n").body == "body"


def test_bom_and_crlf_are_normalized() -> None:
    parsed = parse_frontmatter("\ufeff---\r\nname: x\r\n---\r\nline one\r\nline two")
    assert parsed.data == {"name": "x"} and parsed.body == "line one\nline two"


def test_empty_or_null_yaml_is_an_empty_mapping() -> None:
    assert parse_frontmatter("---\n---\nbody").data == {}
    assert parse_frontmatter("---\n# comment\n---\nbody").data == {}
    assert parse_frontmatter("---\n~\n---\n").data == {}


def test_a_list_is_returned_as_is() -> None:
    assert parse_frontmatter("---\n- a\n---\n").data == ["a"]


def test_yaml_errors_are_values() -> None:
    parsed = parse_frontmatter("---\nfoo: [bar\n---\nBody")
    assert parsed.error is not None and (parsed.error.line, parsed.error.column) == (1, 10)


def test_strip_frontmatter_returns_the_body() -> None:
    assert strip_frontmatter("---\nkey: value\n---\n\nBody\n") == "Body"


def test_field_ranges_are_file_positions() -> None:
    parsed = parse_frontmatter("---\nname: pdf\ndescription: Extract text\n---\n")
    description = parsed.field("description")
    assert description is not None
    assert description.key_range == Range(Position(2, 0), Position(2, 11))
    assert description.value_range == Range(Position(2, 13), Position(2, 25))


def test_positions_account_for_bom_and_crlf() -> None:
    parsed = parse_frontmatter("\ufeff---name: pdf\r\ndescription: x\r\n---\r\n")
    name = parsed.field("ame")
    description = parsed.field("description")
    assert name is not None and description is not None
    assert name.value_range.start == Position(0, 10)  # BOM + "---name: "
    assert description.value_range.start == Position(1, 13)


def test_yaml_error_range_is_mapped_below_the_fence() -> None:
    parsed = parse_frontmatter("---\n\nname: a\nname: b\n---\n")
    assert parsed.error is not None and parsed.error.line == 3
    assert parsed.error_range().start == Position(3, 0)


def test_fence_ranges() -> None:
    parsed = parse_frontmatter("---\na: 1\n---\nbody")
    assert parsed.opening_fence_range() == Range(Position(0, 0), Position(0, 3))
    assert parsed.closing_fence_range() == Range(Position(2, 0), Position(2, 3))
    assert parsed.body_lines() == (3, ["body"])
