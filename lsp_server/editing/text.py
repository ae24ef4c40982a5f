"""Positions and edits in a file's text, counted the way findings count them.

Findings use 0-based lines and code-point columns over the text the editor shows; lines end at
``\\r\\n``, ``\\r`` or ``\\n`` (LSP's line breaks, and the same lines Pi's newline normalisation
produces), and a BOM, when the text has one, is the first character of line 0. A quick fix is a
list of :class:`TextEdit` in those positions; :func:`apply_edits` applies them the way an editor
does (all ranges refer to the original text), which is how the tests prove a fix works.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from lsp_server.base.findings import Position, Range

_LINE_BREAK = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True)
class TextEdit:
    """Replace ``range`` (code points) with ``new_text``; an empty range inserts."""

    range: Range
    new_text: str


class LineIndex:
    """Line starts of a text, for (line, column) <-> offset conversions."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0]
        self.ends: list[int] = []  # offset of each line's break (or of the end of the text)
        for match in _LINE_BREAK.finditer(text):
            self.ends.append(match.start())
            self.starts.append(match.end())
        self.ends.append(len(text))

    def __len__(self) -> int:
        return len(self.starts)

    def line(self, number: int) -> str:
        """Line ``number`` without its line break ('' past the end)."""
        if not 0 <= number < len(self.starts):
            return ""
        return self.text[self.starts[number] : self.ends[number]]

    def lines(self) -> list[str]:
        return [self.line(number) for number in range(len(self.starts))]

    def offset(self, position: Position) -> int:
        """Offset of ``position``, clamped to its line's end (a line past the end: the text's end)."""
        if position.line >= len(self.starts):
            return len(self.text)
        if position.line < 0:
            return 0
        start = self.starts[position.line]
        return min(start + max(position.column, 0), self.ends[position.line])

    def position(self, offset: int) -> Position:
        offset = max(0, min(offset, len(self.text)))
        low, high = 0, len(self.starts) - 1
        while low < high:  # last line start <= offset
            middle = (low + high + 1) // 2
            if self.starts[middle] <= offset:
                low = middle
            else:
                high = middle - 1
        return Position(low, min(offset, self.ends[low]) - self.starts[low])

    def line_end(self, number: int) -> Position:
        """The position just before line ``number``'s line break."""
        return Position(number, len(self.line(number)))

    def slice(self, where: Range) -> str:
        return self.text[self.offset(where.start) : self.offset(where.end)]


def line_break_of(text: str) -> str:
    """The file's line break (its first one), ``\\n`` for a single-line file."""
    match = _LINE_BREAK.search(text)
    return match.group(0) if match else "\n"


def apply_edits(text: str, edits: Iterable[TextEdit]) -> str:
    """The text after ``edits`` (ranges in the original text; must not overlap)."""
    index = LineIndex(text)
    spans = sorted(
        ((index.offset(edit.range.start), index.offset(edit.range.end), edit.new_text) for edit in edits),
        key=lambda span: (span[0], span[1]),
    )
    out: list[str] = []
    cursor = 0
    for start, end, new_text in spans:
        if start < cursor:
            raise ValueError(f"overlapping edits at offset {start}")
        out.append(text[cursor:start])
        out.append(new_text)
        cursor = max(cursor, end)
    out.append(text[cursor:])
    return "".join(out)


def insert_at(position: Position, new_text: str) -> TextEdit:
    return TextEdit(Range(position, position), new_text)


def delete_lines(first: int, last: int, index: LineIndex) -> TextEdit:
    """Remove lines ``first``..``last`` with their line breaks (the last line of the file keeps none)."""
    if last + 1 < len(index):
        return TextEdit(Range(Position(first, 0), Position(last + 1, 0)), "")
    if first > 0:  # the last line has no break of its own: take the one before it
        return TextEdit(Range(index.line_end(first - 1), index.line_end(last)), "")
    return TextEdit(Range(Position(first, 0), index.line_end(last)), "")


def ranges_touch(a: Range, b: Range) -> bool:
    """Whether two ranges overlap or touch (an empty range at a boundary counts)."""
    return a.start <= b.end and b.start <= a.end


def sorted_edits(edits: Sequence[TextEdit]) -> tuple[TextEdit, ...]:
    return tuple(sorted(edits, key=lambda edit: (edit.range.start, edit.range.end)))
