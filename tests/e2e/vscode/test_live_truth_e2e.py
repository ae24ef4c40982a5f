"""Issue 19 in real VS Code: what the views say about the running Pi is true, as a user sees it (code-server,
headless chromium, the extension, the language server it starts, Pi 1.6.0, the loopback fake model as witness).

``live_driver.js`` repeats the six things the issue saw, in one window, as a user would:

1. ``live-banner``: AGENTS.md saved during a chat. The chat says Pi keeps the prompt it read, with **Reload
   Pi**; the Context view's banner prices the next request once and does not claim Pi records the change; the
   next request Pi sends (the witness) has the old prompt, and after Reload Pi the new one.
2. ``live-compact``: Pi's ``compaction.keepRecentTokens`` changed while Pi runs. ``/compact`` says what Pi says
   (nothing to compact), once; after Reload Pi the preview and Pi's compaction agree.
3. ``live-numbers``: the chat's gauge, the Context view's headline and the status bar show one figure, while
   a reply streams right after the compaction, after it, and after a window reload; the System prompt row
   stays the same over turns of an unchanged prompt.
4. ``live-no-pi``: the window starts with no Pi to find. The notice names ``piContext.pi.command`` and where a
   machine setting lives; once the setting names Pi, the chat starts it, and the notice goes (no restart).
5. ``live-stop``: a steering message queued while Pi works, then Stop. The queue is cleared and its text
   comes back into the input; the next, unrelated prompt reaches the model without it.
6. ``live-trust``: the project has a ``.pi/skills`` skill Pi leaves out (RPC mode, no saved decision).
   **Trust Project**, refused first (nothing changes), then confirmed: Pi's trust.json holds the folder, a new
   Pi loads the skill, and the model receives it.

The test then reads the output channel's log: server lines at their own level, no traceback for an
expected condition, no "Cancel notification for unknown message id". Screenshots (1400x900):
``tests/e2e/vscode/out/live/``; the ones docs/chat.md shows are copied to ``docs/images/issue19-*.png``
when ``PI_CONTEXT_E2E_DOC_IMAGES=1``. Runs alone: ``python -m pytest -m e2e tests/e2e/vscode/test_live_truth_e2e.py``.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.vscode import harness
from tests.e2e.vscode.harness import ROOT, CodeServer
from tests.support.fake_llm_server import FakeLlmServer, RecordedRequest, ScriptedResponse
from tests.support.pi_agent import PiAgentDir, write_agent_dir
from tests.support.pi_for_tests import require_test_pi
from tests.support.processes import reap_chat_processes

pytestmark = pytest.mark.e2e

STEPS = ("live-no-pi", "live-trust", "live-banner", "live-compact", "live-numbers", "live-stop")
RATES = {"input": 3, "output": 15, "cacheRead": 0.3, "cacheWrite": 3.75}
AGENTS_V1 = "# Release rules\n\n- Answer in one short paragraph.\n"
AGENTS_V2_LINE = "- E2E-AGENTS-V2: name the owner of every step."
SKILL_DESCRIPTION = "E2E-SKILL: cuts a release of this project."
STEER = "E2E-STEER: go another way"
ANSWER = "E2E-ANSWER: the release is on Friday, once the checklist is done and every item reviewed. " * 3
SUMMARY = "## Goal\nE2E-LIVE-SUMMARY: the release questions.\n"
USAGE = {"input": 2600, "output": 120}
DOC_IMAGES = {
    "issue19-1-banner": "issue19-1-saved-agents-md.png",
    "issue19-2-compact-refused": "issue19-2-compact-settings.png",
    "issue19-3-numbers": "issue19-3-one-figure.png",
    "issue19-4-no-pi": "issue19-4-no-pi.png",
    "issue19-5-stop": "issue19-5-stop-gives-back.png",
    "issue19-6-trust": "issue19-6-trust-project.png",
}


def build_workspace(root: Path, model_url: str) -> tuple[Path, PiAgentDir]:
    folder = root / "release-project"
    skill = folder / ".pi" / "skills" / "release" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text(f'---\nname: release\ndescription: "{SKILL_DESCRIPTION}"\n---\nSteps.\n', encoding="utf-8")
    (folder / "AGENTS.md").write_text(AGENTS_V1, encoding="utf-8")
    (folder / "notes.txt").write_text("The release is on Friday.\n", encoding="utf-8")
    agent = write_agent_dir(
        root / "agent",
        model_url,
        settings={"defaultProvider": "fake", "compaction": {"keepRecentTokens": 20000}},
        model_fields={"cost": RATES, "promptCache": {"short": 300}},
    )
    return folder.resolve(), agent


def system_prompt(request: RecordedRequest) -> str:
    first = request.body["messages"][0] if isinstance(request.body, dict) else {}
    content = first.get("content")
    return content if isinstance(content, str) else "".join(p.get("text", "") for p in content or [])


def user_texts(request: RecordedRequest) -> list[str]:
    body = request.body if isinstance(request.body, dict) else {}
    texts = []
    for message in body.get("messages", []):
        if message.get("role") == "user":
            content = message.get("content")
            texts.append(content if isinstance(content, str) else "".join(p.get("text", "") for p in content or []))
    return texts


class Parties:
    """The test's side: the model's script and witness, Pi's settings file, the window's machine settings."""

    def __init__(self, model: FakeLlmServer, agent: PiAgentDir, code_server: CodeServer, settings: dict[str, Any]):
        self.model = model
        self.agent = agent
        self.code_server = code_server
        self.settings = settings
        self.marks: dict[str, int] = {}

    def handlers(self) -> dict[str, harness.Handler]:
        return {
            "set-pi-command": self.set_pi_command,
            "script": self.script,
            "release": lambda _: self.model.release(),
            "mark": self.mark,
            "requests-since": self.requests_since,
            "pi-settings": self.pi_settings,
            "trust-store": lambda _: self.trust_store(),
        }

    def set_pi_command(self, command: str) -> None:
        """What a user does in the Settings editor's Remote tab: the machine settings of this remote window."""
        machine = self.code_server.state / "ud" / "Machine" / "settings.json"
        machine.write_text(json.dumps({**self.settings, "piContext.pi.command": command}, indent=2))

    def script(self, step: str) -> None:
        if step == "held":
            self.model.enqueue(ScriptedResponse(text=ANSWER, hold_after_chunks=2, usage=USAGE))
        elif step == "answer":
            self.model.enqueue(ScriptedResponse(text=ANSWER, usage=USAGE))
        elif step == "summary":
            self.model.set_default(ScriptedResponse(text=SUMMARY, usage={"input": 900, "output": 40}))
        else:
            raise ValueError(f"no script for {step!r}")

    def mark(self, name: str) -> int:
        self.marks[name] = len(self.model.requests)
        return self.marks[name]

    def requests_since(self, name: str) -> list[dict[str, Any]]:
        """The requests Pi sent since ``mark(name)``: their system prompt and user texts (the witness)."""
        self.model.wait_for(lambda rs: True, timeout=1)
        return [
            {"system": system_prompt(r), "users": user_texts(r)} for r in self.model.requests[self.marks.get(name, 0) :]
        ]

    def pi_settings(self, compaction: dict[str, Any]) -> None:
        self.agent.write_settings({"defaultProvider": "fake", "compaction": compaction})

    def trust_store(self) -> Any:
        path = self.agent.path / "trust.json"
        return json.loads(path.read_text(encoding="utf-8")) if path.exists() else None


def output_channel_log(state: Path) -> str:
    """The extension's output channel ("Pi Context") as code-server wrote it to its logs."""
    found = sorted(state.rglob("*Pi Context*.log"), key=lambda p: p.stat().st_mtime)
    return "\n".join(path.read_text(encoding="utf-8", errors="replace") for path in found)


@pytest.fixture()
def out_dir() -> Iterator[Path]:
    yield harness.fresh_out(harness.OUT / "live")


def test_the_views_tell_the_truth_about_the_running_pi(tmp_path: Path, out_dir: Path) -> None:
    tools = harness.tools()
    pi = require_test_pi()
    server = harness.server_features()
    ready = harness.needs_server(server, "pi/chat/reload", "pi/chat/trust", "pi/chat/clearQueue")
    expect = harness.apply_forced({"workbench": True, **{step: ready for step in STEPS}})
    vsix = harness.build_vsix()

    with FakeLlmServer() as model:
        folder, agent = build_workspace(tmp_path, model.openai_base_url)
        settings = harness.pi_chat_settings(agent.path, pi.argv)
        pi_command = settings.pop("piContext.pi.command")
        settings.pop("piContext.trust")  # the window decides trust as Pi does
        settings["piContext.pi.command"] = ""  # 4: no Pi to find (it is not on this machine's PATH)
        code_server = CodeServer(tools["CODE_SERVER"], tmp_path / "code-server", settings, agent.env())
        code_server.install(vsix)
        parties = Parties(model, agent, code_server, settings)
        try:
            url = code_server.start()
            config = harness.driver_config(
                url,
                folder,
                out_dir,
                tools,
                expect,
                piCommand=pi_command,
                agentsV2Line=AGENTS_V2_LINE,
                steer=STEER,
                answer=ANSWER,
                skillDescription=SKILL_DESCRIPTION,
                viewport={"width": 1400, "height": 900},
            )
            driver = harness.run_driver(tools, "live_driver.js", config, out_dir, parties.handlers())
        finally:
            code_server.stop()
        shutil.copy(code_server.log, out_dir / "code-server.log")
        log = output_channel_log(code_server.state)
        (out_dir / "pi-context-output.log").write_text(log, encoding="utf-8")
        requests = model.requests

    reap_chat_processes(agent.path)
    report = harness.read_report(driver, out_dir, "VS Code: issue 19, the views tell the truth")
    passed = {s["name"] for s in report["steps"] if s["status"] == "passed"}

    if "live-trust" in passed:
        store = json.loads((agent.path / "trust.json").read_text(encoding="utf-8"))
        assert store == {str(folder): True}
        assert any(SKILL_DESCRIPTION in system_prompt(r) for r in requests)
    if "live-stop" in passed:
        after_stop = [r for r in requests if user_texts(r)[-1:] == ["E2E-AFTER-STOP: an unrelated question."]]
        assert after_stop and all(STEER not in " ".join(user_texts(r)) for r in after_stop)
    if os.environ.get("PI_CONTEXT_E2E_DOC_IMAGES") == "1":
        for shot in out_dir.glob("*.png"):
            stem = shot.stem.split("-", 1)[-1]
            if stem in DOC_IMAGES:
                shutil.copy(shot, ROOT / "docs" / "images" / DOC_IMAGES[stem])

    # 7. The output channel: levels kept (nothing went wrong, so nothing is an error), no traceback for an
    #    expected condition (Pi's refusal to compact), no late-cancel warnings, each server message once.
    lines = log.splitlines()
    assert "Cancel notification for unknown message id" not in log
    assert "Traceback" not in log, log[-3000:]
    assert not [line for line in lines if "[error]" in line], [line for line in lines if "[error]" in line][:5]
    started = [line for line in lines if "folder(s), watching" in line]
    assert started and all("[info]" in line for line in started), started[:3]
    assert len(started) == 2, started  # once per server (the window reloaded once), not doubled by stderr
