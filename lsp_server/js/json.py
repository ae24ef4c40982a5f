"""``JSON.stringify`` as Pi calls it: compact or indented, JavaScript number forms, well-formed escapes.

Pi measures and writes serialized values (tool-call arguments in summaries, token estimates of
tool results, session lines), so the text must be byte-identical to V8's: ``1.0`` is ``1``,
``1e21`` is ``1e+21``, a lone surrogate is written as a ``\\udXXX`` escape (ES2019), and keys are
written in the mapping's order (callers restore JavaScript's order with
:func:`lsp_server.js.objects.js_ordered` where it matters).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final

from lsp_server.js.numbers import js_json_integer, js_number_to_string


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


# ``JSON.parse``'s reading of a number: integers past 2^53 lose precision as a double does (a 400-digit one is
# Infinity, not an exact int that breaks float arithmetic later), and ``NaN``/``Infinity`` are not JSON.
JS_JSON: Final = json.JSONDecoder(parse_int=js_json_integer, parse_constant=_reject_constant)


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
