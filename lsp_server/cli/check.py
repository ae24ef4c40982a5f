"""``pi-context check [PATH...] [--profile P] [--settings FILE] [--cwd DIR] [--json]``: lint skills and context files.

Prints ``path:line:col: severity code message`` (1-based, sorted by path then position) and a
summary on stderr; ``--json`` prints the findings as a JSON list instead. Exit status: 1 when an
error-severity finding exists, 0 otherwise, 2 on usage errors (argparse's convention).

``prompt/volatile-content`` is counted to the end of a project's assembled system prompt (the
project at ``--cwd``, else the PATH when it is one folder, else the current directory), built only
when such a finding exists; ``--agent-dir`` and ``--trusted``/``--untrusted`` describe that project.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from lsp_server.cli._project import add_project_arguments, project_inputs, settings_from_args
from lsp_server.rules.profiles import DEFAULT_PROFILE, PROFILES


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "check",
        help="check SKILL.md files and context files (AGENTS.md, CLAUDE.md) under a rule profile",
        description="Find every SKILL.md, loose skill candidate and context file below the given paths "
        "and report problems for the chosen agent. Exit status 1 when an error is found.",
    )
    parser.add_argument("paths", nargs="*", metavar="PATH", help="files or folders to check (default: .)")
    parser.add_argument(
        "--profile",
        default=None,
        choices=PROFILES,
        help=f"which agent's rules to apply (default: the settings' ruleProfile, else {DEFAULT_PROFILE})",
    )
    add_project_arguments(
        parser,
        cwd_help="the project whose system prompt volatile content is counted in (default: the PATH when it is "
        "one folder, else the current directory)",
        counting=False,
    )
    parser.add_argument("--json", action="store_true", help="print findings as a JSON list")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from lsp_server.checks import check_workspace
    from lsp_server.findings import Severity
    from lsp_server.prompt.inclusion import Inclusions

    paths = args.paths or ["."]
    missing = [p for p in paths if not os.path.lexists(p)]
    if missing:
        print(f"pi-context check: no such file or directory: {', '.join(missing)}", file=sys.stderr)
        return 2
    settings = settings_from_args(args)
    profile = args.profile or settings.rule_profile
    inputs = project_inputs(args, os.path.abspath(_project_cwd(args, paths)), settings)
    inclusions = Inclusions(inputs.cwd, inputs.agent_dir)
    report = check_workspace(paths, profile, thresholds=settings.limits, inclusions=inclusions)
    findings = [_display(f) for f in _placed(report.findings, args, paths, settings, profile)]
    if args.json:
        json.dump([f.to_json() for f in findings], sys.stdout, ensure_ascii=False, indent=1)
        sys.stdout.write("\n")
    else:
        for finding in findings:
            sys.stdout.write(finding.format_line() + "\n")
    counts = {s: sum(1 for f in findings if f.severity == s) for s in Severity}
    parts = [f"{counts[s]} {s.label}{'s' if counts[s] != 1 and s.label != 'info' else ''}" for s in Severity]
    print(
        f"{report.skills_checked} skill file(s), {report.context_files_checked} context file(s) checked "
        f"({profile} profile): {', '.join(parts)}",
        file=sys.stderr,
    )
    return 1 if report.has_errors() else 0


def _placed(findings: list[Any], args: argparse.Namespace, paths: list[str], settings: Any, profile: Any) -> list[Any]:
    """``prompt/volatile-content`` counted to the end of the project's system prompt (built only when needed)."""
    from lsp_server.fsread import read_text
    from lsp_server.project.project import open_project
    from lsp_server.project.volatile import chars_after_files, place_volatile
    from lsp_server.rules.volatile_content import CODE

    if not any(f.code == CODE for f in findings):
        return findings
    cwd = _project_cwd(args, paths)
    tails = chars_after_files(open_project(project_inputs(args, os.path.abspath(cwd), settings)).build_prompt())
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
