"""Usage grouped by day, week, month, project, model or session, with totals, as ``pi-context usage`` shows it.

Each counted request (:mod:`.lineage`) is priced as the turn ledger prices it: the cost Pi recorded,
else the model's prices applied with pi-ai's ``calculateCost`` (:func:`~lsp_server.cost.prices.calculate_cost`,
models.json then Pi's catalog), else unknown (counted apart in ``unknownCost``, never guessed). So
for sessions that share nothing the totals are the sum of each session's ledger (``sessionTotals``:
every request of the file, all branches). ``turns`` counts assistant replies; ``requests`` every paid
request (replies, Pi's cache-warming requests, the summary calls of compactions and branch summaries).

Time groups use the request's start (the reply's ``timestamp``, as the ledger) in one time zone (the
machine's, or ``--timezone``); ``since``/``until`` are inclusive days in that zone. A request without
a time is left out when a range is asked for, and grouped under ``unknown`` otherwise.
"""

from __future__ import annotations

import datetime as dt
import os
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, get_args
from zoneinfo import ZoneInfo

from lsp_server.cost.ledger import CostSource, PricesFor
from lsp_server.cost.prices import UsageCounts, calculate_cost
from lsp_server.usage.cache import ScanStats
from lsp_server.usage.lineage import Attribution
from lsp_server.usage.reading import FileRead
from lsp_server.usage.records import SessionHead, UsageRecord

GroupBy = Literal["day", "week", "month", "project", "model", "session"]
GROUPINGS: tuple[GroupBy, ...] = get_args(GroupBy)
TIME_GROUPS: frozenset[str] = frozenset({"day", "week", "month"})
UNKNOWN = "unknown"
_QUARTER_HOUR_MS = 15 * 60 * 1000  # every UTC offset in use is a multiple of 15 minutes


def _int_or_float(value: float) -> int | float:
    return int(value) if float(value).is_integer() else value


class Calendar:
    """Local days of instants in one time zone (``None``: the machine's), computed once per quarter hour."""

    def __init__(self, zone: str | None = None) -> None:
        self.zone = ZoneInfo(zone) if zone else None
        self.name = zone or (time.tzname[0] if time.tzname else "local")
        self._days: dict[int, dt.date] = {}

    def date(self, ms: int) -> dt.date:
        bucket = ms // _QUARTER_HOUR_MS
        day = self._days.get(bucket)
        if day is None:
            seconds = ms / 1000
            if self.zone is not None:
                day = dt.datetime.fromtimestamp(seconds, self.zone).date()
            else:
                local = time.localtime(seconds)
                day = dt.date(local.tm_year, local.tm_mon, local.tm_mday)
            self._days[bucket] = day
        return day


def parse_day(text: str) -> dt.date:
    """``2025-11-20`` or ``20251120`` (ccusage's spelling); ValueError otherwise."""
    digits = text.replace("-", "")
    if len(digits) != 8 or not digits.isdigit():
        raise ValueError(f"not a day (YYYY-MM-DD): {text!r}")
    return dt.date(int(digits[:4]), int(digits[4:6]), int(digits[6:]))


@dataclass
class UsageTotals:
    """Sums over requests; ``cost`` adds the known costs, ``unknown_cost`` counts the requests without one."""

    requests: int = 0
    turns: int = 0
    input: float = 0
    output: float = 0
    cache_read: float = 0
    cache_write: float = 0
    cost: float = 0.0
    unknown_cost: int = 0
    sessions: set[str] = field(default_factory=set)

    def merge(self, bucket: list[float], session: str) -> None:
        """Add a bucket of sums: requests, turns, input, output, cache read, cache write, cost, unknown costs."""
        self.requests += int(bucket[0])
        self.turns += int(bucket[1])
        self.input += bucket[2]
        self.output += bucket[3]
        self.cache_read += bucket[4]
        self.cache_write += bucket[5]
        self.cost += bucket[6]
        self.unknown_cost += int(bucket[7])
        self.sessions.add(session)

    @property
    def cache_share(self) -> float | None:
        """The share of the prompt tokens read from the cache (``cacheRead / (input + cacheRead + cacheWrite)``)."""
        prompt = self.input + self.cache_read + self.cache_write
        return self.cache_read / prompt if prompt > 0 else None

    def to_json(self) -> dict[str, Any]:
        return {
            "sessions": len(self.sessions),
            "turns": self.turns,
            "requests": self.requests,
            "input": _int_or_float(self.input),
            "output": _int_or_float(self.output),
            "cacheRead": _int_or_float(self.cache_read),
            "cacheWrite": _int_or_float(self.cache_write),
            "cost": self.cost,
            "unknownCost": self.unknown_cost,
            "cacheShare": self.cache_share,
        }


@dataclass(frozen=True)
class SessionUsage:
    """One session's counted requests, and what it holds that another session counts."""

    path: str
    head: SessionHead
    totals: UsageTotals
    shared: int  # requests copied from a parent (counted there)
    problems: int

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "id": self.head.id,
            "cwd": self.head.cwd,
            "parentSession": self.head.parent,
            "sharedRequests": self.shared,
            "problems": self.problems,
            **self.totals.to_json(),
        }


@dataclass
class UsageReport:
    by: GroupBy
    timezone: str
    totals: UsageTotals
    groups: list[tuple[str, UsageTotals]]
    sessions: list[SessionUsage]
    skipped: list[tuple[str, str]]  # (path, why): files that are not sessions or could not be read
    notes: list[str]
    scan: ScanStats
    since: str | None = None
    until: str | None = None
    days: list[tuple[str, UsageTotals]] = field(default_factory=list)  # per day whatever ``by`` is (for charts)

    def to_json(self) -> dict[str, Any]:
        return {
            "by": self.by,
            "timeZone": self.timezone,
            "since": self.since,
            "until": self.until,
            "totals": self.totals.to_json(),
            "groups": [{"key": key, **totals.to_json()} for key, totals in self.groups],
            "sessions": [session.to_json() for session in self.sessions],
            "skipped": [{"path": path, "reason": reason} for path, reason in self.skipped],
            "notes": list(self.notes),
            "scan": self.scan.to_json(),
        }


class Pricer:
    """The cost of a record: Pi's recorded cost, else the model's prices, else ``None``; prices looked up once."""

    def __init__(self, prices_for: PricesFor) -> None:
        self.prices_for = prices_for

    def cost(self, record: UsageRecord) -> float | None:
        return self.price(record)[0]

    def price(self, record: UsageRecord) -> tuple[float | None, CostSource]:
        """The cost and where it came from (the ledger's ``costSource``)."""
        if record.recorded_cost is not None:
            return record.recorded_cost, "recorded"
        prices = self.prices_for(record.provider, record.model)
        if prices.rates is None:
            return None, "unknown"
        counts = UsageCounts(record.input, record.output, record.cache_read, record.cache_write, record.cache_write_1h)
        return calculate_cost(prices.rates, prices.tiers, counts).total, "computed"


def in_range(record: UsageRecord, calendar: Calendar, since: dt.date | None, until: dt.date | None) -> bool:
    """The record's day (its start, in the calendar's zone) is within ``since``..``until`` (inclusive)."""
    if since is None and until is None:
        return True
    if record.time_ms is None:
        return False
    day = calendar.date(record.time_ms)
    return (since is None or day >= since) and (until is None or day <= until)


def model_key(record: UsageRecord) -> str:
    """``provider/model`` as the ledger's ``byModel`` names it (``unknown`` for a summary call)."""
    if record.provider:
        return f"{record.provider}/{record.model}"
    return record.model or UNKNOWN


def project_key(path: str, head: SessionHead) -> str:
    """The folder Pi ran in (the header's ``cwd``), else the session file's folder name."""
    return head.cwd or os.path.basename(os.path.dirname(path)) or UNKNOWN


def build_report(
    reads: Mapping[str, FileRead],
    attribution: Attribution,
    prices_for: PricesFor,
    *,
    by: GroupBy = "day",
    calendar: Calendar | None = None,
    since: dt.date | None = None,
    until: dt.date | None = None,
    scan: ScanStats | None = None,
    notes: Iterable[str] = (),
) -> UsageReport:
    """Sum the counted requests of every session in ``reads``, grouped ``by``.

    Each session's requests are first summed per (group, day) bucket, then the buckets are added to the
    session, the totals, the groups and the days: a few buckets per session instead of four additions
    per request (200,000 requests in a second run).
    """
    calendar = calendar if calendar is not None else Calendar()
    pricer = Pricer(prices_for)
    totals = UsageTotals()
    groups: dict[str, UsageTotals] = {}
    days: dict[str, UsageTotals] = {}
    sessions: list[SessionUsage] = []
    skipped: list[tuple[str, str]] = []
    ranged = since is not None or until is not None
    keys = _Keys(calendar)
    for path in sorted(reads):  # one order whatever the input's, so the float sums are the same every run
        read = reads[path]
        if read.head is None:
            skipped.append((path, read.error or "not a session"))
            continue
        project = project_key(path, read.head)
        buckets: dict[tuple[str, str], list[float]] = {}
        for record in attribution.counted.get(path, ()):
            if ranged and not in_range(record, calendar, since, until):
                continue
            day = keys.day(record.time_ms)
            if by == "day":
                key = day
            elif by in TIME_GROUPS:
                key = keys.week(day) if by == "week" else keys.month(day)
            elif by == "project":
                key = project
            elif by == "model":
                key = model_key(record)
            else:
                key = path
            bucket = buckets.get((key, day))
            if bucket is None:
                bucket = buckets[(key, day)] = [0, 0, 0, 0, 0, 0, 0.0, 0]
            cost = pricer.cost(record)
            bucket[0] += 1
            if record.kind == "turn":
                bucket[1] += 1
            bucket[2] += record.input
            bucket[3] += record.output
            bucket[4] += record.cache_read
            bucket[5] += record.cache_write
            if cost is None:
                bucket[7] += 1
            else:
                bucket[6] += cost
        session_totals = UsageTotals()
        for (key, day), bucket in buckets.items():
            session_totals.merge(bucket, path)
            totals.merge(bucket, path)
            group = groups.get(key)
            if group is None:
                group = groups[key] = UsageTotals()
            group.merge(bucket, path)
            day_totals = days.get(day)
            if day_totals is None:
                day_totals = days[day] = UsageTotals()
            day_totals.merge(bucket, path)
        if session_totals.requests or not ranged:
            sessions.append(
                SessionUsage(path, read.head, session_totals, attribution.shared.get(path, 0), read.problems)
            )
    if by in TIME_GROUPS or by == "session":
        ordered = sorted(groups.items(), key=lambda item: (item[0] == UNKNOWN, item[0]))
    else:
        ordered = sorted(groups.items(), key=lambda item: (-item[1].cost, item[0]))
    return UsageReport(
        by,
        calendar.name,
        totals,
        ordered,
        sessions,
        skipped,
        [*notes, *attribution.notes],
        scan if scan is not None else ScanStats(),
        since.isoformat() if since is not None else None,
        until.isoformat() if until is not None else None,
        sorted(days.items(), key=lambda item: (item[0] == UNKNOWN, item[0])),
    )


class _Keys:
    """Day, ISO week and month keys, each computed once per quarter hour or day seen."""

    def __init__(self, calendar: Calendar) -> None:
        self.calendar = calendar
        self._days: dict[int, str] = {}
        self._weeks: dict[str, str] = {}

    def day(self, ms: int | None) -> str:
        if ms is None:
            return UNKNOWN
        bucket = ms // _QUARTER_HOUR_MS
        text = self._days.get(bucket)
        if text is None:
            text = self._days[bucket] = self.calendar.date(ms).isoformat()
        return text

    def week(self, day: str) -> str:
        if day == UNKNOWN:
            return UNKNOWN
        week = self._weeks.get(day)
        if week is None:
            year, number, _ = dt.date.fromisoformat(day).isocalendar()
            week = self._weeks[day] = f"{year:04d}-W{number:02d}"
        return week

    @staticmethod
    def month(day: str) -> str:
        return day if day == UNKNOWN else day[:7]
