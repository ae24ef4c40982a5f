"""``new Date(value).getTime()`` for the values Pi turns into times (entry and session timestamps).

Pi orders sessions and entries by ``new Date(timestamp)``; V8 accepts ECMAScript's ISO
forms plus a few leniencies and gives ``NaN`` for anything else. A hand-edited timestamp must
give the same time (or the same Invalid Date) here as in Pi.
"""

from __future__ import annotations

import math
import re
from datetime import UTC, datetime
from typing import Any

from lsp_server.js.values import UNDEFINED

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


def _days_from_civil(year: int, month: int, day: int) -> int:
    """Days from 1970-01-01 to a proleptic Gregorian date, for any year (Python's ``date`` stops at 9999)."""
    year -= month <= 2
    era = year // 400
    year_of_era = year - era * 400
    day_of_year = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    day_of_era = year_of_era * 365 + year_of_era // 4 - year_of_era // 100 + day_of_year
    return era * 146097 + day_of_era - 719468


def date_utc(
    year: int, month: int, day: int = 1, hour: int = 0, minute: int = 0, second: int = 0, ms: int = 0
) -> int | None:
    """``Date.UTC(year, month, ...)`` for integer arguments: fields out of range carry over (month 12 is
    January of the next year, day 0 the last day of the month before), years 0 to 99 mean 1900 to 1999.
    ``None`` stands for ``NaN`` (beyond the time value range)."""
    if 0 <= year <= 99:
        year += 1900
    year += month // 12
    days = _days_from_civil(year, month % 12 + 1, 1) + day - 1
    time = days * 86_400_000 + hour * 3_600_000 + minute * 60_000 + second * 1000 + ms
    return None if abs(time) > _MAX_TIME_MS else time


def iso_string(ms: int) -> str:
    """``Date.prototype.toISOString`` (and ``toJSON``) of a valid time value: six-digit signed years
    outside 0000-9999, as ECMAScript writes them."""
    days, rest = divmod(ms, 86_400_000)
    # civil_from_days (the inverse of _days_from_civil)
    shifted = days + 719468
    era = shifted // 146097
    day_of_era = shifted - era * 146097
    year_of_era = (day_of_era - day_of_era // 1460 + day_of_era // 36524 - day_of_era // 146096) // 365
    day_of_year = day_of_era - (365 * year_of_era + year_of_era // 4 - year_of_era // 100)
    mp = (5 * day_of_year + 2) // 153
    day = day_of_year - (153 * mp + 2) // 5 + 1
    month = mp + 3 if mp < 10 else mp - 9
    year = year_of_era + era * 400 + (month <= 2)
    hours, rest = divmod(rest, 3_600_000)
    minutes, rest = divmod(rest, 60_000)
    seconds, millis = divmod(rest, 1000)
    year_text = f"{year:04d}" if 0 <= year <= 9999 else f"{'+' if year > 0 else '-'}{abs(year):06d}"
    return f"{year_text}-{month:02d}-{day:02d}T{hours:02d}:{minutes:02d}:{seconds:02d}.{millis:03d}Z"
