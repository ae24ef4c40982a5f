"""``pi-context prompt``: the system prompt Pi would send for a project, section by section.

Loads what Pi loads at start (SYSTEM.md, APPEND_SYSTEM.md, AGENTS.md/CLAUDE.md files, skills;
project files only when the project is trusted, decided as Pi decides), builds the sections and
prints the rendered prompt, or with ``--json`` every section with its source files and token
counts (Pi's ``chars/4`` and the chosen counter) plus the total. The project is opened as the
language server opens it (:mod:`lsp_server.cli._project`), so ``pi/systemPrompt`` agrees.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from lsp_server.cli._project import add_project_arguments, cwd_error, project_inputs, settings_from_args
from lsp_server.project.project import open_project
from lsp_server.project.prompt_state import PromptOptions, build_prompt


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "prompt",
        help="print the system prompt Pi would send (sections, sources, token counts with --json)",
        description="Rebuild the system prompt Pi 1.6.0 sends for a project from its files: SYSTEM.md, "
        "APPEND_SYSTEM.md, AGENTS.md/CLAUDE.md and skills. The default preamble, tool lines and rules are "
        "pi-context's own wording; everything built from your files is byte-identical to Pi's.",
    )
    add_project_arguments(parser, cwd_help="project directory (default: the current directory)")
    parser.add_argument("--json", action="store_true", help="print sections with sources and token counts as JSON")
    parser.add_argument(
        "--tools", default=None, help="comma-separated tool selection (default: Pi's defaultTools setting)"
    )
    parser.add_argument("--model", default=None, help="model id used when --family is auto (e.g. claude-opus-4-7)")
    parser.add_argument("--package-dir", default=None, help="Pi's install folder named in the docs section")
    parser.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    bad_cwd = cwd_error(args)
    if bad_cwd is not None:
        return bad_cwd
    project = open_project(project_inputs(args, args.cwd or os.getcwd(), settings_from_args(args)))
    tools = tuple(name.strip() for name in args.tools.split(",") if name.strip()) if args.tools is not None else None
    snapshot = build_prompt(
        project, options=PromptOptions(tools=tools, package_dir=args.package_dir, counter_model=args.model)
    )
    assembled = snapshot.prompt
    if args.json:
        trust = project.trust
        context = {"cwd": project.cwd, "agentDir": project.agent_dir, "projectTrusted": trust.trusted}
        out = {**context, "trustReason": trust.reason, **assembled.to_json()}
        sys.stdout.write(json.dumps(out, ensure_ascii=False, indent=2) + "\n")
        return 0
    sys.stdout.write(assembled.text + "\n")
    for warning in assembled.warnings:
        sys.stderr.write(f"pi-context: {warning}\n")
    if project.untrusted_note() is not None:
        # Pi silently leaves these out of an untrusted project's prompt; say how to see them.
        sys.stderr.write("pi-context: trust the project in Pi or pass --trusted to see the prompt with them\n")
    return 0
