"""A streamed text redacted piece by piece, a key split across pieces included.

A model streams its reply in small pieces; a key it repeats (whole, or in any form the
:class:`~lsp_server.redaction.Redactor` knows) arrives split, and no piece alone is 8 characters of
it. So the pieces of one text are joined as they come, and what is passed on is the text so far,
redacted, less an end that could still become part of a key:

* the run of a key's form that reaches the end (the next piece may continue it), from its start;
  runs before it that touch or overlap it are passed on (a key repeated over and over is held one
  copy at a time);
* the longest end, shorter than 8 folded characters, that is a piece of some form (the next piece
  may complete 8), and an escape cut in two (``%`` or ``%4``);
* for a value replaced only whole, the longest end that begins it;
* every run the cut would split, from its start: either part alone could be too short to be
  recognised.

What is held back goes out with the next piece. An end held longer than :data:`HOLD_LIMIT`
characters (only text that matches keys in many overlapping places, such as a long run of one
character against a key full of it) is passed on redacted, all but its last 7 characters.
At the end of the text the caller drops what is still held (:meth:`StreamRedactor.drop`): the whole
text comes again then, redacted as a value.
"""

from __future__ import annotations

import re
from typing import Final

from lsp_server.redaction.folding import FoldMap, fold_with_map
from lsp_server.redaction.forms import MIN_PIECE
from lsp_server.redaction.redactor import Redactor

HOLD_LIMIT: Final = 4096
_OPEN_ESCAPE: Final = re.compile(r"%[0-9A-Fa-f]?\Z")


class StreamRedactor:
    """One streamed text; :meth:`feed` each piece, pass on what it returns."""

    def __init__(self, redactor: Redactor) -> None:
        self._redactor = redactor
        self.held = ""

    def feed(self, piece: str) -> str:
        """The part of the text so far that can be passed on now, redacted."""
        if not self._redactor:
            return piece
        text = self.held + piece
        cut = self._cut(text)
        self.held = text[cut:]
        return self._redactor.text(text[:cut]) if cut else ""

    def drop(self) -> None:
        self.held = ""

    def _cut(self, text: str) -> int:
        cut = len(text) - _open_exact(text, self._redactor.exact)
        index = self._redactor.index
        if index:
            escape = _OPEN_ESCAPE.search(text)  # "%" or "%4" at the end: held, and the rest looked at without it
            body = text if escape is None else text[: escape.start()]
            folded = fold_with_map(body)
            view = folded.folded
            runs = index.runs(view)
            going_on = min((left for left, right in runs if right == len(view)), default=len(view))
            hold_from = min(len(view) - index.open_tail(view), going_on)  # a run reaching the end may go on
            cut = min(cut, len(body), folded.start_of(hold_from) if hold_from < len(view) else len(body))
            cut = _whole_runs(cut, runs, folded)
        if len(text) - cut > HOLD_LIMIT:
            cut = len(text) - (index.hold if index else MIN_PIECE - 1)
        return cut


def _whole_runs(cut: int, runs: list[tuple[int, int]], folded: FoldMap) -> int:
    """``cut`` moved back to the start of every run it would split: either side of it alone could be too
    short to be recognised. Runs that only touch (a key repeated) are not split. One pass from the
    last start back suffices: a run already passed starts at or after the new cut.
    """
    for left, right in reversed(runs):
        start = folded.start_of(left)
        if start < cut < folded.end_of(right - 1):
            cut = start
    return cut


def _open_exact(text: str, values: tuple[str, ...]) -> int:
    """The length of the longest end of ``text`` that is the beginning of a value but not a whole value."""
    longest = 0
    for value in values:
        window = text[-(len(value) - 1) :] if len(value) > 1 else ""
        start = window.find(value[0]) if window else -1
        while start != -1 and len(window) - start > longest:
            if value.startswith(window[start:]):
                longest = len(window) - start
                break
            start = window.find(value[0], start + 1)
    return longest
