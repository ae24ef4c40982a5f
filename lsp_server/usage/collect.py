"""One usage run: find the sessions, read what changed, decide who counts each request, sum.

The CLI (``pi-context usage``) and the server (``pi/usage``) both call :func:`collect`; the CLI's cache
lives on disk, the server's in memory for as long as it runs (and on disk too, the same file).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass

from lsp_server.base.gcpause import collector_paused
from lsp_server.cost.ledger import PricesFor
from lsp_server.usage.cache import UsageCache
from lsp_server.usage.discover import discover_sessions
from lsp_server.usage.lineage import Attribution, attribute
from lsp_server.usage.reading import FileRead
from lsp_server.usage.report import Calendar, GroupBy, UsageReport, build_report


@dataclass(frozen=True)
class UsageQuery:
    """What to count and how to group it."""

    roots: tuple[str, ...]  # folders (or files) to read, absolute
    by: GroupBy = "day"
    since: dt.date | None = None
    until: dt.date | None = None
    timezone: str | None = None  # an IANA zone; None: the machine's


@dataclass(frozen=True)
class UsageRun:
    """A run's report, with what it read and who counts what (for the exporters)."""

    report: UsageReport
    reads: Mapping[str, FileRead]
    attribution: Attribution


def collect(query: UsageQuery, cache: UsageCache, prices_for: PricesFor, *, save: bool = True) -> UsageRun:
    """Read every session under ``query.roots`` through ``cache`` and build the report."""
    found = discover_sessions(list(query.roots))
    reads, stats = cache.scan(found.files)

    def read_outside(path: str) -> FileRead:
        return cache.get(path, stats)

    with collector_paused():  # the keys, buckets and groups of 200,000 requests hold no cycles
        attribution = attribute(reads, read_outside)
        report = build_report(
            reads,
            attribution,
            prices_for,
            by=query.by,
            calendar=Calendar(query.timezone),
            since=query.since,
            until=query.until,
            scan=stats,
            notes=[*found.notes, *cache.notes],
        )
    if save:
        cache.save()
    return UsageRun(report, reads, attribution)
