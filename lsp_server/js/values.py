"""JavaScript values as Pi's code sees parsed data: ``undefined``, property access, truthiness, ``String()``.

Pi reads session files and frontmatter without validating them and works on the parsed values
with plain property access, so its answers depend on rules Python does not share: a missing key
is ``undefined`` and differs from ``null``; ``if (x)`` is false for ``0``, ``""`` and ``NaN`` but
true for ``[]``; a template literal turns ``1.0`` into ``"1"`` and an array into its elements
joined by commas. Code that reads such data goes through these helpers, so the same hand-edited
file gives the same result here as in Pi, and never an exception.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

from lsp_server.js.numbers import js_number_to_string


class _Undefined:
    """JavaScript's ``undefined``: what reading an absent key gives (distinct from ``None``/null)."""

    _instance: _Undefined | None = None

    def __new__(cls) -> _Undefined:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "UNDEFINED"

    def __bool__(self) -> bool:
        return False


UNDEFINED: Final = _Undefined()


class JsArray(list[Any]):
    """A JavaScript array that was given named properties (``array.id = ...``) after parsing.

    Pi's v1 -> v2 session migration assigns ``id`` and ``parentId`` to every file entry, and an
    entry parsed from a line ``[1]`` is an array: the assignment succeeds, :func:`js_get` reads the
    properties back (so the array is a tree node with an id and a parent, as in Pi), and JSON never
    shows them (``JSON.stringify([1])`` is ``[1]`` whatever properties it has; so do ``json`` and
    orjson here, which write a list subclass as a list).
    """

    def __init__(self, items: Iterable[Any] = (), properties: Mapping[str, Any] | None = None) -> None:
        super().__init__(items)
        self.properties: dict[str, Any] = dict(properties or {})

    def __repr__(self) -> str:
        return f"JsArray({list(self)!r}, {self.properties!r})"


def js_get(obj: Any, key: str) -> Any:
    """``obj[key]`` for parsed JSON: :data:`UNDEFINED` when ``obj`` is not an object or lacks ``key``.

    An array has no keys of its own unless it is a :class:`JsArray` (properties Pi assigned to it).
    """
    if isinstance(obj, dict):
        return obj.get(key, UNDEFINED)
    if isinstance(obj, JsArray):
        return obj.properties.get(key, UNDEFINED)
    return UNDEFINED


def index_where(items: Sequence[Any], key: str, value: Any) -> int:
    """The first index whose ``js_get(item, key) == value``, or -1 (one loop, no call per plain object).

    A session path holds tens of thousands of entries: a generator calling :func:`js_get` for each
    cost a third of building its projection.
    """
    for index, item in enumerate(items):
        got = item.get(key, UNDEFINED) if item.__class__ is dict else js_get(item, key)
        if got == value:
            return index
    return -1


def is_nullish(value: Any) -> bool:
    """``value == null`` in JavaScript: ``null`` or ``undefined``."""
    return value is None or value is UNDEFINED


def js_truthy(value: Any) -> bool:
    """``Boolean(value)``: false for undefined, null, false, 0, NaN and ""; true for [] and {}."""
    if value is None or value is UNDEFINED or value is False:
        return False
    if isinstance(value, (int, float)):
        return not (value == 0 or (isinstance(value, float) and math.isnan(value)))
    if isinstance(value, str):
        return value != ""
    return True


def js_to_string(value: Any) -> str:
    """``String(value)`` / a template literal: ``1.0`` -> ``"1"``, ``null`` -> ``"null"``, arrays joined.

    Nested arrays are joined all the way down (``String([[1, [2]], 3])`` is ``"1,2,3"``) with an
    explicit stack, not recursion: a session line may nest arrays as deep as the JSON reader
    allows, far deeper than Python's call stack.
    """
    if not isinstance(value, list):
        return _primitive_to_string(value)
    stack: list[tuple[list[Any], int, list[str]]] = [(value, 0, [])]
    while True:
        items, index, parts = stack[-1]
        if index == len(items):
            stack.pop()
            joined = ",".join(parts)
            if not stack:
                return joined
            stack[-1][2].append(joined)
            continue
        stack[-1] = (items, index + 1, parts)
        item = items[index]
        if isinstance(item, list):
            stack.append((item, 0, []))
        else:
            parts.append("" if is_nullish(item) else _primitive_to_string(item))


def _primitive_to_string(value: Any) -> str:
    if isinstance(value, str):
        return value
    if value is UNDEFINED:
        return "undefined"
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        return js_number_to_string(value)
    return "[object Object]"


def js_join_part(value: Any) -> str:
    """How ``Array.prototype.join`` writes one element: null and undefined become ""."""
    if is_nullish(value):
        return ""
    return js_to_string(value)


def strict_equality_key(value: Any) -> tuple[Any, ...] | None:
    """A hashable stand-in that is equal for two primitives exactly when ``a === b`` holds.

    ``1`` and ``1.0`` are the same number, ``0`` and ``-0`` too, ``true`` is not ``1``, ``"1"`` is
    not ``1``. ``None`` for values equal to nothing but themselves: ``NaN``, and objects (arrays,
    dicts), which JavaScript compares by identity. Lets a duplicate check use a set instead of
    comparing every pair.
    """
    if value is None:
        return ("null",)
    if value is UNDEFINED:
        return ("undefined",)
    if isinstance(value, bool):
        return ("boolean", value)
    if isinstance(value, (int, float)):
        try:
            number = float(value)  # integers beyond a double's range are +-Infinity in JavaScript
        except OverflowError:
            number = math.inf if value > 0 else -math.inf
        return None if math.isnan(number) else ("number", number)
    if isinstance(value, str):
        return ("string", value)
    return None
