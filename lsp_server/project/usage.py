"""Usage across sessions for the language server: one cache for the server's life, answers as protocol models.

``pi/usage`` is :func:`lsp_server.usage.collect.collect` over the asked folders (default: the
``sessions/`` folder of every workspace folder's agent dir), with the project's prices, through one
:class:`~lsp_server.usage.cache.UsageCache` kept by :class:`UsageStore` (loaded from the same file as the
CLI's, saved after each run), so the Usage view's second look reads only what Pi appended since.
Runs are one at a time (the cache is not shared between threads).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping, Sequence

from lsp_server import protocol
from lsp_server.cost.ledger import PricesFor
from lsp_server.project.project import Project
from lsp_server.session.bounds import SessionReadLimits
from lsp_server.session.folders import SESSIONS_FOLDER
from lsp_server.usage.cache import UsageCache, default_cache_path
from lsp_server.usage.collect import UsageQuery, collect
from lsp_server.usage.report import GroupBy, UsageReport, UsageTotals, parse_day


class UsageStore:
    """The server's usage cache, loaded on first use from the CLI's cache file."""

    def __init__(self, env: Mapping[str, str], limits: SessionReadLimits, *, cache_path: str | None = None) -> None:
        self._lock = threading.Lock()
        self._cache = UsageCache(cache_path if cache_path is not None else default_cache_path(env), limits)
        self._loaded = False

    def report(self, query: UsageQuery, prices_for: PricesFor, limits: SessionReadLimits) -> UsageReport:
        with self._lock:
            if self._cache.limits != limits:  # piContext.limits changed: the records were read under others
                self._cache = UsageCache(self._cache.path, limits)
                self._loaded = False
            if not self._loaded:
                self._cache.load()
                self._loaded = True
            return collect(query, self._cache, prices_for).report


def default_roots(projects: Sequence[Project]) -> tuple[str, ...]:
    """Where Pi keeps the sessions of these projects: each agent dir's ``sessions/``, and a session folder
    moved by ``$PI_CODING_AGENT_SESSION_DIR`` or ``sessionDir`` (Pi's own choice, :meth:`Project.session_dir`);
    each folder once."""
    roots: list[str] = []
    for project in projects:
        roots.append(os.path.join(project.agent_dir, SESSIONS_FOLDER))
        choice = project.session_dir()
        if choice.source != "default":
            roots.append(choice.path)
    return tuple(dict.fromkeys(roots))


def usage_query(params: protocol.UsageParams, roots: tuple[str, ...]) -> UsageQuery | str:
    """The query the params describe, or the message of an invalid parameter."""
    try:
        since = parse_day(params.since) if params.since else None
        until = parse_day(params.until) if params.until else None
    except ValueError as exc:
        return f"since/until: {exc}"
    if since is not None and until is not None and since > until:
        return f"since {since} is after until {until}"
    if params.time_zone:
        from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

        try:
            ZoneInfo(params.time_zone)
        except (ZoneInfoNotFoundError, ValueError):
            return f"unknown time zone {params.time_zone!r}"
    by: GroupBy = params.by
    return UsageQuery(roots, by, since, until, params.time_zone)


def _totals(totals: UsageTotals) -> dict[str, object]:
    return totals.to_json()


def usage_result(report: UsageReport, roots: tuple[str, ...]) -> protocol.UsageResult:
    """``pi/usage``'s answer: the report as ``pi-context usage --json`` prints it, plus the days."""
    data = report.to_json()
    data["roots"] = list(roots)
    data["days"] = [{"key": key, **_totals(totals)} for key, totals in report.days]
    return protocol.UsageResult.model_validate(data)
