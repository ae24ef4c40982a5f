"""Finding every run of 8 or more characters of any key's form in a folded text, in one pass.

The forms' 5-character pieces (``GRAM``) are indexed with where they occur. Any run of at least
:data:`~lsp_server.redaction.forms.MIN_PIECE` (8) matching characters covers a whole piece that
starts at a multiple of 4 (``STRIDE = 8 - 5 + 1``), so the text is looked up only there: a quarter
of its positions, each a slice and a dictionary lookup. A hit is extended both ways along its
diagonal (text position minus form position) for as long as the characters agree; a run of 8 or
more is a match. A diagonal extended once is not extended again from the next stride point inside
the same run, so each match costs its own length, and the whole scan is linear in the text.

A form may begin with a provider's fixed prefix (``public``, :func:`~lsp_server.redaction.forms.public_prefix_length`):
a run counts only when 8 of its characters lie past it.

Every place of every piece is kept, so the search is exact. A piece repeated many times in a form
makes each hit on it cost as many places; values like that (a run of one character, a word
repeated) are not keys and are replaced only whole (:func:`~lsp_server.redaction.forms.is_key_like`
asks that at least half of a value's 5-character pieces differ), which keeps the repetitions of a
piece within a form small.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Final

from lsp_server.redaction.forms import MIN_PIECE

GRAM: Final = 5
STRIDE: Final = MIN_PIECE - GRAM + 1
_SEPARATOR: Final = "\x00"

Span = tuple[int, int]


class KeyIndex:
    """The folded forms of some keys, ready to be searched for."""

    def __init__(self, forms: Iterable[str], public: Mapping[str, int] | None = None) -> None:
        self.forms: tuple[str, ...] = tuple(dict.fromkeys(form for form in forms if len(form) >= MIN_PIECE))
        # For each form, how many of its leading characters are a provider's fixed prefix.
        self._public: tuple[int, ...] = tuple((public or {}).get(form, 0) for form in self.forms)
        places: dict[str, list[tuple[int, int]]] = {}
        for number, form in enumerate(self.forms):
            for position in range(len(form) - GRAM + 1):
                places.setdefault(form[position : position + GRAM], []).append((number, position))
        self._places = {gram: tuple(found) for gram, found in places.items()}
        self._joined = _SEPARATOR.join(self.forms)  # for "is this a piece of some form?"
        # A stream holds back an end that may still become a match: up to 7 characters past the longest prefix.
        self.hold = MIN_PIECE - 1 + max(self._public, default=0)

    def __bool__(self) -> bool:
        return bool(self.forms)

    def spans(self, folded: str) -> list[Span]:
        """The runs of ``folded`` that are 8+ characters of a form, merged where they overlap or touch, in order."""
        return _merged(self.runs(folded))

    def runs(self, folded: str) -> list[Span]:
        """Each maximal run of 8+ characters of ``folded`` that matches a form at one place, by start (not merged)."""
        found: list[Span] = []
        places = self._places.get
        reach: dict[tuple[int, int], int] = {}  # (form, diagonal) -> where its last run ended
        size = len(folded)
        forms = self.forms
        for start in range(0, size - GRAM + 1, STRIDE):
            hits = places(folded[start : start + GRAM])
            if hits is None:
                continue
            for number, position in hits:
                diagonal = (number, start - position)
                if reach.get(diagonal, -1) > start:
                    continue  # inside a run already extended
                form = forms[number]
                left, back = start, position
                while left > 0 and back > 0 and folded[left - 1] == form[back - 1]:
                    left -= 1
                    back -= 1
                right, ahead = start + GRAM, position + GRAM
                while right < size and ahead < len(form) and folded[right] == form[ahead]:
                    right += 1
                    ahead += 1
                reach[diagonal] = right
                if ahead - max(back, self._public[number]) >= MIN_PIECE:
                    found.append((left, right))
        found.sort()
        return found

    def open_tail(self, folded: str) -> int:
        """The length of the longest end of ``folded``, at most :attr:`hold` long, that is a piece of some form.

        A stream must hold such an end back: the next piece of the stream may continue it into a
        match. (If an end of length ``k`` is a piece of a form, so is its end of length ``k - 1``:
        a binary search finds the longest.)
        """
        low, high = 0, min(self.hold, len(folded))
        while low < high:
            middle = (low + high + 1) // 2
            end = folded[-middle:]
            if _SEPARATOR not in end and end in self._joined:
                low = middle
            else:
                high = middle - 1
        return low


def _merged(spans: list[Span]) -> list[Span]:
    if not spans:
        return spans
    merged = [spans[0]]
    for left, right in spans[1:]:
        last_left, last_right = merged[-1]
        if left <= last_right:
            merged[-1] = (last_left, max(last_right, right))
        else:
            merged.append((left, right))
    return merged
