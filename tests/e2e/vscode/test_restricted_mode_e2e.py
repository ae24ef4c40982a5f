"""Restricted Mode in real VS Code: an untrusted folder gets no Pi from the Chat view, and the rest still works.

code-server runs with workspace trust on (``CodeServer(trust=True)``) and a fresh profile, so the folder
opens untrusted, with no startup dialog. The folder is the chat's sample project plus a broken
``SKILL.md``, and the real Pi 1.6.0 is configured exactly as in ``test_chat_e2e.py``
(``piContext.pi.command``, a machine setting, with the loopback fake model as its only model), so that
nothing but the workspace's trust keeps the chat from starting it. ``restricted_driver.js`` checks that
VS Code says Restricted Mode; that the broken SKILL.md gets its diagnostic and the Context view its budget;
that the Chat view (``data-testid=chat-root`` in ``data-state=untrusted``) shows the sentence saying the
chat needs a trusted workspace and the **Manage Workspace Trust** button (``chat-untrusted``,
``chat-manage-trust``) with its input disabled, while no Pi process runs for the test's agent dir; then
it clicks that button, which opens VS Code's trust editor, clicks **Trust**, and checks that the chat starts
Pi (``idle``, the header naming Pi's model, a Pi process). Afterwards the model has received no request
(Pi was started, never prompted), and no Pi is left once code-server has stopped.

Screenshots: ``tests/e2e/vscode/out/restricted/``. Runs alone:
``python -m pytest -m e2e tests/e2e/vscode/test_restricted_mode_e2e.py``.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.vscode import harness, sample_workspace
from tests.e2e.vscode.harness import CodeServer
from tests.support.fake_llm_server import FakeLlmServer
from tests.support.pi_for_tests import require_test_pi
from tests.support.processes import pi_processes, reap_chat_processes

pytestmark = pytest.mark.e2e

OUT = "restricted"
SKILL_REL = f".pi/skills/{sample_workspace.SKILL_NAME}/SKILL.md"


def untrusted_text() -> str:
    """The Chat view's Restricted Mode sentence, as the extension defines it (``UNTRUSTED_TEXT``)."""
    source = (harness.EXTENSION / "src" / "chat" / "messages.ts").read_text(encoding="utf-8")
    found = re.search(r"export const UNTRUSTED_TEXT = '([^']+)';", source)
    assert found, "UNTRUSTED_TEXT not found in src/chat/messages.ts"
    return found.group(1)


@pytest.fixture()
def out_dir() -> Iterator[Path]:
    yield harness.fresh_out(harness.OUT / OUT)


def test_restricted_mode_in_real_vscode(tmp_path: Path, out_dir: Path) -> None:
    tools = harness.tools()
    pi = require_test_pi()
    views = harness.extension_views()
    chat: bool | str = True if "piContext.chat" in views else "waits for the extension's piContext.chat view"
    expect = harness.apply_forced({"workbench": True, "context": True, "chat-untrusted": chat, "grant-trust": chat})
    vsix = harness.build_vsix()

    with FakeLlmServer() as model:
        ws = sample_workspace.build_chat(tmp_path, model.openai_base_url)
        skill = ws.folder / SKILL_REL
        skill.parent.mkdir(parents=True)
        skill.write_text(sample_workspace.BROKEN_SKILL, encoding="utf-8")
        settings = harness.pi_chat_settings(ws.agent.path, pi.argv)
        code_server = CodeServer(tools["CODE_SERVER"], tmp_path / "code-server", settings, ws.agent.env(), trust=True)
        code_server.install(vsix)
        try:
            url = code_server.start()
            config = harness.driver_config(
                url,
                ws.folder,
                out_dir,
                tools,
                expect,
                skillRelPath=SKILL_REL,
                untrustedText=untrusted_text(),
                viewport={"width": 1280, "height": 860},
            )
            handlers: dict[str, harness.Handler] = {"pi-processes": lambda _: len(pi_processes(ws.agent.path))}
            driver = harness.run_driver(tools, "restricted_driver.js", config, out_dir, handlers)
        finally:
            code_server.stop()
        shutil.copy(code_server.log, out_dir / "code-server.log")
        requests = model.requests

    # The Pi started after trust was granted was idle: it ends with its window.
    left_pi, left_keepers = reap_chat_processes(ws.agent.path)
    left = left_keepers + left_pi
    harness.read_report(driver, out_dir, "VS Code Restricted Mode e2e")  # a failed step first: it says why
    assert left == [], "a Pi process or keeper outlived code-server"
    assert requests == [], "the model was asked something: the chat was only to start Pi, never to prompt it"
