"""JavaScript object key order: array-index keys first, ascending, then the rest in insertion order.

A JavaScript object lists its "array index" keys (``"0"``, ``"7"``, ``"4294967294"``) first, in
ascending numeric order, and every other string key afterwards in insertion order; ``JSON.parse``
and Pi's own section maps build ordinary objects, so ``{"b":1,"2":0,"1":0}`` enumerates
``1, 2, b`` and a section named ``"2"`` is rendered before ``"preamble"``. Python dicts keep pure
insertion order; these helpers reorder where Pi's answer depends on it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, TypeVar

V = TypeVar("V")

_MAX_ARRAY_INDEX = 2**32 - 2


def is_array_index(key: str) -> bool:
    """True for canonical decimal strings of 0 .. 2**32-2 (``"01"`` and ``"1.0"`` are not)."""
    if not key or not key.isascii() or not key.isdigit():
        return False
    if len(key) > 1 and key[0] == "0":
        return False
    return int(key) <= _MAX_ARRAY_INDEX


def js_key_order(keys: Iterable[str]) -> list[str]:
    """``Object.keys`` order for an object whose keys were inserted in the given order."""
    ordered = list(keys)
    indices = sorted((k for k in ordered if is_array_index(k)), key=int)
    if not indices:
        return ordered
    return indices + [k for k in ordered if not is_array_index(k)]


def js_object(mapping: Mapping[str, V]) -> dict[str, V]:
    """A copy of ``mapping`` whose iteration order is the one JavaScript would give it."""
    return {key: mapping[key] for key in js_key_order(mapping)}


def js_ordered(value: Any) -> Any:
    """A deep copy of parsed JSON with every object's keys in JavaScript enumeration order."""
    if isinstance(value, dict):
        return {key: js_ordered(value[key]) for key in js_key_order(value)}
    if isinstance(value, list):
        return [js_ordered(item) for item in value]
    return value
