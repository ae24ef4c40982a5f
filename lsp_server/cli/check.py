"""``pi-context check [PATH...] [--profile P] [--exclude GLOB] [--cwd DIR] [--json]``: lint skills and context files.

Prints ``path:line:col: severity code message`` (1-based lines and columns, columns in characters,
sorted by path then position) and a summary on stderr; ``--json`` prints the findings as a JSON
list instead, each with an LSP-style ``range`` (0-based lines and columns, columns in characters).
Exit status (``lsp_server/cli/_errors.py``): 1 when an error-severity finding exists, 0 otherwise,
2 on usage errors (a bad flag, a PATH or ``--cwd`` that does not exist).

What the check speaks of is a project: ``--cwd``, else the PATH when it is one folder, else the
current directory, with ``--agent-dir``. Whether a context file is "sent with every request" comes
from that project's prompt (:mod:`lsp_server.prompt.inclusion`), and ``prompt/volatile-content`` is
counted to the end of its assembled system prompt (built only when such a finding exists).
``--exclude GLOB`` (and the ``check.exclude`` setting) leaves paths out; findings below a test
fixture folder (``check.fixtureFolders``) are kept, explained and lowered to info
(:mod:`lsp_server.rules.scope`).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from lsp_server.base.findings import Severity
from lsp_server.base.fsread import read_text
from lsp_server.checks import check_workspace
from lsp_server.cli._errors import EXIT_FAILURE, EXIT_OK, EXIT_STATUS_HELP, EXIT_USAGE, fail
from lsp_server.cli._project import add_project_arguments, cwd_error, project_inputs, settings_from_args
from lsp_server.project.project import open_project
from lsp_server.project.prompt_state import build_prompt
from lsp_server.project.volatile import chars_after_files, place_volatile
from lsp_server.prompt.inclusion import Inclusions
from lsp_server.rules.scope import CheckScope
from lsp_server.rules.volatile_content import CODE
from lsp_server.vocabulary.profiles import DEFAULT_PROFILE, PROFILES


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "check",
        help="check SKILL.md files and context files (AGENTS.md, CLAUDE.md) under a rule profile",
        description="Find every SKILL.md, loose skill candidate and context file below the given paths "
        "and report problems for the chosen agent. Exit status 1 when an error is found.",
        epilog=EXIT_STATUS_HELP,
    )
    parser.add_argument("paths", nargs="*", metavar="PATH", help="files or folders to check (default: .)")
    parser.add_argument(
        "--profile",
        default=None,
        choices=PROFILES,
        help=f"which agent's rules to apply (default: the settings' ruleProfile, else {DEFAULT_PROFILE})",
    )
    parser.add_argument(
        "--exclude",
        action="append",
        default=[],
        metavar="GLOB",
        help="leave these paths out (repeatable; added to the settings' check.exclude): a glob without a slash "
        "matches a file or folder name at any depth, one with a slash the path below the checked folder",
    )
    add_project_arguments(
        parser,
        cwd_help="the project the findings speak of: which context files Pi sends with every request, where "
        "volatile content is counted (default: the PATH when it is one folder, else the current directory)",
        counting=False,
    )
    parser.add_argument(
        "--json",
        action="store_true",
        help="print findings as a JSON list; ranges are LSP-style: 0-based lines and columns (the text output "
        "is 1-based)",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:

    paths = args.paths or ["."]
    missing = [p for p in paths if not os.path.lexists(p)]
    for path in missing:
        fail(path, "no such file or directory", EXIT_USAGE)
    bad_cwd = cwd_error(args)
    if missing or bad_cwd is not None:
        return EXIT_USAGE
    settings = settings_from_args(args)
    profile = args.profile or settings.rule_profile
    inputs = project_inputs(args, os.path.abspath(_project_cwd(args, paths)), settings)
    inclusions = Inclusions(inputs.cwd, inputs.agent_dir)
    scope = CheckScope((*settings.check.exclude, *args.exclude), tuple(settings.check.fixture_folders))
    report = check_workspace(paths, profile, thresholds=settings.limits, inclusions=inclusions, scope=scope)
    for path in report.not_checked:
        sys.stderr.write(f"pi-context: {path}: not checked: {report.not_checked[path]}\n")
    findings = [_display(f) for f in _placed(report.findings, args, paths, settings, profile)]
    if args.json:
        json.dump([f.to_json() for f in findings], sys.stdout, ensure_ascii=False, indent=1)
        sys.stdout.write("\n")
    else:
        for finding in findings:
            sys.stdout.write(finding.format_line() + "\n")
    sys.stderr.write(summary_line(report, findings, profile) + "\n")
    return EXIT_FAILURE if report.has_errors() else EXIT_OK


def _plural(count: int, word: str, plural: str | None = None) -> str:
    return f"{count:,} {word if count == 1 else (plural or word + 's')}"


def summary_line(report: Any, findings: list[Any], profile: str) -> str:
    """``18 SKILL.md files, 9 loose .md candidates in skills folders (...), 1 context file checked (...)``."""

    declared = report.skills_checked - report.loose_candidates
    parts = [_plural(declared, "SKILL.md file")]
    if report.loose_candidates:
        loaded = report.loose_loaded
        parts.append(
            _plural(report.loose_candidates, "loose .md candidate")
            + " in skills folders ("
            + (f"{loaded:,} with a description, loaded as skills" if loaded else "none has a description, so Pi ")
            + ("" if loaded else "loads none as a skill")
            + ")"
        )
    parts.append(_plural(report.context_files_checked, "context file"))
    if report.system_prompt_files_checked:
        parts.append(_plural(report.system_prompt_files_checked, "SYSTEM.md/APPEND_SYSTEM.md file"))
    counts = {s: sum(1 for f in findings if f.severity == s) for s in Severity}
    tally = ", ".join(_plural(counts[s], s.label, s.label if s.label == "info" else None) for s in Severity)
    line = f"{', '.join(parts)} checked ({profile} profile): {tally}"
    lowered = sum(1 for f in findings if "fixture" in f.data and "severity" in f.data)
    if lowered:
        line += f"; {_plural(lowered, 'finding')} in test fixtures lowered to info (see [test fixture] in each)"
    return line


def _placed(findings: list[Any], args: argparse.Namespace, paths: list[str], settings: Any, profile: Any) -> list[Any]:
    """``prompt/volatile-content`` counted to the end of the project's system prompt (built only when needed)."""

    if not any(f.code == CODE for f in findings):
        return findings
    cwd = _project_cwd(args, paths)
    tails = chars_after_files(build_prompt(open_project(project_inputs(args, os.path.abspath(cwd), settings))))
    by_path: dict[str, list[Any]] = {}
    for finding in findings:
        by_path.setdefault(finding.path, []).append(finding)
    out: list[Any] = []
    for path, own in by_path.items():
        placed = own
        if any(f.code == CODE for f in own):
            placed = place_volatile(own, read_text(path).text, tails, profile)
        out.extend(placed)
    return out


def _project_cwd(args: argparse.Namespace, paths: list[str]) -> str:
    """The project the check speaks of: ``--cwd``, else the PATH when it is one folder, else the current directory."""
    return str(args.cwd or (paths[0] if len(paths) == 1 and os.path.isdir(paths[0]) else os.getcwd()))


def _display(finding: Any) -> Any:
    """The finding with its path relative to the cwd when it lies below it (shorter lines)."""
    from dataclasses import replace

    try:
        rel = os.path.relpath(finding.path)
    except ValueError:
        return finding
    return finding if rel.startswith("..") else replace(finding, path=rel)
