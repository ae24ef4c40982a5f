"""JavaScript strings: lengths, slices, sort order and trims in UTF-16 code units, Node's UTF-8 bytes.

A JavaScript string is a sequence of UTF-16 code units, so ``length``, ``slice`` and the default
sort count and compare units, and an astral character (an emoji) is two of them; a lone surrogate
is a unit of its own. Python strings are code points. Every length, cut and order that must agree
with Pi is computed here; Node writes a lone surrogate to UTF-8 as U+FFFD.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# ECMAScript WhiteSpace + LineTerminator code points (String.prototype.trim).
_JS_WHITESPACE = (
    "\u0009\u000a\u000b\u000c\u000d\u0020\u00a0\u1680"
    "\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000\ufeff"
)

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def _units(text: str) -> bytes:
    """``text`` as UTF-16-LE bytes, two per code unit (lone surrogates kept)."""
    return text.encode("utf-16-le", "surrogatepass")


def _decode(units: bytes) -> str:
    return units.decode("utf-16-le", "surrogatepass")


def js_len(text: str) -> int:
    """``text.length``: UTF-16 code units (an astral character counts 2)."""
    if text.isascii():
        return len(text)
    return len(_units(text)) // 2


def js_slice(text: str, start: int, end: int | None = None) -> str:
    """``text.slice(start, end)`` in UTF-16 units; splits a surrogate pair exactly where JS would."""
    if text.isascii():
        return text[start:end]
    units = _units(text)
    count = len(units) // 2
    lo = max(0, count + start) if start < 0 else min(start, count)
    hi = count if end is None else max(0, count + end) if end < 0 else min(end, count)
    if hi <= lo:
        return ""
    return _decode(units[lo * 2 : hi * 2])


def js_slice_head(text: str, units: int) -> str:
    """The first ``units`` UTF-16 code units of ``text``, never splitting a surrogate pair.

    Pi 1.6.0 cuts one unit earlier when the cut would land inside a pair, so the result can be
    one unit shorter than asked.
    """
    if units <= 0:
        return ""
    if text.isascii():
        return text[:units]
    data = _units(text[: units + 1])  # ``units`` code points hold at least ``units`` code units
    end = min(units, len(data) // 2)
    if end * 2 < len(data) and 0xD8 <= data[end * 2 - 1] <= 0xDB and 0xDC <= data[end * 2 + 1] <= 0xDF:
        end -= 1  # the last kept unit is a high surrogate whose low half follows
    return _decode(data[: end * 2])


def to_code_units(text: str) -> str:
    """``text`` with every astral character split into its two surrogates, one Python character per
    UTF-16 unit, so ``len`` and slicing on the result count as JavaScript does."""
    if text.isascii():
        return text
    return "".join(_split_astral(ch) for ch in text)


def _split_astral(ch: str) -> str:
    code = ord(ch)
    if code <= 0xFFFF:
        return ch
    code -= 0x10000
    return chr(0xD800 + (code >> 10)) + chr(0xDC00 + (code & 0x3FF))


def from_code_units(text: str) -> str:
    """The inverse of :func:`to_code_units`: adjacent surrogate halves become one character again
    (as they are one character in JavaScript); a half left alone stays a lone surrogate."""
    if text.isascii():
        return text
    return _decode(_units(text))


def js_sort_key(text: str) -> bytes:
    """Sort key that orders strings like JavaScript's default ``Array.prototype.sort``."""
    return text.encode("utf-16-be", "surrogatepass")


def js_sorted(items: Iterable[str]) -> list[str]:
    return sorted(items, key=js_sort_key)


def node_dir_sort_key(name: str) -> bytes:
    """Sort key for directory entries as Node's ``readdirSync`` returns them (byte order)."""
    return name.encode("utf-8", "surrogateescape")


def js_trim(text: str) -> str:
    """``String.prototype.trim``: ECMAScript whitespace, including U+FEFF, excluding U+001C-1F."""
    return text.strip(_JS_WHITESPACE)


def js_trim_start(text: str) -> str:
    return text.lstrip(_JS_WHITESPACE)


def strip_bom(text: str) -> str:
    """Remove one leading U+FEFF, as Pi's ``stripBom`` does."""
    return text[1:] if text.startswith("\ufeff") else text


def normalize_newlines(text: str) -> str:
    """``\\r\\n`` and lone ``\\r`` become ``\\n``, as Pi normalizes files before splitting lines."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def node_utf8(text: str) -> bytes:
    """``Buffer.from(text, "utf-8")``: lone surrogates become U+FFFD (3 bytes), as Node writes them."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return _LONE_SURROGATE.sub("\ufffd", text).encode("utf-8")


def utf8_len(text: str) -> int:
    """``Buffer.byteLength(text)``: the length of :func:`node_utf8` (a lone surrogate is 3 bytes)."""
    if text.isascii():
        return len(text)
    return len(text.encode("utf-8", "surrogatepass"))  # U+FFFD and a surrogate both take 3 bytes
