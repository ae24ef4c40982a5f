"""A line as the model reads it, with every character mapped back to the columns it came from.

A rule that matches text the model will interpret (a forged ``</project_context>``) must not be
fooled by spellings a person does not see or a model reads through:

- **invisible characters** are dropped (every default-ignorable code point:
  :data:`lsp_server.rules.invisible_chars.DEFAULT_IGNORABLE`), so ``</project\\u00ad_context>``
  (a soft hyphen) reads as ``</project_context>``;
- **compatibility forms** are folded with NFKC, one character at a time: fullwidth and small-form
  brackets (``＜`` U+FF1C, ``﹤`` U+FE64), fullwidth and mathematical letters, the no-break and
  ideographic spaces;
- **character references** are decoded once, as HTML does: named (``&lt;``, ``&gt;``, ``&sol;``,
  ``&shy;``, with or without the semicolon where HTML allows it) and numeric (``&#60;``,
  ``&#x3C;``), the decoded character folded and dropped like the others. One level only:
  ``&amp;lt;`` reads as ``&lt;``.

Positions stay exact: :class:`ReadLine` keeps, for each character it reads, the code-point columns
of the original text that produced it, so a match on the read text maps back to the original range
(the language server converts code points to UTF-16 columns as LSP wants). An ASCII line without
``&`` and a non-ASCII line that is already NFKC without invisible characters or ``&`` read as
themselves, without a map. Work is linear in the line.
"""

from __future__ import annotations

import html
import re
import unicodedata
from array import array
from dataclasses import dataclass
from functools import lru_cache
from html.entities import html5

from lsp_server.rules.invisible_chars import has_default_ignorable, is_default_ignorable, strip_default_ignorable

_REFERENCE = re.compile(r"&(?:#[xX][0-9a-fA-F]{1,6};?|#[0-9]{1,7};?|[A-Za-z][A-Za-z0-9]{0,31};?)")
_MAX_LEGACY = 6  # the longest of HTML's names that may go without ';' ("frac34", "middot")


@dataclass(frozen=True)
class ReadLine:
    """``text`` is what the model reads; ``starts[i]``/``ends[i]`` the original columns of ``text[i]``
    (``None``: the line reads as itself)."""

    text: str
    starts: array[int] | None = None
    ends: array[int] | None = None
    shift: int = 0  # the column the reading starts at (a line's end read alone)

    def original(self, start: int, end: int) -> tuple[int, int]:
        """The original columns [a, b) of the read text's [start, end) (``end > start``)."""
        if self.starts is None or self.ends is None:
            return start + self.shift, end + self.shift
        return self.starts[start] + self.shift, self.ends[end - 1] + self.shift


@lru_cache(maxsize=4096)
def _fold(char: str) -> str:
    """One character as read: nothing for an invisible one, else its NFKC form without invisible characters."""
    if is_default_ignorable(char):
        return ""
    folded = unicodedata.normalize("NFKC", char)
    return folded if folded == char else "".join(c for c in folded if not is_default_ignorable(c))


def reads_as_written(line: str) -> bool:
    """A line that reads as itself: no reference, no invisible character, nothing NFKC changes."""
    if "&" in line or "\uff06" in line or "\ufe60" in line:
        return False
    if line.isascii():
        return True
    return unicodedata.is_normalized("NFKC", line) and not has_default_ignorable(line)


def _decode(reference: str) -> tuple[str, int]:
    """What a reference at the start of ``reference`` decodes to, and how many characters it takes."""
    if reference[1] == "#":
        return html.unescape(reference), len(reference)
    name = reference[1:]
    if name.endswith(";") and name in html5:
        return html5[name], len(reference)
    bare = name.rstrip(";")
    for length in range(min(len(bare), _MAX_LEGACY), 1, -1):  # HTML's longest legacy name without ';'
        value = html5.get(bare[:length])
        if value is not None:
            return value, length + 1
    return reference[0], 1  # not a reference: the '&' reads as itself


_NON_ASCII = re.compile(r"[^\x00-\x7f]")


def read_text(line: str) -> str:
    """What :func:`read_line` reads, without the column map, at C speed: for a quick test before the exact
    reading (it folds the whole line with NFKC at once, so it may differ from it in combining sequences)."""
    if reads_as_written(line):
        return line
    text = unicodedata.normalize("NFKC", strip_default_ignorable(line))
    if "&" not in text:
        return text
    return unicodedata.normalize("NFKC", strip_default_ignorable(html.unescape(text)))


def read_line(line: str, start: int = 0) -> ReadLine:
    """``line`` as the model reads it (see the module's docstring), from column ``start`` on. ASCII runs are
    copied whole; only non-ASCII characters are folded one by one. The column maps are arrays of 4-byte
    integers (a map of an 8 MiB line is 64 MB, not the 600 MB lists of Python integers would take)."""
    if start:
        read = read_line(line[start:])
        return ReadLine(read.text, read.starts, read.ends, start)
    if reads_as_written(line):
        return ReadLine(line)
    chars: list[str] = []
    starts = array("I")
    ends = array("I")
    done = 0
    for match in _NON_ASCII.finditer(line):
        index = match.start()
        if index > done:
            chars.append(line[done:index])
            starts.extend(range(done, index))
            ends.extend(range(done + 1, index + 1))
        folded = _fold(line[index])
        chars.append(folded)
        for _ in folded:
            starts.append(index)
            ends.append(index + 1)
        done = index + 1
    if done < len(line):
        chars.append(line[done:])
        starts.extend(range(done, len(line)))
        ends.extend(range(done + 1, len(line) + 1))
    text = "".join(chars)
    if "&" in text:
        text, starts, ends = _decode_references(text, starts, ends)
    return ReadLine(text, starts, ends)


def _decode_references(text: str, starts: array[int], ends: array[int]) -> tuple[str, array[int], array[int]]:
    """``text`` with its character references decoded once; each decoded character maps to the whole reference."""
    chars: list[str] = []
    new_starts = array("I")
    new_ends = array("I")
    done = 0
    for match in _REFERENCE.finditer(text):
        begin = match.start()
        if begin < done:
            continue
        chars.append(text[done:begin])
        new_starts.extend(starts[done:begin])
        new_ends.extend(ends[done:begin])
        value, taken = _decode(match.group())
        end = begin + taken
        decoded = "".join(_fold(c) for c in value) if taken > 1 else value
        chars.append(decoded)
        for _ in decoded:
            new_starts.append(starts[begin])
            new_ends.append(ends[end - 1])
        done = end
    chars.append(text[done:])
    new_starts.extend(starts[done:])
    new_ends.extend(ends[done:])
    return "".join(chars), new_starts, new_ends
