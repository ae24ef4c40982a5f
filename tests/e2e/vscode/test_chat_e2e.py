"""The sidebar chat in real VS Code, with real Pi behind it: code-server, headless chromium, the language
server the extension starts, Pi in RPC mode (the newest release, 1.6.0, and the oldest, 1.0.3: the view
says what the older one lacks), and the loopback fake model as the witness.

The extension starts the language server, which starts Pi (``piContext.pi.command``, a machine
setting) in the sample project; Pi's only model is the fake LLM server, which scripts each step's
replies and tool calls, holds a stream until the test releases it, and records every request body.
``chat_driver.js`` walks the Chat view through its ``data-testid`` contract (docs/chat.md): the
reply streams (the streaming state, then the final text), a ``read`` tool call shows a card that
ends ``done``, the gauge's ``data-tokens`` follows Pi's usage after each turn, stop ends a held
stream, ``/compact`` previews then runs, a fork from an earlier user message shows in the
Sessions tree, Retry on a message sends it again on a new branch, a webview reload mid-stream shows
the running reply again, and so does a window reload (``Developer: Reload Window``: a new extension
host and language server, the same Pi, kept by its keeper, the reply shown again and finished). Then
this test checks what only the other parties can say: the model received the typed prompt, the tool
result, the compaction focus and the retried text; the held stream was closed by Pi; Pi wrote a
compaction entry and the forked files; every session file written loads in
``pi-context session FILE --json`` without problems and in Pi itself; and no Pi process nor keeper
is left once code-server has stopped.

Until the extension contributes the ``piContext.chat`` view, its steps report *waiting*; so does a
step whose element the view does not have yet (named in the detail). ``PI_CONTEXT_E2E_STRICT=1``
turns waiting into failure. Screenshots: ``tests/e2e/vscode/out/chat/``. Runs alone:
``python -m pytest -m e2e tests/e2e/vscode/test_chat_e2e.py``.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from lsp_server.pi_rpc import PiRpcProcess
from lsp_server.vocabulary.pi_releases import NEWEST, OLDEST, rules_for
from tests.e2e.vscode import harness, sample_workspace
from tests.e2e.vscode.harness import ROOT, CodeServer
from tests.support.fake_llm_server import FakeLlmServer, RecordedRequest, ScriptedResponse
from tests.support.pi_agent import PiAgentDir
from tests.support.pi_for_tests import PiUnderTest, require_test_pi
from tests.support.processes import parent_of, pi_processes, reap_chat_processes

pytestmark = pytest.mark.e2e

CHAT_VIEW = "piContext.chat"
CHAT_STEPS = (
    "chat-view",
    "chat-stream",
    "chat-tool",
    "chat-gauge",
    "chat-price",
    "chat-stop",
    "chat-compact",
    "chat-fork",
    "chat-retry",
    "chat-reload",
    "chat-window-reload",
)

PROMPT = "E2E-PROMPT: when is the release, in one sentence?"
REPLY = "E2E-REPLY: the release is planned for Friday, once every item of the checklist is ticked."
TOOL_PROMPT = "E2E-TOOL: read notes.txt and tell me the tag."
TOOL_REPLY = "E2E-TOOL-REPLY: notes.txt says to tag it v2.0."
PRICE_PROMPT = "E2E-PRICE: what would this prompt cost? " * 4
STOP_PROMPT = "E2E-STOP: write a very long essay about release processes."
COMPACT_FOCUS = "the release date"
FORK_PROMPT = "E2E-FORK: read notes.txt again, and only say the date."
FORK_REPLY = "E2E-FORK-REPLY: Friday."
RETRY_REPLY = "E2E-RETRY-REPLY: on Friday, again."
RELOAD_PROMPT = "E2E-RELOAD: and who tags it?"
RELOAD_REPLY = "E2E-RELOAD-REPLY: the release manager tags it, after the checklist review."
WINDOW_RELOAD_PROMPT = "E2E-WINDOW-RELOAD: and who reviews the checklist?"
WINDOW_RELOAD_REPLY = "E2E-WINDOW-RELOAD-REPLY: the whole team reviews the checklist on Thursday, one item at a time."
SUMMARY_MARKER = "E2E-CHAT-SUMMARY: the user asked about the release"
SUMMARY = f"## Goal\n{SUMMARY_MARKER}.\n\n## Progress\n- The date and the tag are known.\n"
STREAM_USAGE = {"input": 400, "output": 20}
TOOL_USAGE = {"input": 1200, "output": 30}
WINDOW = 32000


def _expectations(server: dict[str, Any], views: set[str]) -> dict[str, bool | str]:
    chat_methods = harness.needs_server(
        server, "pi/chat/start", "pi/chat/prompt", "pi/chat/abort", "pi/chat/compactPreview", "pi/chat/fork"
    )
    view: bool | str = True if CHAT_VIEW in views else f"waits for the extension's {CHAT_VIEW} view"
    chat = view if chat_methods is True else chat_methods
    expect: dict[str, bool | str] = {"workbench": True, **{step: chat for step in CHAT_STEPS}}
    return harness.apply_forced(expect)


def chat_pids(agent: PiAgentDir) -> dict[str, list[int]]:
    """Pi itself (not its tool shells) and the language servers of this test's windows."""
    marked = pi_processes(agent.path)
    parents = {pid: parent_of(pid) for pid in marked}
    needle = f"PI_CODING_AGENT_DIR={agent.path}".encode()
    servers = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            line = (entry / "cmdline").read_bytes().split(b"\0")
            environ = (entry / "environ").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"lsp_server" in line and b"serve" in line and needle in environ:  # `python -m lsp_server serve`
            servers.append(int(entry.name))
    return {"pi": sorted(pid for pid in marked if parents[pid] not in marked), "servers": sorted(servers)}


def _entries(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _pi_resumes(pi: PiUnderTest, agent: PiAgentDir, session: Path, cwd: Path) -> tuple[str, int]:
    """Pi itself opens ``session`` (``--session FILE``): the file it says it holds, and its message count."""

    async def run() -> tuple[str, int]:
        process = await PiRpcProcess.start(pi.argv, cwd=cwd, env=agent.env(), session_file=session)
        try:
            messages = await process.get_messages(timeout=60)
            return str((process.initial_state or {}).get("sessionFile")), len(messages)
        finally:
            await process.close()

    return asyncio.run(run())


def _message_texts(entries: list[dict[str, Any]], role: str) -> list[str]:
    """The text of every ``role`` message entry of a session."""
    texts = []
    for entry in entries:
        message = entry.get("message") if entry.get("type") == "message" else None
        if isinstance(message, dict) and message.get("role") == role:
            content = message.get("content")
            parts = [content] if isinstance(content, str) else [p.get("text", "") for p in content or []]
            texts.append("".join(part for part in parts if isinstance(part, str)))
    return texts


def _user_texts(request: RecordedRequest) -> list[str]:
    """The text of every user message in a chat-completions body Pi sent."""
    body = request.body if isinstance(request.body, dict) else {}
    texts = []
    for message in body.get("messages", []):
        if message.get("role") != "user":
            continue
        content = message.get("content")
        if isinstance(content, str):
            texts.append(content)
        else:
            texts.append("".join(p.get("text", "") for p in content or [] if isinstance(p, dict)))
    return texts


class ChatParties:
    """The test's side of the driver's signals: the fake model's script, its witness, Pi's files."""

    def __init__(self, model: FakeLlmServer, agent: PiAgentDir) -> None:
        self.model = model
        self.agent = agent

    def handlers(self) -> dict[str, harness.Handler]:
        return {
            "script": self.script,
            "release": lambda _: self.model.release(),
            "stream-closed": self.stream_closed,
            "pi-processes": lambda _: len(pi_processes(self.agent.path)),
            "chat-pids": lambda _: chat_pids(self.agent),
            "sessions": lambda _: self.sessions(),
        }

    def script(self, step: str) -> None:
        """Queue what the model answers in ``step`` (each step's requests come in order)."""
        if step == "stream":
            self.model.enqueue(ScriptedResponse(text=REPLY, hold_after_chunks=2, usage=STREAM_USAGE))
        elif step == "tool":
            call = {"name": "read", "arguments": {"path": "notes.txt"}, "id": "call_e2e_read"}
            self.model.enqueue(
                ScriptedResponse(tool_calls=[call], finish="tool", usage={"input": 800, "output": 15}),
                ScriptedResponse(text=TOOL_REPLY, usage=TOOL_USAGE, chunk_delay_s=0.05),
            )
        elif step == "stop":
            self.model.enqueue(ScriptedResponse(text="E2E-STOPPED essay. " * 40, hold_after_chunks=2))
        elif step == "compact":
            self.model.set_default(ScriptedResponse(text=SUMMARY))  # one or two summary requests
        elif step == "fork":
            self.model.enqueue(ScriptedResponse(text=FORK_REPLY))
        elif step == "retry":
            self.model.enqueue(ScriptedResponse(text=RETRY_REPLY))
        elif step == "reload":
            self.model.enqueue(ScriptedResponse(text=RELOAD_REPLY, hold_after_chunks=2))
        elif step == "window-reload":
            self.model.enqueue(ScriptedResponse(text=WINDOW_RELOAD_REPLY, hold_after_chunks=2))
        else:
            raise ValueError(f"no script for step {step!r}")

    def stream_closed(self, _: Any) -> bool:
        """Whether the client (Pi) closed the last, held stream: what an abort must do."""
        requests = self.model.requests
        if not requests:
            return False
        index = len(requests) - 1
        return self.model.wait_for(
            lambda rs: rs[index].client_closed or rs[index].outcome == "client-disconnected", timeout=15
        )

    def sessions(self) -> list[dict[str, Any]]:
        found = []
        for path in self.agent.session_files():
            lines = _entries(path)
            found.append(
                {
                    "path": str(path),
                    "name": path.name,
                    "types": [e.get("type") for e in lines],
                    "parentSession": lines[0].get("parentSession") if lines else None,
                }
            )
        return found


# The oldest release lacks tool durations: the view's line under the header says so (chat/capabilities.ts).
FEATURES_OFF = {OLDEST.version: "Showing how long each tool ran needs Pi 1.1.0 or newer: Pi 1.0.3 lacks"}


@pytest.fixture(params=[NEWEST.version, OLDEST.version])
def version(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture()
def out_dir(version: str) -> Iterator[Path]:
    yield harness.fresh_out(harness.OUT / ("chat" if version == NEWEST.version else f"chat-{version}"))


def test_chat_in_real_vscode_with_real_pi(tmp_path: Path, out_dir: Path, version: str) -> None:
    tools = harness.tools()
    pi = require_test_pi(version)
    rules = rules_for(pi.version)
    expect = _expectations(harness.server_features(), harness.extension_views())
    vsix = harness.build_vsix()

    with FakeLlmServer() as model:
        ws = sample_workspace.build_chat(tmp_path, model.openai_base_url)
        parties = ChatParties(model, ws.agent)
        settings = harness.pi_chat_settings(ws.agent.path, pi.argv)
        code_server = CodeServer(tools["CODE_SERVER"], tmp_path / "code-server", settings, ws.agent.env())
        code_server.install(vsix)
        try:
            url = code_server.start()
            config = harness.driver_config(
                url,
                ws.folder,
                out_dir,
                tools,
                expect,
                prompt=PROMPT,
                reply=REPLY,
                toolPrompt=TOOL_PROMPT,
                toolReply=TOOL_REPLY,
                notesLine=sample_workspace.NOTES.splitlines()[0],
                stopPrompt=STOP_PROMPT,
                compactFocus=COMPACT_FOCUS,
                pricePrompt=PRICE_PROMPT,
                forkPrompt=FORK_PROMPT,
                forkReply=FORK_REPLY,
                retryReply=RETRY_REPLY,
                reloadPrompt=RELOAD_PROMPT,
                reloadReply=RELOAD_REPLY,
                windowReloadPrompt=WINDOW_RELOAD_PROMPT,
                windowReloadReply=WINDOW_RELOAD_REPLY,
                gaugeAfterStream=STREAM_USAGE["input"] + STREAM_USAGE["output"],
                gaugeAfterTool=TOOL_USAGE["input"] + TOOL_USAGE["output"],
                window=WINDOW,
                viewport={"width": 1280, "height": 860},
                piVersion=pi.version,
                featuresOff=FEATURES_OFF.get(pi.version),
                durations=rules.has("tool-durations"),
            )
            driver = harness.run_driver(tools, "chat_driver.js", config, out_dir, parties.handlers())
        finally:
            code_server.stop()
        shutil.copy(code_server.log, out_dir / "code-server.log")
        requests = model.requests

    # No Pi (nor a tool shell of it, nor its keeper) outlives the window that started it: Pi was idle.
    left_pi, left_keepers = reap_chat_processes(ws.agent.path)
    report = harness.read_report(driver, out_dir, "VS Code chat e2e")  # a failed step first: it says why
    assert left_pi == [], "a Pi process outlived code-server"
    assert left_keepers == [], "a chat's keeper outlived code-server"
    passed = {s["name"] for s in report["steps"] if s["status"] == "passed"}
    sessions = ws.agent.session_files()
    all_entries = {path: _entries(path) for path in sessions}
    entries = [e for lines in all_entries.values() for e in lines]

    if "chat-stream" in passed:  # the typed prompt is what reached the model
        assert any(_user_texts(r)[-1:] == [PROMPT] for r in requests), [_user_texts(r) for r in requests]
    if "chat-tool" in passed:  # Pi ran read and sent the file's text back
        tool_results = [
            m
            for r in requests
            if isinstance(r.body, dict)
            for m in r.body.get("messages", [])
            if m.get("role") == "tool" and m.get("tool_call_id") == "call_e2e_read"
        ]
        assert tool_results and sample_workspace.NOTES.splitlines()[0] in str(tool_results[0]["content"])
    if "chat-stop" in passed:  # the abort reached Pi: it closed the stream and kept the partial reply
        stopped = [r for r in requests if _user_texts(r)[-1:] == [STOP_PROMPT]]
        assert stopped and stopped[0].client_closed, [(r.outcome, r.client_closed) for r in stopped]
        aborted = [e for e in entries if e.get("type") == "message" and e["message"].get("stopReason") == "aborted"]
        assert aborted, "Pi kept no aborted reply in the session"
    if "chat-compact" in passed:  # Pi wrote the compaction, from a request carrying the focus
        compactions = [e for e in entries if e.get("type") == "compaction"]
        assert compactions and SUMMARY_MARKER in compactions[-1]["summary"]
        assert any(f"Additional focus: {COMPACT_FOCUS}" in json.dumps(r.body) for r in requests)
    if "chat-fork" in passed:  # a new file whose parent is the chat's first one, continued with the edit
        forks = [p for p, lines in all_entries.items() if lines and lines[0].get("parentSession")]
        assert forks, [p.name for p in sessions]
        assert FORK_PROMPT in _message_texts(all_entries[forks[-1]], "user")
    if "chat-retry" in passed:  # the same text went to the model again, and the new reply is on a new branch
        assert sum(_user_texts(r)[-1:] == [FORK_PROMPT] for r in requests) == 2
        retried = [p for p, lines in all_entries.items() if RETRY_REPLY in _message_texts(lines, "assistant")]
        assert retried and all_entries[retried[0]][0].get("parentSession"), [p.name for p in sessions]
        assert FORK_REPLY not in _message_texts(all_entries[retried[0]], "assistant")
    if "chat-reload" in passed:  # the reply that streamed through the reload was completed and saved by Pi
        assert RELOAD_REPLY in _message_texts(entries, "assistant")
    if "chat-window-reload" in passed:  # Pi finished the reply that streamed through the window's reload
        assert WINDOW_RELOAD_REPLY in _message_texts(entries, "assistant")
        assert sum(_user_texts(r)[-1:] == [WINDOW_RELOAD_PROMPT] for r in requests) == 1  # asked once, not again
    # Every session file Pi wrote during the test loads in pi-context session without problems, and in Pi.
    for path in sessions:
        done = subprocess.run(
            [sys.executable, "-m", "lsp_server", "session", str(path), "--json"],
            capture_output=True,
            text=True,
            cwd=ROOT,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["session"]["problems"] == [], path
        before = path.read_bytes()
        held, count = _pi_resumes(pi, ws.agent, path, ws.folder)
        has_users = any(e.get("type") == "message" and e["message"]["role"] == "user" for e in all_entries[path])
        assert held == str(path) and (count > 0 or not has_users), (held, count)
        assert path.read_bytes().startswith(before), f"Pi rewrote {path} when resuming it"
    if "chat-stream" in passed:
        assert sessions, "the chat streamed a reply but Pi wrote no session file"
