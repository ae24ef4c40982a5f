"""The Pi Context extension in real VS Code: code-server from npm, headless Debian chromium, playwright-core.

The test builds the .vsix, installs it into a fresh code-server profile, opens a sample workspace
(a broken SKILL.md, an AGENTS.md, a Pi session with a compaction and a branch point and models.json
prices in its agent dir) with a loopback fake LLM as the
summarizer and a ``piContext.pi.command`` naming no program, and lets ``driver.js`` walk through the
user flows: the Chat view saying Pi is missing (with the install command), diagnostic in the Problems panel,
quick fix, budget gauge, sections matching ``pi-context prompt --json``, the highlighted section
after saving AGENTS.md with what the save costs and its diff, the projected request and its price, the Cost
chart (bars, context line, threshold, compaction and branch marks, the numbers of a hovered bar, the next
request's price), the sessions tree, Compact Session with progress, a preview that prices the summary,
and append: without Pi, everything else works. Screenshots of every step go to
``tests/e2e/vscode/out/`` (the chat test's to ``out/chat/``; ``test_chat_e2e.py`` has the chat with real Pi).

Which steps run depends on what the installed server offers (probed from the server itself): a
step whose server method is not built yet is reported as *waiting* with the method's name, not
run. With ``PI_CONTEXT_E2E_STRICT=1`` a waiting step fails the test.

Development knobs: ``PI_CONTEXT_E2E_SERVER_PYTHON`` is the interpreter the extension starts the
server with (default: this one), ``PI_CONTEXT_E2E_EXPECT=step,-step`` runs (or skips) those steps whatever
the probe says (for trying the extension against a server in progress).

Tools come from ``tests/e2e/vscode/install.sh`` (idempotent, cached under ~/.cache/pi-context-e2e).
Without them the test skips, unless ``PI_CONTEXT_REQUIRE_E2E=1`` (CI), where it installs them.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from lsp_server.base.money import format_usd
from tests.e2e.vscode import harness, sample_workspace
from tests.e2e.vscode.harness import ROOT, CodeServer
from tests.support.fake_llm_server import FakeLlmServer, ScriptedResponse

pytestmark = pytest.mark.e2e

# test_chat_e2e.py's and test_restricted_mode_e2e.py's screenshots, kept when this test empties the folder
KEEP_OUT = ("chat", "restricted")

SUMMARY_MARKER = "E2E-SUMMARY: the release checklist is updated for every area"
SUMMARY = f"## Goal\n{SUMMARY_MARKER}.\n\n## Progress\n- Areas 1-16 checked.\n\n## Next Steps\n- Tag the release."


def _expectations(server: dict[str, Any], views: set[str]) -> dict[str, bool | str]:
    def needs(*methods: str) -> bool | str:
        return harness.needs_server(server, *methods)

    chat_view: bool | str = (
        needs("pi/chat/locate") if "piContext.chat" in views else "waits for the extension's piContext.chat view"
    )
    diagnostics: bool | str = (
        True if server["checker"] != "none" else "waits for the server's checker (lsp_server.checks)"
    )
    expect: dict[str, bool | str] = {
        "workbench": True,
        "server-running": True,
        "chat-no-pi": chat_view,
        "diagnostic": diagnostics,
        "quickfix": needs("textDocument/codeAction") if diagnostics is True else diagnostics,
        "gauge": needs("pi/contextBudget"),
        "sections": needs("pi/systemPrompt"),
        "system-prompt-document": needs("pi/systemPrompt"),
        "section-change": needs("pi/systemPrompt"),
        "projected-request": needs("pi/projectedRequest"),
        "cost-chart": needs("pi/turnLedger"),
        "sessions-tree": needs("pi/sessions", "pi/sessionTree"),
        "compact-cancel": needs("pi.compact"),
        "compact": needs("pi.compact"),
        "branch-summary": needs("pi.branchSummary", "pi/sessionTree"),
    }
    return harness.apply_forced(expect)


def _prompt_sections(ws: sample_workspace.SampleWorkspace) -> list[dict[str, Any]]:
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "lsp_server",
            "prompt",
            "--cwd",
            str(ws.folder),
            "--agent-dir",
            str(ws.agent_dir),
            "--json",
            "--trusted",
            "--estimator",
            "weighted",
            "--family",
            "gpt",
        ],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    data = json.loads(out.stdout)
    return [{"name": s["name"], "tokens": s["tokens"], "piTokens": s["piTokens"]} for s in data["sections"]]


def _usd(value: float) -> str:
    """A price as the extension writes it (``formatUsd``, the same format as ``format_usd``)."""
    return format_usd(value)


def _cost_chart(ws: sample_workspace.SampleWorkspace) -> dict[str, Any]:
    """What the Cost chart must show, from ``pi-context session --costs --json`` on the sample session."""
    command = [sys.executable, "-m", "lsp_server", "session", str(ws.session), "--costs", "--json"]
    out = subprocess.run(
        [*command, "--agent-dir", str(ws.agent_dir)], capture_output=True, text=True, check=True, cwd=ROOT
    )
    ledger = json.loads(out.stdout)
    turns = ledger["turns"]
    marks: dict[str, int] = {}
    for marker in ledger["markers"]:
        marks[marker["kind"]] = marks.get(marker["kind"], 0) + 1
    assert {"compaction", "branchPoint"} <= marks.keys(), marks  # the sample has both to draw
    tallest = max(max(t["totalTokens"], t["cacheRead"] + t["input"] + t["cacheWrite"] + t["output"]) for t in turns)
    assert tallest * 3 >= ledger["threshold"], "the sample must reach a third of the threshold for it to be drawn"
    # The turn right after the compaction: the whole new context written to the cache.
    hover = next(m["afterTurn"] for m in ledger["markers"] if m["kind"] == "compaction")
    upcoming = ledger["nextRequest"]
    return {
        "costTurns": len(turns),
        "costMarks": marks,
        "costHover": {"index": hover, "entryId": turns[hover]["entryId"], "cost": _usd(turns[hover]["cost"])},
        "costSummary": f"{len(turns)} turns · {_usd(ledger['totals']['cost'])}",
        # The sample's last request is long past its 5-minute cache: the lines give the cold price.
        "coldCost": _usd(upcoming["cold"]["cost"]),
        "warmCost": _usd(upcoming["warm"]["cost"]),
        "warmCostValue": upcoming["warm"]["cost"],
    }


@pytest.fixture()
def out_dir() -> Iterator[Path]:
    yield harness.fresh_out(harness.OUT, keep=KEEP_OUT)


def test_extension_flows_in_real_vscode(tmp_path: Path, out_dir: Path) -> None:
    tools = harness.tools()
    vsix = harness.build_vsix()
    expect = _expectations(harness.server_features(), harness.extension_views())
    ws = sample_workspace.build(tmp_path)
    sections = _prompt_sections(ws) if expect["sections"] is True else []
    cost = _cost_chart(ws) if expect["cost-chart"] is True else {"costTurns": 0}
    session_before = ws.session.read_bytes()

    # A repository that tries to steer the extension: its own trust, interpreter and summarizer URL
    # (with the user's HOME as the "key"). All of them are user-only settings and must be ignored.
    attacker = FakeLlmServer().start()
    hostile = {
        "piContext.trust": "untrusted",
        "piContext.server.python": "/nonexistent/python",
        "piContext.python": "/nonexistent/python",
        "piContext.summarizer.url": attacker.openai_base_url,
        "piContext.summarizer.apiKeyEnv": "HOME",
    }
    (ws.folder / ".vscode").mkdir()
    (ws.folder / ".vscode" / "settings.json").write_text(json.dumps(hostile, indent=2))

    with attacker, FakeLlmServer(default=ScriptedResponse(text=SUMMARY, chunk_delay_s=0.1)) as llm:
        settings = {
            "piContext.server.python": harness.SERVER_PYTHON,
            "piContext.agentDir": str(ws.agent_dir),
            "piContext.trust": "trusted",
            "piContext.tokens.estimator": "weighted",
            "piContext.tokens.modelFamily": "gpt",
            "piContext.summarizer.mode": "endpoint",
            "piContext.summarizer.url": llm.openai_base_url,
            # A model Pi's catalog prices (the loopback server answers for any name): the preview prices the
            # summary calls at the summarizer's own prices, with the usage the server reports.
            "piContext.summarizer.model": "gpt-4.1-mini",
            "piContext.summarizer.wireFormat": "openai",
            "piContext.pi.command": str(tmp_path / "no-such-pi"),  # the chat's bad path: Pi missing
        }
        env = {**os.environ, "PI_CODING_AGENT_DIR": str(ws.agent_dir)}

        def slow_llm(_: Any) -> None:
            # The next summarizer answer starts streaming, then hangs: only a cancel ends it.
            llm.enqueue(ScriptedResponse(text="partial summary " * 20, stall_after_chunks=2))

        code_server = CodeServer(tools["CODE_SERVER"], tmp_path / "code-server", settings, env)
        code_server.install(vsix)
        try:
            url = code_server.start()
            config = harness.driver_config(
                url,
                ws.folder,
                out_dir,
                tools,
                expect,
                skillRelPath=str(ws.skill.relative_to(ws.folder)),
                diagnosticText="name contains invalid characters",
                quickFixText="owercase",
                window=200_000,
                sections=sections,
                agentsAppend="\n- Write a changelog entry for every user-visible change.\n",
                changedSection="project_context",
                sessionLabel=sample_workspace.SESSION_NAME,
                compactFocus="the release checklist",
                summaryMarker=SUMMARY_MARKER,
                branchTarget="Step 16",
                piInstallCommand="npm install -g @earendil-works/pi-coding-agent",
                **cost,
            )
            driver = harness.run_driver(tools, "driver.js", config, out_dir, {"slow-llm": slow_llm})
        finally:
            code_server.stop()
        shutil.copy(code_server.log, out_dir / "code-server.log")

    harness.read_report(driver, out_dir, "VS Code e2e")

    assert attacker.requests == [], "a workspace's .vscode/settings.json chose where the summary request went"

    appended = ws.session.read_bytes()
    assert appended.startswith(session_before), "the session file was rewritten, not appended to"
    new_entries = [json.loads(line) for line in appended[len(session_before) :].decode().splitlines()]
    # The confirmed compaction, then the confirmed branch summary; the cancelled run appended nothing.
    expected_types = [
        kind for step, kind in (("compact", "compaction"), ("branch-summary", "branch_summary")) if expect[step] is True
    ]
    assert [entry["type"] for entry in new_entries] == expected_types
    for entry in new_entries:
        assert SUMMARY_MARKER in entry["summary"]
