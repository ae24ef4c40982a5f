"""``pi-context session``: a Pi session file inside out, or the sessions of a project.

For a file: what it holds (entry types, skipped lines with their numbers), the tree's shape, every
message of the request Pi would send next with its tokens, and the context budget (Pi's chars/4
and pi-context's estimator side by side, percent of the window, the compaction threshold, whether
Pi would compact). ``--json`` prints all of it as one object (the request and the budget in the
language server's wire format). For a directory, or with ``--list`` / no argument: the sessions,
newest first. A file that is not a session is an error that names the file (exit 1), never a
traceback.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import Counter
from dataclasses import dataclass
from typing import Any, TextIO

from lsp_server import protocol
from lsp_server.base.fsread import is_directory
from lsp_server.base.money import format_usd
from lsp_server.base.paths import resolve_path
from lsp_server.budget.breakdown import BudgetBreakdown
from lsp_server.budget.budget import ContextBudget
from lsp_server.budget.projected import ProjectedRequest, SessionAnalysis
from lsp_server.cli._errors import EXIT_USAGE, cli_reason, fail
from lsp_server.cli._ledger_text import print_ledger
from lsp_server.cli._project import (
    add_project_arguments,
    cwd_error,
    project_inputs,
    session_limits,
    settings_from_args,
)
from lsp_server.cli._session_text import entry_summary, preview, render_tree, table, tree_shape
from lsp_server.js.values import js_get
from lsp_server.project.analysis import analyze, budget_wire, request_result
from lsp_server.project.costs import turn_ledger
from lsp_server.project.followed_sessions import SessionListCache, session_summary_wire
from lsp_server.project.project import header_cwd, open_project, session_folder
from lsp_server.project.prompt_state import PromptSnapshot, build_prompt
from lsp_server.session.bounds import SessionReadLimits
from lsp_server.session.tail import SessionFile, load_session
from lsp_server.session.transform import orphan_tool_results
from lsp_server.truncate import format_size


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "session",
        help="show a Pi session: entries, tree, the next request's messages, the context budget",
        description="Show what a Pi session file holds and what Pi would send next: entries and skipped lines, "
        "the tree, the projected messages with token counts, and the context budget (Pi's chars/4 next to "
        "pi-context's estimator). With a directory, --list or no FILE: list sessions, newest first.",
    )
    parser.add_argument("file", nargs="?", default=None, help="session .jsonl file, or a folder of sessions")
    parser.add_argument("--leaf", default=None, help="entry id to project from (default: Pi's leaf, the last entry)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--list", action="store_true", help="list the sessions of --cwd (default: this directory)")
    parser.add_argument(
        "--costs",
        action="store_true",
        help="show the turn ledger instead: every request's usage, cache hits and cost, with totals",
    )
    add_project_arguments(
        parser,
        cwd_help="project directory (default: the session's cwd if it exists here, else the current directory)",
        sessions=True,
    )
    parser.add_argument(
        "--context-window", type=int, default=None, help="use this context window (tokens) instead of the model's"
    )
    parser.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    if args.context_window is not None and args.context_window <= 0:
        return fail(None, "--context-window must be a positive number of tokens", EXIT_USAGE)
    bad_cwd = cwd_error(args)
    if bad_cwd is not None:
        return bad_cwd
    if args.list or args.file is None:
        return _list(args, None)
    path = resolve_path(args.file)
    if is_directory(path):
        return _list(args, path)
    if not os.path.lexists(path):
        return fail(path, "no such file or directory", EXIT_USAGE)
    return _show(args, path)


# --- the project around a session ------------------------------------------------------------


@dataclass(frozen=True)
class Workspace:
    """The project a session is shown in (the one rule of ``session_folder``) and its prompt."""

    snapshot: PromptSnapshot
    note: str | None = None
    untrusted_note: str | None = None  # what the untrusted project's prompt leaves out

    @property
    def cwd(self) -> str:
        return self.snapshot.cwd

    @property
    def agent_dir(self) -> str:
        return self.snapshot.agent_dir

    @property
    def trusted(self) -> bool:
        return self.snapshot.trust.trusted


def _workspace(args: argparse.Namespace, session_cwd: str | None) -> Workspace:
    folder = session_folder(session_cwd, explicit=args.cwd, fallback=os.getcwd)
    project = open_project(project_inputs(args, folder.cwd, settings_from_args(args)))
    return Workspace(build_prompt(project), folder.note, project.untrusted_note())


# --- one session -----------------------------------------------------------------------------


def _load(path: str, limits: SessionReadLimits) -> SessionFile | str:
    """The session, or the reason to print after its path."""
    session = load_session(path, limits)
    if session.error is not None:
        return cli_reason(session.error, path)
    if session.header is None:
        return "not a valid Pi session (no session header)"
    return session


def _show(args: argparse.Namespace, path: str) -> int:
    loaded = _load(path, session_limits(settings_from_args(args)))
    if isinstance(loaded, str):
        return fail(path, loaded)
    session = loaded
    if args.leaf is not None and args.leaf not in session.index.by_id:
        return fail(path, f"no entry with id {args.leaf!r} (--leaf)")
    workspace = _workspace(args, header_cwd(session.header))
    analysis = analyze(workspace.snapshot, session, args.leaf)
    if not args.json:
        _print_workspace(sys.stdout, workspace)
    if args.costs:
        result = turn_ledger(workspace.snapshot, session, args.leaf, analysis)
        if args.json:
            sys.stdout.write(json.dumps(result.wire(), ensure_ascii=False, indent=2) + "\n")
        else:
            print_ledger(sys.stdout, result)
        return 0
    report = _report(session, analysis, workspace)
    if workspace.untrusted_note is not None:
        # The projected request and the budget count the prompt Pi builds for an untrusted project.
        sys.stderr.write(
            f"pi-context: the next request is counted with the untrusted project's prompt: {workspace.untrusted_note}"
            "; trust the project in Pi or pass --trusted to count them\n"
        )
    if args.json:
        sys.stdout.write(json.dumps(report, ensure_ascii=False, indent=2) + "\n")
    else:
        _print_text(sys.stdout, session, analysis, workspace, report)
    return 0


def _print_workspace(out: TextIO, workspace: Workspace) -> None:
    """Which folder stands for the session's project, when it is not the session's own cwd, and why.

    The workspace's prompt, Pi's settings and models.json come from it (the projected request of a
    session that stores no prompt, ``--costs``' prices and Pi's patch), so a session from another
    machine must not be shown against an unrelated folder without saying so.
    """
    if workspace.note is None:
        return
    out.write(
        f"Workspace  {workspace.cwd}\n  {workspace.note}: its prompt, settings and models.json stand for the "
        "session's project; pass --cwd DIR to name the project\n\n"
    )


def _report(session: SessionFile, analysis: SessionAnalysis, workspace: Workspace) -> dict[str, Any]:
    header = session.header or {}
    types = Counter(str(js_get(entry, "type")) for entry in session.entries)
    roles = Counter(
        str(js_get(js_get(entry, "message"), "role")) for entry in session.entries if js_get(entry, "type") == "message"
    )
    tree = session.tree()
    leaf = analysis.request.leaf_id
    return {
        "session": {
            "path": session.path,
            "id": header.get("id"),
            "cwd": header.get("cwd"),
            "timestamp": header.get("timestamp"),
            "version": header.get("version"),
            "migratedFrom": session.migrated_from,
            "entryCount": len(session.entries),
            "entryTypes": dict(types.most_common()),
            "messageRoles": dict(roles.most_common()),
            "problems": [problem.to_json() for problem in session.all_problems()]
            + [
                {
                    "line": session.lines[problem.index],
                    "code": problem.code,
                    "reason": problem.message,
                    "severity": "warning",
                }
                for problem in tree.problems
            ]
            + _orphan_problems(session, analysis),
            "needsNewline": session.needs_newline,
        },
        "workspace": {
            "cwd": workspace.cwd,
            "agentDir": workspace.agent_dir,
            "projectTrusted": workspace.trusted,
            "note": workspace.note,
        },
        "tree": tree_shape(tree).to_json(leaf, len(analysis.branch)),
        "request": request_result(workspace.snapshot, analysis, session.path).wire(),
        "budget": budget_wire(analysis),
    }


def _orphan_problems(session: SessionFile, analysis: SessionAnalysis) -> list[dict[str, Any]]:
    """A tool result on the path that answers no tool call before it (a provider would reject it)."""
    line_of = {id(entry): line for entry, line in zip(session.entries, session.lines, strict=True)}
    problems = []
    for index in orphan_tool_results(analysis.branch):
        entry = analysis.branch[index]
        call_id = js_get(js_get(entry, "message"), "toolCallId")
        problems.append(
            {
                "line": line_of.get(id(entry)),
                "code": "session/orphan-tool-result",
                "reason": f"tool result for call {call_id!r}, which no tool call on this path made "
                "(the provider would reject the next request)",
                "severity": "warning",
            }
        )
    return problems


def _n(value: int) -> str:
    return f"{value:,}"


def _print_text(
    out: TextIO, session: SessionFile, analysis: SessionAnalysis, workspace: Workspace, report: dict[str, Any]
) -> None:
    info = report["session"]
    version = f"version {info['version']}" if info["version"] is not None else "no version (v1)"
    if info["migratedFrom"] is not None:
        version += ", migrated in memory"
    out.write(f"Session  {session.path}\n")
    out.write(f"  id {info['id']} · {version} · cwd {info['cwd']} · created {info['timestamp']}\n")
    types = ", ".join(f"{kind} {count:,}" for kind, count in info["entryTypes"].items())
    out.write(f"  {info['entryCount']:,} entries" + (f": {types}" if types else "") + "\n")
    problems = info["problems"]
    if problems:
        out.write(f"  {len(problems)} problem{'s' if len(problems) != 1 else ''}:\n")
        for problem in problems:
            out.write(f"    line {problem['line']}: {problem['severity']} {problem['code']}: {problem['reason']}\n")
    else:
        out.write("  no problems\n")
    if info["needsNewline"]:
        out.write("  the last line has no newline (Pi adds one when it opens the file)\n")

    shape = report["tree"]
    out.write(
        f"\nTree  {len(shape['roots'])} root{'s' if len(shape['roots']) != 1 else ''}, "
        f"{len(shape['branchPoints'])} branch point{'s' if len(shape['branchPoints']) != 1 else ''}, "
        f"{len(shape['leaves'])} lea{'ves' if len(shape['leaves']) != 1 else 'f'}, "
        f"{len(shape['labels'])} label{'s' if len(shape['labels']) != 1 else ''}; "
        f"leaf {shape['leafId']} at depth {shape['leafDepth']:,}\n"
    )
    active = {str(js_get(entry, "id")) for entry in analysis.branch}
    for line in render_tree(session.tree(), analysis.request.leaf_id, active):
        out.write(f"  {line}\n")

    _print_request(out, analysis.request, workspace)
    _print_budget(out, analysis.budget)


def _print_request(out: TextIO, request: ProjectedRequest, workspace: Workspace) -> None:
    system = request.system
    origin = {
        "session": "stored in the session",
        "workspace": f"the workspace's assembled prompt ({workspace.cwd})",
        "none": "none (the session stores none)",
    }[system.origin]
    if system.origin == "workspace":
        untrusted = workspace.snapshot.project.untrusted_note()
        origin += f"; {untrusted}" if untrusted else ""  # the workspace note is the output's first line
    counter = request.estimator.label
    out.write(
        f"\nRequest  {request.model.name} · thinking {request.thinking_level} · {len(request.messages):,} messages\n"
    )
    out.write(f"  system prompt: {origin}; {_n(system.pi_tokens)} tokens (Pi) / {_n(system.tokens)} ({counter})\n")
    if request.estimator.note:  # the estimator asked for could not be used (e.g. exact counts for Claude)
        out.write(f"  note: {request.estimator.note}\n")
    rows = [["#", "role/kind", "entry", "pi", "est.", "preview"]]
    for message in request.messages:
        kind = message.role if message.kind == message.role else f"{message.role}/{message.kind}"
        rows.append(
            [
                str(message.index),
                kind,
                message.entry_id or "-",
                _n(message.pi_tokens),
                _n(message.tokens),
                preview(message.text),
            ]
        )
    rows.append(["", "total", "", _n(request.pi_tokens), _n(request.tokens), "(system prompt included)"])
    for line in table(rows, "><<>><"):
        out.write(f"  {line}\n")


def _percent(tokens: int, window: int) -> str:
    return f"{tokens / window * 100:.1f}%" if window > 0 else "-"


def _print_budget(out: TextIO, budget: ContextBudget) -> None:
    window = budget.window
    out.write(f"\nBudget  {budget.model.detail}\n")
    pi, est = budget.pi, budget.estimated
    ids = [c.id for c in pi.categories] + [c.id for c in est.categories if pi.category(c.id) is None]
    ids.sort(key=_group_rank)
    rows = [["category", "Pi (chars/4)", "", _short_label(est), ""]]
    for category_id in ids:
        left, right = pi.category(category_id), est.category(category_id)
        known = left or right
        label = known.label if known is not None else category_id
        if known is not None and known.count is not None:
            label += f" ({known.count:,})"
        rows.append([label, *_cells(left.tokens if left else 0, window), *_cells(right.tokens if right else 0, window)])
    rows.append(["total", _n(pi.total), _over(pi), _n(est.total), _over(est)])
    for line in table(rows, "<>>>>"):
        out.write(f"  {line}\n")
    source = {
        "usage": "the provider's usage plus estimates after it",
        "estimate": "estimated",
        "none": "nothing counted yet",
    }[budget.context_tokens_source]
    out.write(
        f"  Pi: {_n(budget.context_tokens)} context tokens ({source}), {budget.percent_used:.2f}% of "
        f"{_n(window)}; compacts above {_n(budget.threshold)} (window - reserve {_n(budget.reserve_tokens)})"
        + ("" if budget.compaction_enabled else ", auto-compaction off")
        + f"; should compact: {'yes' if budget.should_compact else 'no'}\n"
    )
    if budget.footer_tokens is None and budget.context_tokens_source != "none":
        out.write("  Pi's footer shows the count as unknown until the next response (compacted).\n")
    for note in (*_notes(pi, "pi"), *_notes(est, "est."), *budget.problems):
        out.write(f"  note: {note}\n")


_GROUP_RANK = {"system": 0, "messages": 1, "other": 2, "reserve": 3, "free": 4}


def _group_rank(category_id: str) -> int:
    """Categories of both breakdowns in one table: system, messages, other, reserve, free."""
    return _GROUP_RANK.get(category_id.partition(".")[0], 2)


def _short_label(breakdown: BudgetBreakdown) -> str:
    estimator = breakdown.estimator
    return f"{estimator.name} ({estimator.family})" if estimator.family else estimator.name


def _cells(tokens: int, window: int) -> list[str]:
    return [_n(tokens), _percent(tokens, window)]


def _over(breakdown: BudgetBreakdown) -> str:
    return f"{_n(breakdown.overflow)} over" if breakdown.overflow else "= window"


def _notes(breakdown: BudgetBreakdown, name: str) -> list[str]:
    return [f"[{name}] {note}" for note in breakdown.notes]


# --- listing -----------------------------------------------------------------------------------


def _list(args: argparse.Namespace, folder: str | None) -> int:
    if folder is not None:
        sessions_dir, cwd_filter, source = folder, None, "folder"
    else:
        project = open_project(project_inputs(args, args.cwd or os.getcwd(), settings_from_args(args)))
        choice = project.session_dir()
        sessions_dir, source = choice.path, choice.source
        cwd_filter = project.cwd if choice.filter_by_cwd else None
    sessions = SessionListCache(session_limits(settings_from_args(args))).list(sessions_dir, cwd_filter)
    if args.json:
        summaries = [session_summary_wire(summary) for summary in sessions]
        result = protocol.SessionsResult(sessions_dir=sessions_dir, sessions=summaries)
        sys.stdout.write(json.dumps({**result.wire(), "source": source}, ensure_ascii=False, indent=2) + "\n")
        return 0
    if not sessions:
        sys.stdout.write(f"No sessions in {sessions_dir}\n")
        return 0
    sys.stdout.write(f"Sessions in {sessions_dir} (newest first)\n")
    rows = [["modified", "size", "entries", "model", "cost", "title", "file"]]
    for summary in sessions:
        rows.append(
            [
                time.strftime("%Y-%m-%d %H:%M", time.localtime(summary.mtime_ms / 1000)),
                format_size(summary.size),  # Pi's spelling: 512B, 50.0KB, 1.5MB
                "-" if summary.entry_lines is None else _n(summary.entry_lines),
                summary.model or "-",
                "-" if summary.cost is None else format_usd(summary.cost),
                preview(summary.title, 50),  # Pi's name for it, else its first message
                os.path.basename(summary.path),
            ]
        )
    for line in table(rows, "<>><><<"):
        sys.stdout.write(f"  {line}\n")
    return 0


__all__ = ["entry_summary", "register"]
