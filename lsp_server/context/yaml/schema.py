"""The YAML 1.2 core schema: the value of a scalar, as Pi's ``yaml`` package resolves it.

Pi parses frontmatter with ``yaml``'s ``parse()``, whose core schema differs from the YAML 1.1
habits of PyYAML and ruamel.yaml's constructors: ``yes``, ``on`` and ``y`` stay strings,
``2024-01-01`` is a string, ``1_000`` and ``0b11`` are strings, ``012`` is twelve and ``0o17``
fifteen, ``1.0`` is the number ``1``. An untagged plain scalar is tested against the schema's
patterns in ``yaml``'s order; a tagged one (``!!int "12"``) resolves with its tag, and a tag the
schema does not know leaves the string and a warning (``Unresolved tag``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any, NamedTuple

from lsp_server.js.buffers import buffer_from_base64
from lsp_server.js.dates import date_utc, iso_string
from lsp_server.js.numbers import js_number

TAG_PREFIX = "tag:yaml.org,2002:"

_NULL_RE = re.compile(r"(?:~|[Nn]ull|NULL)?")
_BOOL_RE = re.compile(r"(?:[Tt]rue|TRUE|[Ff]alse|FALSE)")
_INT_OCT_RE = re.compile(r"0o[0-7]+")
_INT_RE = re.compile(r"[-+]?[0-9]+")
_INT_HEX_RE = re.compile(r"0x[0-9a-fA-F]+")
_FLOAT_NAN_RE = re.compile(r"(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)")
_FLOAT_EXP_RE = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+")
_FLOAT_RE = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)")


def _parse_int(text: str, radix: int) -> int | float:
    return js_number(int(text, radix))


def _resolve_null(_: str) -> None:
    return None


def _resolve_bool(text: str) -> bool:
    return text[0] in "tT"


def _resolve_nan(text: str) -> float:
    if text[-3:].lower() == "nan":
        return math.nan
    return -math.inf if text[0] == "-" else math.inf


def _resolve_float(text: str) -> int | float:
    return js_number(float(text))


# (tag, test, resolve) in the order of yaml's core schema tag list.
_CORE_TESTS: tuple[tuple[str, re.Pattern[str], Callable[[str], Any]], ...] = (
    ("null", _NULL_RE, _resolve_null),
    ("bool", _BOOL_RE, _resolve_bool),
    ("int", _INT_OCT_RE, lambda s: _parse_int(s[2:], 8)),
    ("int", _INT_RE, lambda s: _parse_int(s, 10)),
    ("int", _INT_HEX_RE, lambda s: _parse_int(s[2:], 16)),
    ("float", _FLOAT_NAN_RE, _resolve_nan),
    ("float", _FLOAT_EXP_RE, _resolve_float),
    ("float", _FLOAT_RE, _resolve_float),
)


# Every core-schema pattern but the string's starts with one of these (or matches the empty text).
_MAY_RESOLVE = frozenset("~nNtTfF+-.0123456789")


def resolve_plain(text: str) -> Any:
    """The core-schema value of an untagged plain scalar (``yes`` stays a string)."""
    if text and text[0] not in _MAY_RESOLVE:
        return text  # no pattern can match: most keys and descriptions end here
    for _, pattern, resolver in _CORE_TESTS:
        if pattern.fullmatch(text):
            return resolver(text)
    return text


class Tagged(NamedTuple):
    """A tagged scalar's value; ``js_object`` for a Date or Buffer, ``unresolved`` for an unknown tag."""

    value: Any
    js_object: bool = False
    unresolved: bool = False
    failure: str | None = None  # the tag's own error (yaml's TAG_RESOLVE_FAILED), reported at the tag


def resolve_tagged(text: str, tag: str) -> Tagged:
    """A scalar with an explicit tag, as ``findScalarTagByName`` resolves it."""
    if tag == "!":
        return Tagged(text)
    short = tag[len(TAG_PREFIX) :] if tag.startswith(TAG_PREFIX) else None
    if short == "str":
        return Tagged(text)
    if short in ("null", "bool", "int", "float"):
        for name, pattern, resolver in _CORE_TESTS:
            if name == short and pattern.fullmatch(text):
                return Tagged(resolver(text))
    if short == "timestamp":
        stamp = _timestamp(text)
        if stamp is None:
            return Tagged(text, failure="!!timestamp expects a date, starting with yyyy-mm-dd")
        return Tagged(stamp, js_object=True)
    if short == "binary":
        return Tagged({"type": "Buffer", "data": list(buffer_from_base64(text))}, js_object=True)
    return Tagged(text, unresolved=True)


_TIMESTAMP_RE = re.compile(
    r"([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})"
    r"(?:(?:t|T|[ \t]+)([0-9]{1,2}):([0-9]{1,2}):([0-9]{1,2})(\.[0-9]+)?"
    r"(?:[ \t]*(Z|[-+][012]?[0-9](?::[0-9]{2})?))?)?"
)


def _timestamp(text: str) -> str | None:
    """``!!timestamp`` as the Date yaml builds (``Date.UTC`` of the fields, which carries over
    out-of-range ones: ``2020-13-45`` is 14 February 2021), serialized like ``Date.toJSON``;
    ``None`` when the text is no date (yaml's error)."""
    match = _TIMESTAMP_RE.fullmatch(text)
    if match is None:
        return None
    year, month, day, hour, minute, second, fraction, zone = match.groups()
    millis = int((fraction + "00")[1:4]) if fraction else 0  # yaml: the fraction's first three digits
    time = date_utc(int(year), int(month) - 1, int(day), int(hour or 0), int(minute or 0), int(second or 0), millis)
    assert time is not None, "four-digit years stay far inside the time value range"
    if zone and zone != "Z":
        # yaml reads the zone as sexagesimal minutes, and a value under 30 as hours ("+5", "+00:15")
        hours, _, minutes = zone[1:].partition(":")
        offset = int(hours) * 60 + int(minutes) if minutes else int(hours)
        offset = -offset if zone[0] == "-" else offset
        if abs(offset) < 30:
            offset *= 60
        time -= 60_000 * offset
    return iso_string(time)
