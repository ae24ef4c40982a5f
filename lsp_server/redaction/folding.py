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
same folded string (a test holds that on generated text).
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


def _decoded(match: re.Match[str]) -> str:
    return chr(int(match.group(1), 16))


def _lower(text: str) -> str:
    """ASCII letters lower-cased; every other character kept (``str.lower`` may change a length)."""
    return text.lower() if text.isascii() else text.translate(_ASCII_LOWER)


def fold(text: str) -> str:
    """``text`` with ``%XX`` decoded, whitespace removed and ASCII letters lower-cased."""
    if "%" in text:
        text = _PERCENT.sub(_decoded, text)
    return _lower(_SPACE.sub("", text))


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


def fold_with_map(text: str) -> FoldedText:
    """:func:`fold`, keeping where each folded character came from."""
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
