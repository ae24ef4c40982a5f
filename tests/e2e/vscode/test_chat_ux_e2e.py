"""The chat's place, names and keys in real VS Code, with real Pi behind it (issue 24).

code-server (VS Code 1.139) in headless chromium, the packaged extension, the language server it starts, Pi 1.6.0
in RPC mode and the loopback fake model. ``chat_ux_driver.js`` checks, as a user would:

* **layout**: ``Ctrl+Alt+P`` opens the chat in a container of its own, *Pi Chat*, in the secondary side bar;
  the primary side bar's *Pi Context* container holds Context and Sessions and not the chat;
* **keys**: ``Ctrl+Enter`` sends, ``Ctrl+Escape`` stops a reply (the model's stream is closed),
  ``Ctrl+N`` starts a new chat, ``Ctrl+Alt+H`` opens Chat History;
* **names**: the header names the conversation by its first message; clicking it renames it (Pi writes the
  ``session_info`` entry); the new name is in the header, the Sessions view, Chat History (found by a word of the
  first message) and ``/resume``;
* **the lens**: one line under the title with the gauge, the next request's price and the cache, which opens the
  Context view;
* screenshots at 1400x900 in the light, dark and high-contrast themes, with the slash menu's selected row
  (copied to ``docs/images/chat-layout-{light,dark,hc}.png`` when ``PI_CONTEXT_E2E_DOC_IMAGES=1``).

Then the test checks what only the other parties can say: the prompt sent with Ctrl+Enter reached the model, the
stopped stream was closed by Pi, and the renamed session's last ``session_info`` entry is the name, written by Pi.
Runs alone: ``python -m pytest -m e2e tests/e2e/vscode/test_chat_ux_e2e.py``.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from lsp_server.vocabulary.pi_releases import NEWEST
from tests.e2e.vscode import harness, sample_workspace
from tests.e2e.vscode.harness import ROOT, CodeServer
from tests.support.fake_llm_server import FakeLlmServer, ScriptedResponse
from tests.support.pi_agent import PiAgentDir
from tests.support.pi_for_tests import require_test_pi
from tests.support.processes import reap_chat_processes

pytestmark = pytest.mark.e2e

STEPS = (
    "ux-layout",
    "ux-send-ctrl-enter",
    "ux-lens",
    "ux-rename",
    "ux-sessions-view",
    "ux-history",
    "ux-resume",
    "ux-stop-key",
    "ux-new-chat-key",
    "ux-themes",
)
PROMPT = "E2E-UX-PROMPT: plan the release checklist for Friday"
REPLY = "E2E-UX-REPLY: the checklist has four items; tag v2.0 last."
STOP_PROMPT = "E2E-UX-STOP: write a very long essay about release trains."
NAME = "Release plan"
THEMES = {"light": "Default Light Modern", "dark": "Default Dark Modern", "hc": "Default High Contrast"}
IMAGES = ROOT / "docs" / "images"


class Parties:
    """The test's side of the driver's signals: the model's script and its witness."""

    def __init__(self, model: FakeLlmServer, agent: PiAgentDir) -> None:
        self.model = model
        self.agent = agent

    def handlers(self) -> dict[str, harness.Handler]:
        return {
            "script": self.script,
            "release": lambda _: self.model.release(),
            "stream-closed": self.stream_closed,
        }

    def script(self, step: str) -> None:
        if step == "reply":
            self.model.enqueue(ScriptedResponse(text=REPLY, usage={"input": 1500, "output": 40}))
        elif step == "held":
            self.model.enqueue(ScriptedResponse(text="E2E-UX-STOPPED essay. " * 40, hold_after_chunks=2))
        else:
            raise ValueError(f"no script for step {step!r}")

    def stream_closed(self, _: Any) -> bool:
        index = len(self.model.requests) - 1
        return index >= 0 and self.model.wait_for(
            lambda rs: rs[index].client_closed or rs[index].outcome == "client-disconnected", timeout=15
        )


def _entries(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _user_texts(body: Any) -> list[str]:
    texts = []
    for message in body.get("messages", []) if isinstance(body, dict) else []:
        if message.get("role") == "user":
            content = message.get("content")
            parts = [content] if isinstance(content, str) else [p.get("text", "") for p in content or []]
            texts.append("".join(p for p in parts if isinstance(p, str)))
    return texts


def test_chat_layout_names_and_keys_in_real_vscode(tmp_path: Path) -> None:
    tools = harness.tools()
    pi = require_test_pi(NEWEST.version)
    needs = harness.needs_server(harness.server_features(), "pi/chat/start", "pi/sessionRename", "pi/sessions")
    expect = harness.apply_forced({"workbench": True, **{step: needs for step in STEPS}})
    vsix = harness.build_vsix()
    out_dir = harness.fresh_out(harness.OUT / "chat-ux")

    with FakeLlmServer() as model:
        ws = sample_workspace.build_chat(tmp_path, model.openai_base_url)
        settings = harness.pi_chat_settings(ws.agent.path, pi.argv)
        code_server = CodeServer(tools["CODE_SERVER"], tmp_path / "code-server", settings, ws.agent.env())
        parties = Parties(model, ws.agent)
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
                stopPrompt=STOP_PROMPT,
                name=NAME,
                historyWord="checklist",
                viewport={"width": 1400, "height": 900},
            )
            driver = harness.run_driver(tools, "chat_ux_driver.js", config, out_dir, parties.handlers())
        finally:
            code_server.stop()
        shutil.copy(code_server.log, out_dir / "code-server.log")
        requests = model.requests

    left_pi, left_keepers = reap_chat_processes(ws.agent.path)
    left = left_pi + left_keepers
    report = harness.read_report(driver, out_dir, "VS Code chat layout, names and keys e2e")
    assert left == [], "a Pi process or keeper outlived code-server"
    passed = {s["name"] for s in report["steps"] if s["status"] == "passed"}

    if "ux-send-ctrl-enter" in passed:  # the prompt sent with Ctrl+Enter is what reached the model
        assert any(_user_texts(r.body)[-1:] == [PROMPT] for r in requests)
    if "ux-rename" in passed:  # Pi wrote the name into the session it holds
        named = [p for p in ws.agent.session_files() if any(e.get("type") == "session_info" for e in _entries(p))]
        assert named, [p.name for p in ws.agent.session_files()]
        infos = [e for e in _entries(named[0]) if e.get("type") == "session_info"]
        assert infos[-1]["name"] == NAME
        assert PROMPT in json.dumps(_entries(named[0]))
    if "ux-stop-key" in passed:  # Ctrl+Escape reached Pi: it closed the held stream
        stopped = [r for r in requests if _user_texts(r.body)[-1:] == [STOP_PROMPT]]
        assert stopped and stopped[0].client_closed, [(r.outcome, r.client_closed) for r in stopped]
    if "ux-themes" in passed and os.environ.get("PI_CONTEXT_E2E_DOC_IMAGES") == "1":  # the README's screenshots
        for theme in THEMES:
            shot = next(out_dir.glob(f"*-chat-layout-{theme}.png"))
            shutil.copy(shot, IMAGES / f"chat-layout-{theme}.png")
