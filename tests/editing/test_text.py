"""Positions and edits over LSP lines (\\r\\n, \\r and \\n all end a line)."""

from __future__ import annotations

import pytest

from lsp_server.base.findings import Position, Range
from lsp_server.editing.text import LineIndex, TextEdit, apply_edits, delete_lines, insert_at, line_break_of


def test_lines_end_at_crlf_cr_and_lf() -> None:
    assert LineIndex("a\r\nb\rc\nd").lines() == ["a", "b", "c", "d"]


def test_offsets_and_positions_round_trip() -> None:
    index = LineIndex("ab\r\ncd")
    assert index.offset(Position(1, 1)) == 5 and index.position(5) == Position(1, 1)


def test_a_column_past_the_end_of_a_line_is_clamped_to_it() -> None:
    assert LineIndex("ab\r\ncd").offset(Position(0, 9)) == 2


def test_the_file_line_break_is_the_first_one() -> None:
    assert (line_break_of("a\r\nb\n"), line_break_of("a"), line_break_of("a\rb")) == ("\r\n", "\n", "\r")


def test_edits_refer_to_the_original_text() -> None:
    edits = [insert_at(Position(1, 0), "x"), TextEdit(Range(Position(0, 0), Position(0, 1)), "Z")]
    assert apply_edits("a\nb\n", edits) == "Z\nxb\n"


def test_overlapping_edits_are_refused() -> None:
    edits = [TextEdit(Range(Position(0, 0), Position(0, 2)), ""), TextEdit(Range(Position(0, 1), Position(0, 3)), "")]
    with pytest.raises(ValueError):
        apply_edits("abcd", edits)


def test_deleting_the_last_line_takes_the_break_before_it() -> None:
    index = LineIndex("a\nb")
    assert apply_edits("a\nb", [delete_lines(1, 1, index)]) == "a"


def test_deleting_inner_lines_takes_their_breaks() -> None:
    index = LineIndex("a\r\nb\r\nc\r\n")
    assert apply_edits("a\r\nb\r\nc\r\n", [delete_lines(1, 1, index)]) == "a\r\nc\r\n"
