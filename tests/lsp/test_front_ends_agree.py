"""The CLI and the language server open a project the same way, so they give the same numbers.

Each case is a workspace shaped differently (trusted or not, with Pi's settings files or without,
with pi-context's own settings), and a session whose header names it. The CLI runs as a user runs it
(``pi-context session|prompt|compact|branch-summary --json``, ``session --costs --json``, a
subprocess); the server is the real one over stdio, told the same choices through its settings.
Their answers must be equal, field for field: the budget, the projected request, the system prompt,
the compaction and branch-summary previews, the turn ledger.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.lsp._custom import install_session
from tests.lsp.conftest import Launch, Workspace, plain, server_env

Shape = Callable[[Workspace], None]

# The example session's two branches part at 9c947358: leaving the lru_cache branch (its leaf) for the dict one.
BRANCH_FROM, BRANCH_TO = "3f10c2e0", "4647f052"


def _plain(workspace: Workspace) -> None:
    workspace.write("AGENTS.md", "# Rules\nKeep functions small.\n")


def _untrusted_project_settings(workspace: Workspace) -> None:
    """Project files that need trust, and no trust decision: Pi (RPC, print) leaves them out."""
    _plain(workspace)
    workspace.write(".pi/SYSTEM.md", "You are the project's own assistant.\n")
    workspace.write(".pi/settings.json", json.dumps({"compaction": {"keepRecentTokens": 123, "reserveTokens": 4096}}))
    workspace.write(".pi/skills/deploy/SKILL.md", "---\nname: deploy\ndescription: Ship the web app.\n---\n")


def _global_settings(workspace: Workspace) -> None:
    """Pi's global settings with a per-model override for the session's model, and a models.json window."""
    _plain(workspace)
    settings = {
        "compaction": {
            "reserveTokens": 20000,
            "modelOverrides": {"anthropic/claude-sonnet-4-5": {"reserveTokens": 30000, "keepRecentTokens": 900}},
        },
        "branchSummary": {"reserveTokens": 1000},
    }
    (workspace.agent_dir / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
    models = {"providers": {"anthropic": {"models": [{"id": "claude-sonnet-4-5", "contextWindow": 150_000}]}}}
    (workspace.agent_dir / "models.json").write_text(json.dumps(models), encoding="utf-8")
    skill = workspace.agent_dir / "skills" / "pdf-tools" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("---\nname: pdf-tools\ndescription: Extract text & tables from PDF files.\n---\n")


SHAPES: dict[str, Shape] = {
    "plain": _plain,
    "untrusted-project": _untrusted_project_settings,
    "global-settings": _global_settings,
}

# (name, the CLI's flags, the server's piContext settings)
CHOICES: list[tuple[str, list[str], dict[str, Any]]] = [
    ("pi-decides", [], {}),
    ("trusted", ["--trusted"], {"trust": "trusted"}),
    ("untrusted", ["--untrusted"], {"trust": "untrusted"}),
    (
        "pi-context-settings",
        ["--settings", "{settings}"],
        {"tokens": {"estimator": "pi"}, "budget": {"contextWindows": {"claude-sonnet-4-5": 64000}}},
    ),
]


def _cli(workspace: Workspace, *args: str) -> Any:
    done = subprocess.run(
        [sys.executable, "-m", "lsp_server", *args, "--json"],
        cwd=workspace.root,
        env=server_env(workspace, debug=False),
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _flags(flags: list[str], settings: dict[str, Any], folder: Path) -> list[str]:
    if "{settings}" not in flags:
        return flags
    path = folder / "pi-context.json"
    path.write_text(json.dumps(settings), encoding="utf-8")
    return [str(path) if flag == "{settings}" else flag for flag in flags]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize(("choice", "flags", "settings"), CHOICES, ids=[c[0] for c in CHOICES])
async def test_the_cli_and_the_server_give_the_same_numbers(
    launch: Launch,
    workspace: Workspace,
    tmp_path: Path,
    shape: str,
    choice: str,
    flags: list[str],
    settings: dict[str, Any],
) -> None:
    SHAPES[shape](workspace)
    path = install_session(workspace)
    cli_flags = _flags(flags, settings, tmp_path)
    session_cli = _cli(workspace, "session", str(path), *cli_flags)
    prompt_cli = _cli(workspace, "prompt", *cli_flags)
    compact_cli = _cli(workspace, "compact", str(path), "--dry-run", *cli_flags)
    branch_cli = _cli(
        workspace, "branch-summary", str(path), "--from", BRANCH_FROM, "--to", BRANCH_TO, "--dry-run", *cli_flags
    )
    ledger_cli = _cli(workspace, "session", str(path), "--costs", *cli_flags)

    server = await launch(configuration={"piContext": settings}, init_options=settings)

    async def ask(method: str, params: Any) -> Any:
        return plain(await server.client.protocol.send_request_async(method, params))

    budget = await ask("pi/contextBudget", {"session": str(path)})
    request = await ask("pi/projectedRequest", {"session": str(path)})
    prompt = await ask("pi/systemPrompt", {})
    preview = await server.command("pi.compact", {"session": str(path), "previewOnly": True})
    branch = plain(
        await server.command(
            "pi.branchSummary", {"session": str(path), "fromId": BRANCH_FROM, "toId": BRANCH_TO, "previewOnly": True}
        )
    )
    ledger = await ask("pi/turnLedger", {"session": str(path)})

    assert budget == session_cli["budget"]
    assert request == session_cli["request"]
    assert [(s["name"], s["text"], s["tokens"]) for s in prompt["sections"]] == [
        (s["name"], s["text"], {"pi": s["piTokens"], "estimate": s["tokens"]}) for s in prompt_cli["sections"]
    ]
    assert prompt["total"] == {"pi": prompt_cli["total"]["piTokens"], "estimate": prompt_cli["total"]["tokens"]}
    assert prompt["projectTrusted"] == prompt_cli["projectTrusted"] == session_cli["workspace"]["projectTrusted"]
    preparation = compact_cli["preparation"]
    assert plain(preview)["firstKeptEntryId"] == preparation["firstKeptEntryId"]
    assert plain(preview)["tokensBefore"] == preparation["tokensBefore"]
    assert plain(preview)["summary"] == compact_cli["entry"]["summary"]
    fresh = ("id", "timestamp")  # a new entry's id and time differ from run to run
    assert {k: v for k, v in branch["entry"].items() if k not in fresh} == {
        k: v for k, v in branch_cli["entry"].items() if k not in fresh
    }
    assert branch["summary"] == branch_cli["entry"]["summary"]
    assert ledger == ledger_cli
