"""JavaScript semantics that Pi's rules depend on, reproduced in Python.

Pi is written in TypeScript, so every "character" count it makes is a UTF-16 code-unit count,
every sort is a UTF-16 code-unit sort, every trim uses ECMAScript's whitespace set and every
serialized value goes through ``JSON.stringify``. Python differs on each of these for some
inputs (astral characters, U+FEFF, numbers like ``1.0``), and a byte-exact reimplementation
needs the JavaScript answer. Everything that crosses that boundary goes through this module
so the rest of the code can say what it means (``js_len(description) > 1024``) and stay right.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from typing import Any

# ECMAScript WhiteSpace + LineTerminator code points (String.prototype.trim).
_JS_WHITESPACE = (
    "\u0009\u000a\u000b\u000c\u000d\u0020\u00a0\u1680"
    "\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000\ufeff"
)


def js_len(text: str) -> int:
    """``text.length`` in JavaScript: UTF-16 code units (an astral character counts 2)."""
    if text.isascii():
        return len(text)
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def utf8_len(text: str) -> int:
    """UTF-8 byte length as Node's ``Buffer.byteLength`` computes it (lone surrogates -> 3 bytes)."""
    return len(text.encode("utf-8", "surrogatepass"))


def js_slice_head(text: str, units: int) -> str:
    """The first ``units`` UTF-16 code units of ``text``, never splitting a surrogate pair.

    Pi 1.6.0 cuts one unit earlier when the cut would land inside a pair, so the result can be
    one unit shorter than asked.
    """
    if units <= 0:
        return ""
    if text.isascii():
        return text[:units]
    count = 0
    for index, ch in enumerate(text):
        width = 2 if ord(ch) > 0xFFFF else 1
        if count + width > units:
            return text[:index]
        count += width
    return text


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


def js_trim_end(text: str) -> str:
    return text.rstrip(_JS_WHITESPACE)


def js_number_to_string(value: float) -> str:
    """``Number.prototype.toString()`` for finite numbers (the form JSON.stringify writes)."""
    if value == 0:
        return "0"
    if not math.isfinite(value):
        return "null"
    if value == int(value) and abs(value) < 2**53:
        return str(int(value))
    # Shortest round-trip digits and exponent, then ECMAScript's layout rules.
    sign = "-" if value < 0 else ""
    mantissa, _, exponent = repr(abs(value)).partition("e")
    exp = int(exponent) if exponent else 0
    if "." in mantissa:
        int_part, frac_part = mantissa.split(".")
    else:
        int_part, frac_part = mantissa, ""
    digits = (int_part + frac_part).lstrip("0")
    leading_zeros = len(int_part + frac_part) - len((int_part + frac_part).lstrip("0"))
    point = len(int_part) + exp - leading_zeros  # decimal point position relative to digits
    digits = digits.rstrip("0") or "0"
    k = len(digits)
    n = point
    if k <= n <= 21:
        return sign + digits + "0" * (n - k)
    if 0 < n <= 21:
        return sign + digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return sign + "0." + "0" * (-n) + digits
    e = n - 1
    exp_text = f"e+{e}" if e >= 0 else f"e-{-e}"
    if k == 1:
        return sign + digits + exp_text
    return sign + digits[0] + "." + digits[1:] + exp_text


def _escape_string(text: str) -> str:
    # json.dumps handles quotes, backslashes and control characters exactly as JSON.stringify
    # does; lone surrogates must become \\udXXX escapes (well-formed JSON.stringify, ES2019).
    encoded = json.dumps(text, ensure_ascii=False)
    if any(0xD800 <= ord(ch) <= 0xDFFF for ch in encoded):
        encoded = "".join(f"\\u{ord(ch):04x}" if 0xD800 <= ord(ch) <= 0xDFFF else ch for ch in encoded)
    return encoded


def js_json_stringify(value: Any, indent: int | None = None) -> str:
    """``JSON.stringify(value[, null, indent])``: compact by default, JS number formatting.

    ``None`` values inside objects are written as ``null`` (Python has no ``undefined``; callers
    drop absent keys before serializing).
    """
    parts: list[str] = []
    _stringify(value, parts, indent, 0)
    return "".join(parts)


def _stringify(value: Any, out: list[str], indent: int | None, depth: int) -> None:
    if value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, str):
        out.append(_escape_string(value))
    elif isinstance(value, int):
        out.append(str(value))
    elif isinstance(value, float):
        out.append(js_number_to_string(value))
    elif isinstance(value, Mapping):
        if not value:
            out.append("{}")
            return
        out.append("{")
        first = True
        for key, item in value.items():
            if not first:
                out.append(",")
            first = False
            if indent:
                out.append("\n" + " " * (indent * (depth + 1)))
            out.append(_escape_string(str(key)))
            out.append(": " if indent else ":")
            _stringify(item, out, indent, depth + 1)
        if indent:
            out.append("\n" + " " * (indent * depth))
        out.append("}")
    elif isinstance(value, (list, tuple)):
        if not value:
            out.append("[]")
            return
        out.append("[")
        for index, item in enumerate(value):
            if index:
                out.append(",")
            if indent:
                out.append("\n" + " " * (indent * (depth + 1)))
            _stringify(item, out, indent, depth + 1)
        if indent:
            out.append("\n" + " " * (indent * depth))
        out.append("]")
    else:
        raise TypeError(f"cannot serialize {type(value).__name__} as JSON")


def strip_bom(text: str) -> str:
    """Remove one leading U+FEFF, as Pi's ``stripBom`` does."""
    return text[1:] if text.startswith("\ufeff") else text


def normalize_newlines(text: str) -> str:
    """``\\r\\n`` and lone ``\\r`` become ``\\n``."""
    return text.replace("\r\n", "\n").replace("\r", "\n")
