"""Characters the model receives but an editor does not show: bidi controls, zero-width, tag characters.

Three families hide text from the person reviewing a context file or skill while the model reads it:

- **bidirectional controls** (U+202A–U+202E embeddings and overrides, U+2066–U+2069 isolates,
  U+200E/U+200F marks, U+061C): they reorder what is displayed (the "Trojan Source" trick), so the
  text shown is not the text sent;
- **zero-width characters** (U+200B–U+200D, U+2060, and U+FEFF anywhere but the start of the file):
  they split words so that a reviewer's search misses them, or carry data in their pattern;
- **Unicode tag characters** (U+E0000–U+E007F): invisible copies of ASCII (U+E0041 is a hidden
  ``A``) that models decode, the hidden-instruction trick; :func:`hidden_ascii` reads them back.

Legitimate uses are left alone: a zero-width joiner or non-joiner between two non-ASCII
characters (emoji sequences such as 👩‍💻, Persian and Indic spelling), and a left-to-right or
right-to-left mark next to right-to-left letters. Runs of adjacent characters are one finding.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

BIDI_CONTROLS = frozenset({*map(chr, range(0x202A, 0x202F)), *map(chr, range(0x2066, 0x206A))})
BIDI_MARKS = frozenset({"\u200e", "\u200f", "\u061c"})
ZERO_WIDTH = frozenset({"\u200b", "\u200c", "\u200d", "\u2060", "\ufeff"})
JOINERS = frozenset({"\u200c", "\u200d"})
TAG_FIRST, TAG_LAST = 0xE0000, 0xE007F
HIDDEN_TEXT_SHOWN = 120  # characters of decoded tag text a message shows


def is_tag_character(char: str) -> bool:
    return TAG_FIRST <= ord(char) <= TAG_LAST


def _candidate(char: str) -> bool:
    return char in BIDI_CONTROLS or char in BIDI_MARKS or char in ZERO_WIDTH or is_tag_character(char)


def _rtl(char: str) -> bool:
    return unicodedata.bidirectional(char) in ("R", "AL")


def _legitimate(line: str, index: int) -> bool:
    """A joiner between non-ASCII characters, or a bidi mark beside right-to-left letters."""
    char = line[index]
    before = line[index - 1] if index > 0 else ""
    after = line[index + 1] if index + 1 < len(line) else ""
    if char in JOINERS:
        return bool(before and after) and not before.isascii() and not after.isascii()
    if char in BIDI_MARKS:
        return (bool(before) and _rtl(before)) or (bool(after) and _rtl(after))
    return False


@dataclass(frozen=True)
class InvisibleRun:
    """Adjacent invisible characters on one line: code-point columns [start, end)."""

    line: int
    start: int
    end: int
    chars: str

    @property
    def has_tags(self) -> bool:
        return any(is_tag_character(c) for c in self.chars)

    def describe(self) -> str:
        """The characters' code points and names, each kind once, in order of appearance."""
        seen: list[str] = []
        for char in self.chars:
            label = "U+E0000–U+E007F TAG characters" if is_tag_character(char) else _label(char)
            if label not in seen:
                seen.append(label)
        return ", ".join(seen)


def _label(char: str) -> str:
    name = unicodedata.name(char, "")
    return f"U+{ord(char):04X} {name}".rstrip()


def hidden_ascii(chars: str) -> str:
    """The ASCII that tag characters spell (U+E0020–U+E007E), shortened for a message."""
    text = "".join(chr(ord(c) - TAG_FIRST) for c in chars if 0xE0020 <= ord(c) <= 0xE007E)
    return text if len(text) <= HIDDEN_TEXT_SHOWN else text[:HIDDEN_TEXT_SHOWN] + "…"


def find_invisible(lines: list[str], first_line: int = 0, limit: int = 200) -> list[InvisibleRun]:
    """Every run of invisible characters in ``lines`` (at most ``limit`` runs)."""
    runs: list[InvisibleRun] = []
    for offset, line in enumerate(lines):
        if line.isascii():
            continue
        index = 0
        while index < len(line):
            if not _candidate(line[index]) or _legitimate(line, index):
                index += 1
                continue
            start = index
            while index < len(line) and _candidate(line[index]) and not _legitimate(line, index):
                index += 1
            runs.append(InvisibleRun(first_line + offset, start, index, line[start:index]))
            if len(runs) >= limit:
                return runs
    return runs
