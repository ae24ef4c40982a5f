"""Characters the model receives but an editor does not show: every default-ignorable code point and more.

The set (:data:`INVISIBLE_RANGES`) is Unicode's ``Default_Ignorable_Code_Point`` property (the
characters a renderer shows as nothing when it cannot show them; from DerivedCoreProperties.txt,
checked against the ``regex`` module's tables in tests/rules/test_invisible_chars.py) plus the
line and paragraph separators U+2028/U+2029 (which editors treat as an ordinary character or an
unmarked line break, and the interlinear annotation controls U+FFF9–U+FFFB, which hide the text
between them in some renderers). The families that hide text from the person reviewing a context
file or a skill while the model reads it:

- **bidirectional controls** (U+202A–U+202E, U+2066–U+2069, U+200E/U+200F, U+061C): they reorder
  what is displayed (the "Trojan Source" trick), so the text shown is not the text sent;
- **zero-width and format characters** (U+200B–U+200D, U+2060–U+2064, U+FEFF after the start of
  the file, U+00AD SOFT HYPHEN, U+034F, U+180E, U+206A–U+206F, U+17B4/U+17B5): they split words
  past a reviewer's search (``</project\\u00ad_context>`` is not the string ``</project_context>``)
  or carry data in their pattern;
- **fillers that render as blank** (Hangul U+3164, U+FFA0, U+115F, U+1160);
- **variation selectors** (U+FE00–U+FE0F, U+E0100–U+E01EF, Mongolian U+180B–U+180D, U+180F): 256
  invisible values, one byte each, the way bytes are smuggled after an emoji; :func:`hidden_text`
  reads such a run back;
- **Unicode tag characters** (U+E0000–U+E007F, and the unassigned rest of U+E0000–U+E0FFF):
  invisible copies of ASCII (U+E0041 is a hidden ``A``) that models decode, the hidden-instruction
  trick; :func:`hidden_text` reads them back.

Legitimate uses are left alone (:func:`_legitimate`), each a rule a reader can check:

- a zero-width joiner or non-joiner between two non-ASCII characters (emoji sequences such as 👩‍💻,
  Persian and Indic spelling); a left-to-right or right-to-left mark next to right-to-left letters;
- **one** variation selector after its base: U+FE00–U+FE0F after a non-ASCII character (❤️ is
  U+2764 U+FE0F; mathematical and CJK compatibility variants), or after ``#``, ``*`` or a digit
  followed by U+20E3 (the keycap 1️⃣); U+E0100–U+E01EF after a CJK ideograph (ideographic
  variation sequences, used in Japanese names); a Mongolian selector after a Mongolian letter.
  Two or more selectors in a row are never a legitimate sequence, so a run of them is reported
  whole, whatever its base;
- U+180E MONGOLIAN VOWEL SEPARATOR between two Mongolian letters; U+034F COMBINING GRAPHEME JOINER
  before a combining mark; the Hangul fillers U+115F/U+1160 next to a conjoining jamo (old Hangul
  syllables); the shorthand format controls after a Duployan letter and the musical format
  controls next to musical symbols;
- an emoji tag sequence: U+1F3F4 WAVING BLACK FLAG followed by a region code of 3 to 6 tag letters
  or digits and U+E007F CANCEL TAG (🏴󠁧󠁢󠁳󠁣󠁴󠁿, the flag of Scotland). Six hidden letters carry no
  instruction; anything longer is reported.

Runs of adjacent reported characters are one finding. Scanning is one compiled character class per
line (:data:`_RUN`), so lines without any of these characters cost a regular-expression search.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

# Unicode's Default_Ignorable_Code_Point, as (first, last) ranges (DerivedCoreProperties.txt).
DEFAULT_IGNORABLE: tuple[tuple[int, int], ...] = (
    (0x00AD, 0x00AD),  # SOFT HYPHEN
    (0x034F, 0x034F),  # COMBINING GRAPHEME JOINER
    (0x061C, 0x061C),  # ARABIC LETTER MARK
    (0x115F, 0x1160),  # HANGUL CHOSEONG / JUNGSEONG FILLER
    (0x17B4, 0x17B5),  # KHMER VOWEL INHERENT AQ / AA
    (0x180B, 0x180F),  # MONGOLIAN FREE VARIATION SELECTORS, VOWEL SEPARATOR
    (0x200B, 0x200F),  # ZERO WIDTH SPACE .. RIGHT-TO-LEFT MARK
    (0x202A, 0x202E),  # bidi embeddings and overrides
    (0x2060, 0x206F),  # WORD JOINER, invisible operators, bidi isolates, deprecated format characters
    (0x3164, 0x3164),  # HANGUL FILLER
    (0xFE00, 0xFE0F),  # VARIATION SELECTOR-1..16
    (0xFEFF, 0xFEFF),  # ZERO WIDTH NO-BREAK SPACE (a BOM at the start of a file is not in the lines)
    (0xFFA0, 0xFFA0),  # HALFWIDTH HANGUL FILLER
    (0xFFF0, 0xFFF8),  # unassigned, reserved as default ignorable
    (0x1BCA0, 0x1BCA3),  # SHORTHAND FORMAT controls
    (0x1D173, 0x1D17A),  # MUSICAL SYMBOL BEGIN/END BEAM, TIE, SLUR, PHRASE
    (0xE0000, 0xE0FFF),  # tags (U+E0001, U+E0020-U+E007F), VARIATION SELECTOR-17..256, unassigned
)
# Not default-ignorable, but shown as nothing (or as an ordinary break) by editors.
OTHER_INVISIBLE: tuple[tuple[int, int], ...] = (
    (0x2028, 0x2029),  # LINE SEPARATOR, PARAGRAPH SEPARATOR
    (0xFFF9, 0xFFFB),  # INTERLINEAR ANNOTATION ANCHOR / SEPARATOR / TERMINATOR
)
INVISIBLE_RANGES: tuple[tuple[int, int], ...] = tuple(sorted(DEFAULT_IGNORABLE + OTHER_INVISIBLE))

BIDI_MARKS = frozenset({"\u200e", "\u200f", "\u061c"})
JOINERS = frozenset({"\u200c", "\u200d"})
TAG_FIRST, TAG_LAST = 0xE0000, 0xE007F
CANCEL_TAG = "\U000e007f"
BLACK_FLAG = "\U0001f3f4"
KEYCAP = "\u20e3"
HIDDEN_TEXT_SHOWN = 120  # characters of decoded hidden text a message shows
MAX_LABELS = 6  # kinds of characters a message names, then "…"


def _char_class(ranges: tuple[tuple[int, int], ...]) -> str:
    return "".join(re.escape(chr(a)) if a == b else f"{re.escape(chr(a))}-{re.escape(chr(b))}" for a, b in ranges)


_RUN = re.compile(f"[{_char_class(INVISIBLE_RANGES)}]+")
_IGNORABLE = re.compile(f"[{_char_class(DEFAULT_IGNORABLE)}]")
_IGNORABLE_CHARS = frozenset(chr(code) for first, last in DEFAULT_IGNORABLE for code in range(first, last + 1))


def is_invisible(char: str) -> bool:
    """Whether ``char`` is one of the characters this rule looks at (legitimate or not)."""
    return _RUN.fullmatch(char) is not None


def is_default_ignorable(char: str) -> bool:
    return char in _IGNORABLE_CHARS


def has_default_ignorable(text: str) -> bool:
    return _IGNORABLE.search(text) is not None


def strip_default_ignorable(text: str) -> str:
    return _IGNORABLE.sub("", text)


def is_tag_character(char: str) -> bool:
    return TAG_FIRST <= ord(char) <= TAG_LAST


def is_variation_selector(char: str) -> bool:
    code = ord(char)
    return 0xFE00 <= code <= 0xFE0F or 0xE0100 <= code <= 0xE01EF or 0x180B <= code <= 0x180D or code == 0x180F


def _selector_byte(char: str) -> int | None:
    """The byte a variation selector stands for in the smuggling scheme (VS1-16: 0-15, VS17-256: 16-255)."""
    code = ord(char)
    if 0xFE00 <= code <= 0xFE0F:
        return code - 0xFE00
    if 0xE0100 <= code <= 0xE01EF:
        return code - 0xE0100 + 16
    return None


def _rtl(char: str) -> bool:
    return unicodedata.bidirectional(char) in ("R", "AL")


def _in(char: str, first: int, last: int) -> bool:
    return bool(char) and first <= ord(char) <= last


def _mongolian_letter(char: str) -> bool:
    return _in(char, 0x1820, 0x18AA)


def _conjoining_jamo(char: str) -> bool:
    return _in(char, 0x1100, 0x11FF) or _in(char, 0xA960, 0xA97F) or _in(char, 0xD7B0, 0xD7FF)


_CJK_NAMES = ("CJK UNIFIED IDEOGRAPH", "CJK COMPATIBILITY IDEOGRAPH")


def _cjk_ideograph(char: str) -> bool:
    return bool(char) and unicodedata.name(char, "").startswith(_CJK_NAMES)


def _legitimate_selector(char: str, before: str, after: str) -> bool:
    """One selector after a base that has variation sequences (see the module's docstring)."""
    if not before or is_invisible(before) or (after and is_variation_selector(after)):
        return False
    code = ord(char)
    if 0xFE00 <= code <= 0xFE0F:
        if not before.isascii():
            return True
        return before in "#*0123456789" and after == KEYCAP
    if 0xE0100 <= code <= 0xE01EF:
        return _cjk_ideograph(before)
    return _mongolian_letter(before)  # U+180B-U+180D, U+180F


def _legitimate(line: str, index: int) -> bool:
    """Whether the character at ``index`` is one of the legitimate uses the module's docstring lists."""
    char = line[index]
    before = line[index - 1] if index > 0 else ""
    after = line[index + 1] if index + 1 < len(line) else ""
    if char in JOINERS:
        return bool(before and after) and not before.isascii() and not after.isascii()
    if char in BIDI_MARKS:
        return (bool(before) and _rtl(before)) or (bool(after) and _rtl(after))
    if is_variation_selector(char):
        return _legitimate_selector(char, before, after)
    code = ord(char)
    if code == 0x180E:
        return _mongolian_letter(before) and _mongolian_letter(after)
    if code == 0x034F:
        return bool(after) and unicodedata.category(after).startswith("M")
    if code in (0x115F, 0x1160):
        return (_conjoining_jamo(before) and not is_invisible(before)) or _conjoining_jamo(after)
    if 0x1BCA0 <= code <= 0x1BCA3:
        return _in(before, 0x1BC00, 0x1BC9F)
    if 0x1D173 <= code <= 0x1D17A:
        return _in(before, 0x1D100, 0x1D1FF) or _in(after, 0x1D100, 0x1D1FF)
    return False


_FLAG_TAGS = re.compile("[\U000e0030-\U000e0039\U000e0061-\U000e007a]{3,6}\U000e007f")


def _flag_sequence(line: str, start: int) -> int:
    """The length of an emoji tag sequence's tags starting at ``start`` (after U+1F3F4), else 0."""
    if start == 0 or line[start - 1] != BLACK_FLAG:
        return 0
    match = _FLAG_TAGS.match(line, start)
    return match.end() - start if match else 0


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
            label = _label(char)
            if label not in seen:
                seen.append(label)
        if len(seen) > MAX_LABELS:
            seen = [*seen[:MAX_LABELS], "…"]
        return ", ".join(seen)

    def hidden(self) -> str | None:
        """The text the run hides (tag characters' ASCII, or the bytes of variation selectors), if any."""
        return hidden_text(self.chars)


def _label(char: str) -> str:
    code = ord(char)
    if TAG_FIRST <= code <= TAG_LAST:
        return "U+E0000–U+E007F TAG characters"
    if 0xE0100 <= code <= 0xE01EF:
        return "U+E0100–U+E01EF VARIATION SELECTOR-17 to -256"
    if 0xE0080 <= code <= 0xE0FFF:
        return "U+E0080–U+E0FFF unassigned default-ignorable characters"
    name = unicodedata.name(char, "")
    return f"U+{code:04X} {name}".rstrip() if name else f"U+{code:04X} (unassigned, default-ignorable)"


def hidden_ascii(chars: str) -> str:
    """The ASCII that tag characters spell (U+E0020–U+E007E), shortened for a message."""
    text = "".join(chr(ord(c) - TAG_FIRST) for c in chars if 0xE0020 <= ord(c) <= 0xE007E)
    return _shorten(text)


def _shorten(text: str) -> str:
    return text if len(text) <= HIDDEN_TEXT_SHOWN else text[:HIDDEN_TEXT_SHOWN] + "…"


def hidden_text(chars: str) -> str | None:
    """What a run hides: the ASCII of its tag characters, else the UTF-8 text its variation selectors
    encode (one byte each) when that is printable; ``None`` when it spells nothing readable."""
    if any(is_tag_character(c) for c in chars):
        return hidden_ascii(chars) or None
    data = bytes(b for b in map(_selector_byte, chars) if b is not None)
    if len(data) < 2:
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return _shorten(text) if text.isprintable() else None


def find_invisible(lines: list[str], first_line: int = 0, limit: int = 200) -> list[InvisibleRun]:
    """Every run of reported invisible characters in ``lines`` (at most ``limit`` runs)."""
    runs: list[InvisibleRun] = []
    for offset, line in enumerate(lines):
        if line.isascii():
            continue
        for match in _RUN.finditer(line):
            index, end = match.start(), match.end()
            index += _flag_sequence(line, index)
            start = -1
            while index <= end:
                reported = index < end and not _legitimate(line, index)
                if reported and start < 0:
                    start = index
                elif not reported and start >= 0:
                    runs.append(InvisibleRun(first_line + offset, start, index, line[start:index]))
                    if len(runs) >= limit:
                        return runs
                    start = -1
                index += 1
    return runs
