"""``pi-context usage``: what every Pi session cost, grouped by day, week, month, project, model or session.

Reads every session under the agent dir's ``sessions/`` (or the folders and files given), counts each
paid request once (a fork or clone repeats its parent's, :mod:`lsp_server.usage.lineage`), prices it
as the turn ledger does, and prints a table or ``--json``. A second run reads only what changed
(the cache, :mod:`lsp_server.usage.cache`). ``--otlp`` sends each request once to an OpenTelemetry
collector (``--watch`` keeps following the folders), ``--parquet`` / ``--duckdb`` write the requests
for DuckDB. docs/usage.md.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any, TextIO

from lsp_server.cli._project import add_project_arguments, project_inputs, session_limits, settings_from_args
from lsp_server.cli._session_text import table
from lsp_server.context.paths import resolve_path
from lsp_server.project.project import Project, open_project
from lsp_server.session.locate import SESSIONS_FOLDER
from lsp_server.truncate import format_size
from lsp_server.usage.cache import UsageCache, default_cache_path
from lsp_server.usage.collect import UsageQuery, UsageRun, collect
from lsp_server.usage.report import GROUPINGS, UsageReport, UsageTotals, parse_day


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "usage",
        help="usage and cost across every Pi session, grouped by day, week, month, project, model or session",
        description="Sum the usage and cost of every Pi session under the agent dir's sessions/ folder (or the "
        "folders and files given), each request counted once even when a fork or clone repeats it, grouped "
        "--by day, week, month, project, model or session. --otlp sends one OpenTelemetry span per request; "
        "--parquet/--duckdb write one row per request.",
    )
    parser.add_argument(
        "paths", nargs="*", metavar="DIR", help="session folders or files (default: <agent dir>/sessions)"
    )
    parser.add_argument("--by", choices=GROUPINGS, default="day", help="how to group the requests (default: day)")
    parser.add_argument("--since", default=None, metavar="DAY", help="first day counted (YYYY-MM-DD or YYYYMMDD)")
    parser.add_argument("--until", default=None, metavar="DAY", help="last day counted (YYYY-MM-DD or YYYYMMDD)")
    parser.add_argument(
        "--timezone", default=None, metavar="ZONE", help="IANA time zone for days (default: this machine's)"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object: totals, groups, sessions")
    cache = parser.add_mutually_exclusive_group()
    cache.add_argument(
        "--cache",
        default=None,
        metavar="FILE",
        help="the records of the last run (default: $XDG_CACHE_HOME/pi-context/usage-v1.json)",
    )
    cache.add_argument("--no-cache", action="store_true", help="read every session whole and keep nothing")
    add_project_arguments(
        parser,
        cwd_help="folder a relative --agent-dir resolves against (default: this one)",
        counting=False,
        sessions=True,
    )
    parser.set_defaults(func=_run)


def _fail(message: str) -> int:
    sys.stderr.write(f"pi-context: {message}\n")
    return 1


def query_from_args(args: argparse.Namespace, project: Project) -> UsageQuery | str:
    """The query the flags describe, or the error to print."""
    try:
        since = parse_day(args.since) if args.since else None
        until = parse_day(args.until) if args.until else None
    except ValueError as exc:
        return f"--since/--until: {exc}"
    if since is not None and until is not None and since > until:
        return f"--since {since} is after --until {until}"
    if args.timezone:
        from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

        try:
            ZoneInfo(args.timezone)
        except (ZoneInfoNotFoundError, ValueError):
            return f"--timezone: unknown time zone {args.timezone!r}"
    roots = tuple(resolve_path(path) for path in args.paths) or (os.path.join(project.agent_dir, SESSIONS_FOLDER),)
    return UsageQuery(roots, args.by, since, until, args.timezone)


def cache_from_args(args: argparse.Namespace, project: Project) -> UsageCache:
    limits = session_limits(project.settings)
    if args.no_cache:
        return UsageCache(None, limits)
    path = resolve_path(args.cache) if args.cache else default_cache_path(project.env)
    cache = UsageCache(path, limits)
    cache.load()
    return cache


def _run(args: argparse.Namespace) -> int:
    project = open_project(project_inputs(args, args.cwd or os.getcwd(), settings_from_args(args)))
    query = query_from_args(args, project)
    if isinstance(query, str):
        return _fail(query)
    cache = cache_from_args(args, project)
    run = collect(query, cache, project.prices.prices_for)
    return _print(args, query, run)


def _print(args: argparse.Namespace, query: UsageQuery, run: UsageRun) -> int:
    report = run.report
    if args.json:
        sys.stdout.write(json.dumps({"roots": list(query.roots), **report.to_json()}, ensure_ascii=False, indent=2))
        sys.stdout.write("\n")
    else:
        print_report(sys.stdout, report, query.roots)
    return 0


# --- text ---------------------------------------------------------------------------------------


def _n(value: float) -> str:
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.2f}"


def _cost(totals: UsageTotals) -> str:
    text = f"${totals.cost:,.4f}"
    if totals.unknown_cost:
        text += f" + {totals.unknown_cost:,} unknown"
    return text


def _share(totals: UsageTotals) -> str:
    share = totals.cache_share
    return "-" if share is None else f"{share * 100:.1f}%"


def _row(key: str, totals: UsageTotals) -> list[str]:
    return [
        key,
        _n(len(totals.sessions)),
        _n(totals.turns),
        _n(totals.requests),
        _n(totals.input),
        _n(totals.output),
        _n(totals.cache_read),
        _n(totals.cache_write),
        _share(totals),
        _cost(totals),
    ]


def print_report(out: TextIO, report: UsageReport, roots: tuple[str, ...] | list[str]) -> None:
    """The report as a table for people: one row per group, then the totals and what was read."""
    where = ", ".join(roots)
    span = ""
    if report.since or report.until:
        span = f" · {report.since or '…'} to {report.until or '…'}"
    out.write(f"Usage by {report.by} · {where} · time zone {report.timezone}{span}\n")
    if not report.totals.requests:
        out.write("  no paid requests\n")
    else:
        rows = [
            [
                report.by,
                "sessions",
                "turns",
                "requests",
                "input",
                "output",
                "cache read",
                "cache write",
                "cached",
                "cost",
            ]
        ]
        rows += [_row(key, totals) for key, totals in report.groups]
        rows.append(_row("total", report.totals))
        for line in table(rows, "<>>>>>>>>>"):
            out.write(f"  {line}\n")
    shared = sum(session.shared for session in report.sessions)
    forks = sum(1 for session in report.sessions if session.head.parent is not None)
    if forks or shared:
        out.write(
            f"  {forks:,} session{'s' if forks != 1 else ''} made by a fork or clone; "
            f"{shared:,} request{'s' if shared != 1 else ''} copied from a parent counted once, in the parent\n"
        )
    scan = report.scan
    out.write(
        f"  read {scan.files:,} file{'s' if scan.files != 1 else ''}: {scan.unchanged:,} unchanged since the last "
        f"run, {scan.appended:,} grown (read from where it stopped), {scan.loaded:,} read whole; "
        f"{format_size(scan.bytes_read)} read\n"
    )
    for path, reason in report.skipped:
        out.write(f"  skipped {path}: {reason}\n")
    for note in report.notes:
        out.write(f"  note: {note}\n")
