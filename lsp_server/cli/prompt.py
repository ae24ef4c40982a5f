"""``pi-context prompt``: the system prompt Pi would send for a project, section by section.

Loads what Pi loads at start (SYSTEM.md, APPEND_SYSTEM.md, AGENTS.md/CLAUDE.md files, skills;
project files only when the project is trusted, decided as Pi decides), builds the sections and
prints the rendered prompt, or with ``--json`` every section with its source files and token
counts (Pi's ``chars/4`` and the chosen counter) plus the total.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from lsp_server.context.paths import resolve_agent_dir, resolve_path
from lsp_server.context.resources import ResourceOptions, load_resources
from lsp_server.context.settings import load_pi_settings
from lsp_server.context.trust import project_trust
from lsp_server.prompt.assembly import AssembledPrompt, assemble_prompt, inputs_from_resources
from lsp_server.tokens.counter import ESTIMATORS, choose_counter


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "prompt",
        help="print the system prompt Pi would send (sections, sources, token counts with --json)",
        description="Rebuild the system prompt Pi 1.6.0 sends for a project from its files: SYSTEM.md, "
        "APPEND_SYSTEM.md, AGENTS.md/CLAUDE.md and skills. The default preamble, tool lines and rules are "
        "pi-context's own wording; everything built from your files is byte-identical to Pi's.",
    )
    parser.add_argument("--cwd", default=None, help="project directory (default: the current directory)")
    parser.add_argument(
        "--agent-dir", default=None, help="Pi's agent dir (default: $PI_CODING_AGENT_DIR or ~/.pi/agent)"
    )
    parser.add_argument("--json", action="store_true", help="print sections with sources and token counts as JSON")
    parser.add_argument(
        "--tools", default=None, help="comma-separated tool selection (default: Pi's defaultTools setting)"
    )
    parser.add_argument("--estimator", choices=ESTIMATORS, default="weighted", help="token counter (default: weighted)")
    parser.add_argument(
        "--family", default="auto", help="tokenizer family: gpt, claude, claude47, o200k, cl100k, llama3, qwen3, auto"
    )
    parser.add_argument("--model", default=None, help="model id used when --family is auto (e.g. claude-opus-4-7)")
    trust = parser.add_mutually_exclusive_group()
    trust.add_argument("--trusted", dest="trust", action="store_const", const=True, help="treat the project as trusted")
    trust.add_argument(
        "--untrusted", dest="trust", action="store_const", const=False, help="treat the project as untrusted"
    )
    parser.add_argument("--package-dir", default=None, help="Pi's install folder named in the docs section")
    parser.set_defaults(func=_run, trust=None)


def _assemble(args: argparse.Namespace) -> tuple[AssembledPrompt, dict[str, Any]]:
    cwd = resolve_path(args.cwd or os.getcwd())
    agent_dir = resolve_agent_dir(args.agent_dir, cwd)
    global_settings = load_pi_settings(cwd, agent_dir, project_trusted=False).global_layer.settings
    decision = project_trust(
        cwd, agent_dir, override=args.trust, default_project_trust=global_settings.default_project_trust
    )
    resources = load_resources(ResourceOptions(cwd=cwd, agent_dir=agent_dir, project_trusted=decision.trusted))
    tools = [name.strip() for name in args.tools.split(",") if name.strip()] if args.tools is not None else None
    inputs = inputs_from_resources(resources, selected_tools=tools, package_dir=args.package_dir)
    model = args.model or resources.settings.effective.default_model
    choice = choose_counter(args.estimator, args.family, model)
    warnings = [
        *resources.warnings,
        *(d.message + (f" ({d.path})" if d.path else "") for d in resources.skill_diagnostics),
    ]
    if not decision.trusted and decision.project_resources:
        # Pi silently leaves these out of an untrusted project's prompt; say so where the user looks.
        skipped = ", ".join(os.path.relpath(path, cwd) for path in decision.project_resources)
        warnings.append(
            f"project not trusted ({decision.reason}): left out {skipped}; "
            "trust it in Pi or pass --trusted to see the prompt with them"
        )
    assembled = assemble_prompt(inputs, choice.counter, counter_note=choice.note, warnings=warnings)
    context = {"cwd": cwd, "agentDir": agent_dir, "projectTrusted": decision.trusted, "trustReason": decision.reason}
    return assembled, context


def _run(args: argparse.Namespace) -> int:
    assembled, context = _assemble(args)
    if args.json:
        out = {**context, **assembled.to_json()}
        sys.stdout.write(json.dumps(out, ensure_ascii=False, indent=2) + "\n")
        return 0
    sys.stdout.write(assembled.text + "\n")
    for warning in assembled.warnings:
        sys.stderr.write(f"pi-context: {warning}\n")
    return 0
