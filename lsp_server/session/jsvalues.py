"""JavaScript value semantics for session data: absent keys, truthiness, ``String()``, ``Date``.

Pi reads session files without validating them and works on the parsed JSON with plain property
access, so its answers depend on JavaScript rules that Python does not share: a missing key is
``undefined`` and differs from ``null``; ``if (x)`` is false for ``0``, ``""`` and ``NaN`` but
true for ``[]``; a template literal turns ``1.0`` into ``"1"``; ``new Date(text).getTime()``
accepts only certain ISO forms; object keys that look like array indices are enumerated first.
The session, message and compaction modules read entries through these helpers so the same
hand-edited file gives the same result here as in Pi, and never an exception.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any, Final

from lsp_server.jscompat import js_number_to_string
from lsp_server.prompt.jsobject import js_key_order


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


def js_get(obj: Any, key: str) -> Any:
    """``obj[key]`` for parsed JSON: :data:`UNDEFINED` when ``obj`` is not an object or lacks ``key``."""
    if isinstance(obj, dict):
        return obj.get(key, UNDEFINED)
    return UNDEFINED


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
    """``String(value)`` / a template literal: ``1.0`` -> ``"1"``, ``null`` -> ``"null"``, arrays joined."""
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
    if isinstance(value, list):
        return ",".join(js_join_part(item) for item in value)
    return "[object Object]"


def js_join_part(value: Any) -> str:
    """How ``Array.prototype.join`` writes one element: null and undefined become ""."""
    if is_nullish(value):
        return ""
    return js_to_string(value)


def js_object_keys(obj: Mapping[str, Any]) -> list[str]:
    """``Object.keys`` order: integer-like keys ascending first, then the others in insertion order.

    ``JSON.parse`` builds ordinary objects, so ``{"b":1,"2":0,"1":0}`` enumerates ``1, 2, b``.
    """
    return js_key_order(obj.keys())


def js_ordered(value: Any) -> Any:
    """A deep copy of parsed JSON with every object's keys in JavaScript enumeration order."""
    if isinstance(value, dict):
        return {key: js_ordered(value[key]) for key in js_object_keys(value)}
    if isinstance(value, list):
        return [js_ordered(item) for item in value]
    return value


def utf16_units(text: str) -> bytes:
    """``text`` as UTF-16-LE code units (lone surrogates kept), for index arithmetic in JS units."""
    return text.encode("utf-16-le", "surrogatepass")


def js_slice(text: str, start: int, end: int | None = None) -> str:
    """``text.slice(start, end)`` in UTF-16 units; may split a surrogate pair exactly like JS does."""
    if text.isascii():
        return text[start:end]
    units = utf16_units(text)
    count = len(units) // 2
    lo = max(0, count + start) if start < 0 else min(start, count)
    hi = count if end is None else max(0, count + end) if end < 0 else min(end, count)
    if hi <= lo:
        return ""
    return units[lo * 2 : hi * 2].decode("utf-16-le", "surrogatepass")


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def node_utf8(text: str) -> bytes:
    """``Buffer.from(text, "utf-8")``: lone surrogates become U+FFFD (3 bytes), as Node writes them."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return _LONE_SURROGATE.sub("\ufffd", text).encode("utf-8")


# ECMAScript's Date Time String Format, with the leniencies V8's fallback parser adds that show up
# in hand-written files: a space or lower-case "t" between date and time, lower-case "z", "+hhmm".
_ISO_DATE = re.compile(
    r"(?P<year>[+-]\d{6}|\d{4})(?:-(?P<month>\d{2})(?:-(?P<day>\d{2}))?)?"
    r"(?:[Tt ](?P<hour>\d{2}):(?P<minute>\d{2})(?::(?P<second>\d{2})(?:\.(?P<fraction>\d+))?)?"
    r"(?P<zone>[Zz]|[+-]\d{2}:?\d{2})?)?"
)

_MAX_TIME_MS = 8.64e15
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def js_date_ms(value: Any) -> int | None:
    """``new Date(value).getTime()``; ``None`` stands for ``NaN`` (an Invalid Date, JSON ``null``).

    Strings in ECMAScript's ISO format are parsed as V8 parses them: date-only forms are UTC,
    date-time forms without an offset are local time, a day past the month's end rolls over
    (``2025-02-30`` is 2 March). Free-form spellings V8 would guess at (``"Jan 1 2025"``) are not
    guessed and give ``None``. Numbers are a time value, ``null`` is 0.
    """
    if value is None:
        return 0
    if value is UNDEFINED:
        return None
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, (int, float)):
        if isinstance(value, float) and (math.isnan(value) or math.isinf(value)):
            return None
        if abs(value) > _MAX_TIME_MS:
            return None
        return int(value)  # TimeClip truncates towards zero
    if not isinstance(value, str):
        return None
    match = _ISO_DATE.fullmatch(value)
    if match is None:
        return None
    parts = match.groupdict()
    year = int(parts["year"])
    month = int(parts["month"] or 1)
    day = int(parts["day"] or 1)
    hour = int(parts["hour"] or 0)
    minute = int(parts["minute"] or 0)
    second = int(parts["second"] or 0)
    millis = int((parts["fraction"] or "0")[:3].ljust(3, "0"))
    if parts["year"] == "-000000" or not (1 <= month <= 12 and 1 <= day <= 31 and minute <= 59 and second <= 59):
        return None
    if hour > 24 or (hour == 24 and (minute or second or millis)):
        return None
    if not 1 <= year <= 9999:
        return None  # valid in JavaScript, but never in a session file; not worth the calendar code
    days = (datetime(year, month, 1, tzinfo=UTC) - _EPOCH).days + day - 1
    ms = ((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + millis
    zone = parts["zone"]
    if zone is None and parts["hour"] is not None:
        # Local time: the platform's offset in force at that wall-clock time.
        naive = datetime.fromtimestamp(ms / 1000, tz=UTC).replace(tzinfo=None)
        offset = naive.astimezone().utcoffset()
        ms -= int(offset.total_seconds() * 1000) if offset is not None else 0
    elif zone is not None and zone not in ("Z", "z"):
        sign = 1 if zone[0] == "+" else -1
        digits = zone[1:].replace(":", "")
        zone_hours, zone_minutes = int(digits[:2]), int(digits[2:])
        if zone_hours > 23 or zone_minutes > 59:
            return None
        ms -= sign * (zone_hours * 60 + zone_minutes) * 60_000
    if abs(ms) > _MAX_TIME_MS:
        return None
    return ms
