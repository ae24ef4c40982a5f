"""JavaScript object key order, for maps that Pi builds as plain objects.

A JavaScript object lists its "array index" keys (``"0"``, ``"7"``, ``"4294967294"``) first, in
ascending numeric order, and every other string key afterwards in insertion order. Pi keeps
section maps and section patches in plain objects, so a section named ``"2"`` in a transcript
patch is replayed and rendered before ``"preamble"``. Python dicts keep pure insertion order;
these helpers reorder where Pi's answer depends on it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TypeVar

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
