"""Headings of a context file: the tree, each section's extent, its tokens."""

from __future__ import annotations

from lsp_server.editing.outline import Heading, markdown_outline


def outline(text: str) -> list[Heading]:
    return markdown_outline(text, len)  # "tokens" = characters: easy to check by hand


def shape(headings: list[Heading]) -> list[tuple[str, int, int, list[object]]]:
    return [(h.title, h.line, h.end_line, shape(list(h.children))) for h in headings]


def test_a_heading_contains_the_deeper_headings_after_it() -> None:
    text = "# Top\n## A\n### A1\n## B\n"
    assert shape(outline(text)) == [("Top", 0, 3, [("A", 1, 2, [("A1", 2, 2, [])]), ("B", 3, 3, [])])]


def test_a_section_ends_before_the_next_heading_of_its_level_without_trailing_blank_lines() -> None:
    (first, second) = outline("# One\ntext\n\n\n# Two\n")
    assert (first.end_line, first.end_column) == (1, 4)
    assert second.line == 4


def test_the_tokens_of_a_section_include_its_subsections() -> None:
    (top,) = outline("# T\nab\n## S\ncd\n")
    assert top.tokens.estimate == len("# T\nab\n## S\ncd")
    assert top.tokens.pi == 4  # ceil(15 / 4)
    assert top.children[0].tokens.estimate == len("## S\ncd")


def test_lines_in_fenced_code_are_not_headings() -> None:
    assert [h.title for h in outline("# Real\n```sh\n# comment\n```\n~~~\n# also code\n~~~\n")] == ["Real"]


def test_a_fence_closes_only_with_the_same_character_and_at_least_its_length() -> None:
    assert [h.title for h in outline("````\n```\n# inside\n````\n# After\n")] == ["After"]


def test_frontmatter_is_not_read_for_headings() -> None:
    assert [h.title for h in outline("---\nname: x\n# no\n---\n# Body\n")] == ["Body"]


def test_closing_hashes_and_indent_are_not_part_of_the_title() -> None:
    (heading,) = outline("   ## Setup ##\n")
    assert (heading.title, heading.level, heading.title_start, heading.title_end) == ("Setup", 2, 3, 14)


def test_hashes_without_a_space_are_text() -> None:
    assert outline("#hashtag\n####### seven\n") == []


def test_an_empty_heading_gets_a_visible_name() -> None:
    assert [h.title for h in outline("#\n")] == ["(empty heading)"]


def test_a_deeper_heading_before_any_shallower_one_is_a_root() -> None:
    assert shape(outline("### Deep\n# Top\n")) == [("Deep", 0, 0, []), ("Top", 1, 1, [])]
