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
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TextIO

from lsp_server.base.money import format_usd
from lsp_server.base.paths import resolve_path
from lsp_server.cli._project import add_project_arguments, project_inputs, session_limits, settings_from_args
from lsp_server.cli._session_text import table
from lsp_server.project.project import Project, open_project
from lsp_server.project.usage import default_roots
from lsp_server.truncate import format_size
from lsp_server.usage.cache import UsageCache, default_cache_path
from lsp_server.usage.collect import UsageQuery, UsageRun, collect
from lsp_server.usage.report import GROUPINGS, Calendar, UsageReport, UsageTotals, parse_day

if TYPE_CHECKING:
    from lsp_server.cost.ledger import PricesFor
    from lsp_server.usage.export import ExportResult


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
        "paths",
        nargs="*",
        metavar="DIR",
        help="session folders or files (default: <agent dir>/sessions and Pi's sessionDir if set)",
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
    tables = parser.add_argument_group("Local analysis (needs pip install 'pi-context[duckdb]')")
    tables.add_argument(
        "--parquet", default=None, metavar="FILE", help="write one row per counted request to this Parquet file"
    )
    tables.add_argument(
        "--duckdb",
        default=None,
        metavar="FILE",
        help="write one row per counted request to the table 'requests' of this DuckDB database",
    )
    otel = parser.add_argument_group("OpenTelemetry (needs pip install 'pi-context[otel]')")
    otel.add_argument(
        "--otlp",
        default=None,
        metavar="ENDPOINT",
        help="send one span per request (GenAI semantic conventions) to this OTLP/HTTP endpoint, e.g. "
        "http://localhost:4318 (/v1/traces is added); each request is sent once (see --otlp-state)",
    )
    otel.add_argument(
        "--otlp-header",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="an HTTP header for the endpoint (repeatable; default: $OTEL_EXPORTER_OTLP_HEADERS)",
    )
    otel.add_argument(
        "--otlp-state",
        default=None,
        metavar="FILE",
        help="the requests already sent (default: $XDG_STATE_HOME/pi-context/otlp-<endpoint hash>.sent)",
    )
    otel.add_argument(
        "--otlp-content",
        action="store_true",
        help="also send what each turn said (gen_ai.input.messages, gen_ai.output.messages); off by default",
    )
    otel.add_argument(
        "--watch",
        action="store_true",
        help="with --otlp: keep following the session folders and send each new request as Pi writes it",
    )
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
    roots = tuple(resolve_path(path) for path in args.paths) or default_roots([project])
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
    if args.watch and not args.otlp:
        return _fail("--watch follows the sessions for --otlp: give an endpoint")
    headers = _headers(args.otlp_header)
    if isinstance(headers, str):
        return _fail(headers)
    project = open_project(project_inputs(args, args.cwd or os.getcwd(), settings_from_args(args)))
    query = query_from_args(args, project)
    if isinstance(query, str):
        return _fail(query)
    cache = cache_from_args(args, project)
    run = collect(query, cache, project.prices.prices_for)
    if args.parquet or args.duckdb:
        failed = _tables(args, project, query, run)
        if failed is not None:
            return _fail(failed)
    if args.otlp:
        return _otlp(args, project, query, cache, run, headers)
    _print(args, query, run)
    return 0


def _tables(args: argparse.Namespace, project: Project, query: UsageQuery, run: UsageRun) -> str | None:
    """Write the Parquet file and/or the DuckDB table; the error to print, if any."""
    try:
        from lsp_server.usage.parquet import request_rows, write_duckdb, write_parquet
    except ImportError as exc:  # duckdb is an optional extra
        return f"--parquet/--duckdb need the duckdb extra: pip install 'pi-context[duckdb]' ({exc})"
    import duckdb

    rows = request_rows(
        run, project.prices.prices_for, calendar=Calendar(query.timezone), since=query.since, until=query.until
    )
    for option, path, write in (("--parquet", args.parquet, write_parquet), ("--duckdb", args.duckdb, write_duckdb)):
        if not path:
            continue
        target = resolve_path(path)
        try:
            write(rows, target)
        except (OSError, duckdb.Error) as exc:
            return f"{option} {target}: {exc}"
        if not args.json:
            sys.stderr.write(f"pi-context: wrote {len(rows):,} requests to {target}\n")
    return None


def _print(args: argparse.Namespace, query: UsageQuery, run: UsageRun, extra: dict[str, Any] | None = None) -> None:
    report = run.report
    if args.json:
        data = {"roots": list(query.roots), **report.to_json(), **(extra or {})}
        sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")
    else:
        print_report(sys.stdout, report, query.roots)


def _headers(values: list[str]) -> dict[str, str] | str:
    headers: dict[str, str] = {}
    for value in values:
        key, sep, text = value.partition("=")
        if not sep or not key.strip():
            return f"--otlp-header {value!r}: expected KEY=VALUE"
        headers[key.strip()] = text
    return headers


# --- OpenTelemetry ------------------------------------------------------------------------------


def _otlp(
    args: argparse.Namespace,
    project: Project,
    query: UsageQuery,
    cache: UsageCache,
    run: UsageRun,
    headers: dict[str, str],
) -> int:
    """Send what the collector has not accepted yet; with ``--watch``, then every new request as it comes."""
    try:
        from lsp_server.usage.cursor import SentCursor, default_cursor_path
        from lsp_server.usage.export import send_pending
        from lsp_server.usage.otlp import SpanSender, traces_url
    except ImportError as exc:  # the SDK is an optional extra
        return _fail(f"{INSTALL_HINT} ({exc})")
    url = traces_url(args.otlp)
    cursor = SentCursor(resolve_path(args.otlp_state) if args.otlp_state else default_cursor_path(project.env, url))
    cursor.load()
    sender = SpanSender(args.otlp, headers=headers or None)
    calendar = Calendar(query.timezone)
    prices_for = project.prices.prices_for

    content = cache.limits if args.otlp_content else None  # read each turn's messages with these limits

    def send(current: UsageRun) -> ExportResult:
        return send_pending(
            current,
            cursor,
            sender,
            prices_for,
            calendar=calendar,
            since=query.since,
            until=query.until,
            content=content,
        )

    try:
        result = send(run)
        otlp = {"endpoint": url, "state": cursor.path, **result.to_json()}
        _print(args, query, run, {"otlp": otlp})
        if not args.json:
            _say_export(result, url, cursor.path)
        if not args.watch:
            return 0 if result.error is None else 1
        return _watch(query, cache, prices_for, send)
    finally:
        sender.close()


INSTALL_HINT = "the OpenTelemetry export needs the otel extra: pip install 'pi-context[otel]'"


def _say_export(result: ExportResult, url: str, state: str) -> None:
    line = f"otlp: sent {result.sent:,} span{'s' if result.sent != 1 else ''} to {url}"
    if result.already:
        line += f" ({result.already:,} sent before, skipped; {state})"
    sys.stdout.write(line + "\n")
    if result.error is not None:
        sys.stderr.write(f"pi-context: otlp: {result.error}; they are sent again on the next run\n")
    sys.stdout.flush()


def _watch(
    query: UsageQuery, cache: UsageCache, prices_for: PricesFor, send: Callable[[UsageRun], ExportResult]
) -> int:
    """Follow the session folders until SIGINT/SIGTERM, sending what is new after each change.

    The folders are also looked at every :data:`WATCH_TICK_MS` without a change (a ``stat`` per file:
    it catches what was written while the watch was being set up), and an export the collector
    refused is tried again after :data:`RETRY_S`.
    """
    import signal
    import threading
    import time

    import watchfiles

    folders = [root for root in query.roots if os.path.isdir(root)]
    if not folders:
        return _fail(f"--watch: none of {', '.join(query.roots)} is a folder")
    stop = threading.Event()
    # SIGINT and SIGTERM end the watch between two exports (each accepted batch is already in the cursor).
    previous = {sig: signal.signal(sig, lambda _signum, _frame: stop.set()) for sig in (signal.SIGINT, signal.SIGTERM)}
    sys.stdout.write(f"otlp: watching {', '.join(folders)}\n")
    sys.stdout.flush()
    failed_at: float | None = None
    try:
        for changes in watchfiles.watch(
            *folders,
            watch_filter=lambda _change, path: path.endswith(".jsonl"),
            stop_event=stop,
            debounce=WATCH_DEBOUNCE_MS,
            yield_on_timeout=True,
            rust_timeout=WATCH_TICK_MS,
            raise_interrupt=False,
        ):
            run = collect(query, cache, prices_for)
            if not changes and failed_at is not None and time.monotonic() - failed_at < RETRY_S:
                continue
            result = send(run)
            failed_at = time.monotonic() if result.error is not None else None
            if result.sent or result.error:
                _say_export(result, "the collector", "")
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return 0


WATCH_DEBOUNCE_MS = 500  # Pi writes a turn as a few lines within milliseconds: one export for them
WATCH_TICK_MS = 2_000
RETRY_S = 30.0


# --- text ---------------------------------------------------------------------------------------


def _n(value: float) -> str:
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.2f}"


def _cost(totals: UsageTotals) -> str:
    text = format_usd(totals.cost)
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
