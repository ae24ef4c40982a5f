"""The errors Pi's JavaScript throws where our port must fail the same way, with V8's messages.

Pi's code runs as ES modules (strict mode): reading a property of ``null`` or ``undefined``, or
creating one on a number, string or boolean, throws a ``TypeError``. Where a Pi-compatible answer
depends on such a throw (a session line that is ``null``, a message whose ``content`` is ``null``),
the port raises :class:`JsTypeError` with the message V8 would give, so the conformance harness and
the front ends can say that Pi fails, and why.
"""

from __future__ import annotations

from typing import Any

from lsp_server.js.values import js_to_string


class JsTypeError(Exception):
    """A ``TypeError`` Pi would throw here; ``str()`` is V8's message (without ``TypeError:``)."""


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    return "string"


def cannot_read(value: Any, key: str) -> JsTypeError:
    """``value[key]`` on ``null`` (``None``) or ``undefined``."""
    shown = "null" if value is None else "undefined"
    return JsTypeError(f"Cannot read properties of {shown} (reading '{key}')")


def cannot_create(value: Any, key: str) -> JsTypeError:
    """``value[key] = ...`` on a number, string or boolean in strict mode."""
    return JsTypeError(f"Cannot create property '{key}' on {_kind(value)} '{js_to_string(value)}'")


def is_primitive(value: Any) -> bool:
    """A JSON value that is not an object or array (``null`` included)."""
    return not isinstance(value, (dict, list))
