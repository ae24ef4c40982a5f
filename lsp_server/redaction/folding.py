"""A text as redaction compares it: its disguises undone, with the way back to the text's own positions.

A key can be shown in disguise without being encoded in any real sense: upper-cased, spaced every
few characters, percent-encoded (``%73%6B%2D…``, or only its ``+``, ``/`` and ``=`` as in a URL).
Rather than list every such variant of every key, the text is *folded* the way each key is folded:
``%XX`` escapes decoded (one pass, as a URL decoder does), then every whitespace character removed,
then ASCII letters lower-cased. A key and its disguises fold to the same string, so one search of
the folded text finds them all.

:func:`fold` is the fast path (C-speed string operations, used on every text); a text in which
something was found is folded again by :func:`fold_with_map`, which also keeps, for each folded
character, where it came from, so the replacement lands on the text's own characters (a decoded
``%41`` covers three of them, removed whitespace inside a key is replaced with it). Both produce the
same folded string (a test holds that on generated text). The map is worked out line by line and
only for the lines a match is in, so a long text with one key in it costs little more than one
without.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from typing import Final

_PERCENT: Final = re.compile(r"%([0-9A-Fa-f]{2})")
_SPACE: Final = re.compile(r"\s+")
_TOKEN: Final = re.compile(r"%([0-9A-Fa-f]{2})|\s+")  # what folding changes: an escape or a run of whitespace
_ASCII_LOWER: Final = {code: code + 32 for code in range(ord("A"), ord("Z") + 1)}
# Every character ``\s`` matches (a test compares with all of Unicode), deleted: str.translate runs at C
# speed where re.sub calls back per run.
SPACES: Final = (
    *range(0x09, 0x0E), *range(0x1C, 0x21), 0x85, 0xA0, 0x1680, *range(0x2000, 0x200B),
    0x2028, 0x2029, 0x202F, 0x205F, 0x3000,
)  # fmt: skip
_NO_SPACE: Final = dict.fromkeys(SPACES)


def _decoded(match: re.Match[str]) -> str:
    return chr(int(match.group(1), 16))


def _lower(text: str) -> str:
    """ASCII letters lower-cased; every other character kept (``str.lower`` may change a length)."""
    return text.lower() if text.isascii() else text.translate(_ASCII_LOWER)


def fold(text: str) -> str:
    """``text`` with ``%XX`` decoded, whitespace removed and ASCII letters lower-cased."""
    if "%" in text:
        text = _PERCENT.sub(_decoded, text)
    return _lower(text.translate(_NO_SPACE))


@dataclass(frozen=True)
class FoldedText:
    """The folded text and, per run of folded characters, where it starts in the original.

    A run is either characters copied one for one (``width`` 1) or one decoded escape (``width`` 3,
    a single folded character); removed whitespace has no run.
    """

    folded: str
    starts: tuple[int, ...]  # the folded index each run starts at (increasing)
    origins: tuple[int, ...]  # the original index each run starts at
    widths: tuple[int, ...]  # 1: copied characters; 3: one decoded %XX

    def _run(self, index: int) -> int:
        return bisect.bisect_right(self.starts, index) - 1

    def start_of(self, index: int) -> int:
        """Where folded character ``index`` starts in the original text (its length for the end)."""
        if index >= len(self.folded):
            return self.end_of(len(self.folded) - 1) if self.folded else 0
        run = self._run(index)
        if self.widths[run] == 1:
            return self.origins[run] + index - self.starts[run]
        return self.origins[run]

    def end_of(self, index: int) -> int:
        """Where folded character ``index`` ends in the original text."""
        run = self._run(index)
        if self.widths[run] == 1:
            return self.origins[run] + index - self.starts[run] + 1
        return self.origins[run] + 3


def fold_with_map(text: str) -> FoldMap:
    """:func:`fold`, keeping where each folded character came from (worked out line by line, when asked)."""
    return FoldMap(text)


class FoldMap:
    """The folded text and the way back, built per line and only for the lines asked about.

    Every line break is whitespace and an escape cannot span one, so a text folds as its lines fold,
    one after the other; the lines' folded lengths (C-speed per line) say which line a folded index
    is in, and only that line is mapped character by character (:func:`fold_line_with_map`).
    """

    def __init__(self, text: str) -> None:
        self._lines = text.splitlines(keepends=True) or [""]
        folded = [fold(line) for line in self._lines]
        self.folded = "".join(folded)
        self._folded_starts: list[int] = []
        self._starts: list[int] = []
        size = start = 0
        for line, line_folded in zip(self._lines, folded, strict=True):
            self._folded_starts.append(size)
            self._starts.append(start)
            size += len(line_folded)
            start += len(line)
        self._maps: dict[int, FoldedText] = {}

    def _line(self, index: int) -> tuple[FoldedText, int, int]:
        number = max(0, bisect.bisect_right(self._folded_starts, index) - 1)
        mapped = self._maps.get(number)
        if mapped is None:
            mapped = self._maps[number] = fold_line_with_map(self._lines[number])
        return mapped, self._folded_starts[number], self._starts[number]

    def start_of(self, index: int) -> int:
        """Where folded character ``index`` starts in the text (the text's length past the end)."""
        if index >= len(self.folded):
            return self.end_of(len(self.folded) - 1) if self.folded else 0
        mapped, folded_start, start = self._line(index)
        return start + mapped.start_of(index - folded_start)

    def end_of(self, index: int) -> int:
        """Where folded character ``index`` ends in the text."""
        mapped, folded_start, start = self._line(index)
        return start + mapped.end_of(index - folded_start)


def fold_line_with_map(text: str) -> FoldedText:
    """:func:`fold` of one line (or any text), with each folded character's place, character by character."""
    pieces: list[str] = []
    starts: list[int] = []
    origins: list[int] = []
    widths: list[int] = []
    size = 0
    last = 0
    for match in _TOKEN.finditer(text):
        if match.start() > last:
            starts.append(size)
            origins.append(last)
            widths.append(1)
            pieces.append(text[last : match.start()])
            size += match.start() - last
        escape = match.group(1)
        if escape is not None:
            char = chr(int(escape, 16))
            if not _SPACE.match(char):  # a decoded space is removed like any other
                starts.append(size)
                origins.append(match.start())
                widths.append(3)
                pieces.append(char)
                size += 1
        last = match.end()
    if last < len(text):
        starts.append(size)
        origins.append(last)
        widths.append(1)
        pieces.append(text[last:])
    return FoldedText(_lower("".join(pieces)), tuple(starts), tuple(origins), tuple(widths))
