"""Context from the editor and changes under control, in real VS Code with real Pi behind the chat.

code-server in headless chromium, the packaged extension, the language server it starts, Pi 1.6.0 in RPC mode and
the loopback fake model as the witness. ``chat_context_driver.js`` works the Chat view as a user would: it types
``@app`` in the input and picks ``app.py`` (a chip with its tokens), selects two lines of ``src/app.py`` and runs
*Add Selection to Chat* (a second chip), reads the line under the input (what the message adds, its price and the
cache) and sends; then a turn in which Pi edits ``notes.txt`` and writes ``CHANGELOG.md``: **Review turn's
changes** opens VS Code's multi-file diff with both files, **Undo** on the edit card puts ``notes.txt`` back (read
from disk by this test), and Undo on the write card, after this test changed ``CHANGELOG.md`` on disk, is refused
with the reason. Then this test checks what only the other parties can say: the model received the attachments as
Pi's own ``@file`` blocks (the selection with its ``lines``), and the files on disk. Screenshots at 1400×900 go to
``tests/e2e/vscode/out/chat-context/`` and, with ``PI_CONTEXT_E2E_DOC_IMAGES=1`` (for the docs),
``docs/images/chat-attach.png``, ``chat-undo.png`` and ``chat-review.png``. Runs alone:
``python -m pytest -m e2e tests/e2e/vscode/test_chat_context_e2e.py``.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from lsp_server.vocabulary.pi_releases import NEWEST
from tests.e2e.vscode import harness, sample_workspace
from tests.e2e.vscode.harness import ROOT, CodeServer
from tests.e2e.vscode.test_chat_e2e import _user_texts
from tests.support.fake_llm_server import FakeLlmServer, ScriptedResponse
from tests.support.pi_for_tests import require_test_pi
from tests.support.processes import reap_chat_processes

pytestmark = pytest.mark.e2e

CHAT_VIEW = "piContext.chat"
STEPS = (
    "ctx-view",
    "ctx-first-turn",
    "ctx-attach",
    "ctx-send",
    "ctx-edit-turn",
    "ctx-review",
    "ctx-undo",
    "ctx-undo-refused",
    "ctx-code",
)
APP = "def greet(name):\n    message = f'hello {name}'\n    return message\n\n\ndef main():\n    print(greet('pi'))\n"
FIRST_PROMPT = "E2E-FIRST: what is in this project?"
FIRST_REPLY = "E2E-FIRST-REPLY: a notes file and a small Python module."
ATTACH_PROMPT = "E2E-ATTACH: what does greet return?"
ATTACH_REPLY = "E2E-ATTACH-REPLY: greet returns the greeting it builds."
EDIT_PROMPT = "E2E-EDIT: change the tag to v2.1 and start a changelog."
EDIT_REPLY = "E2E-EDIT-REPLY: the tag is v2.1 now and CHANGELOG.md is started."
OLD_LINE = "E2E-NOTES line two: tag it v2.0."
NEW_LINE = "E2E-NOTES line two: tag it v2.1."
CODE_PROMPT = "E2E-CODE: print a long greeting."
CODE_MARKER = "E2E_CODE_" + "long_greeting_" * 12
CODE_REPLY = f"Here it is:\n\n```python\nprint('{CODE_MARKER}')\n```\n"
CHANGELOG = "# Changelog\n\n## v2.1\n- Tagged from the chat.\n"
SHOTS = {"ctx-attach": "chat-attach.png", "ctx-review": "chat-review.png", "ctx-undo-refused": "chat-undo.png"}


def _expectations(server: dict[str, Any], views: set[str]) -> dict[str, bool | str]:
    methods = harness.needs_server(server, "pi/chat/start", "pi/chat/prompt", "pi/chat/preflight")
    view: bool | str = True if CHAT_VIEW in views else f"waits for the extension's {CHAT_VIEW} view"
    chat = view if methods is True else methods
    return harness.apply_forced({"workbench": True, **{step: chat for step in STEPS}})


class Parties:
    """The test's side of the driver's signals: the model's script and the files on disk."""

    def __init__(self, model: FakeLlmServer, folder: Path) -> None:
        self.model = model
        self.folder = folder

    def handlers(self) -> dict[str, harness.Handler]:
        return {
            "script": self.script,
            "read-file": lambda name: (
                (self.folder / name).read_text(encoding="utf-8") if (self.folder / name).exists() else None
            ),
            "append-file": self.append,
        }

    def script(self, step: str) -> None:
        if step == "first":
            self.model.enqueue(ScriptedResponse(text=FIRST_REPLY, usage={"input": 700, "output": 15}))
        elif step == "attach":
            self.model.enqueue(ScriptedResponse(text=ATTACH_REPLY, usage={"input": 900, "output": 20}))
        elif step == "edit":
            edit = {
                "name": "edit",
                "arguments": {"path": "notes.txt", "edits": [{"oldText": OLD_LINE, "newText": NEW_LINE}]},
                "id": "call_e2e_edit",
            }
            write = {
                "name": "write",
                "arguments": {"path": "CHANGELOG.md", "content": CHANGELOG},
                "id": "call_e2e_write",
            }
            self.model.enqueue(
                ScriptedResponse(tool_calls=[edit, write], finish="tool", usage={"input": 1100, "output": 40}),
                ScriptedResponse(text=EDIT_REPLY, usage={"input": 1300, "output": 25}),
            )
        elif step == "code":
            self.model.enqueue(ScriptedResponse(text=CODE_REPLY))
        else:
            raise ValueError(f"no script for step {step!r}")

    def append(self, arg: dict[str, str]) -> None:
        """Someone else changes a file after Pi wrote it (Undo must then refuse)."""
        with (self.folder / arg["name"]).open("a", encoding="utf-8") as f:
            f.write(arg["text"])


def test_chat_context_and_changes_in_real_vscode(tmp_path: Path) -> None:
    tools = harness.tools()
    pi = require_test_pi(NEWEST.version)
    expect = _expectations(harness.server_features(), harness.extension_views())
    vsix = harness.build_vsix()
    out_dir = harness.fresh_out(harness.OUT / "chat-context")

    with FakeLlmServer() as model:
        ws = sample_workspace.build_chat(tmp_path, model.openai_base_url)
        (ws.folder / "src").mkdir()
        (ws.folder / "src" / "app.py").write_text(APP, encoding="utf-8")
        parties = Parties(model, ws.folder)
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
                firstPrompt=FIRST_PROMPT,
                firstReply=FIRST_REPLY,
                attachPrompt=ATTACH_PROMPT,
                attachReply=ATTACH_REPLY,
                editPrompt=EDIT_PROMPT,
                editReply=EDIT_REPLY,
                notes=sample_workspace.NOTES,
                changelog=CHANGELOG,
                codePrompt=CODE_PROMPT,
                codeMarker=CODE_MARKER,
                viewport={"width": 1400, "height": 900},
            )
            driver = harness.run_driver(tools, "chat_context_driver.js", config, out_dir, parties.handlers())
        finally:
            code_server.stop()
        shutil.copy(code_server.log, out_dir / "code-server.log")
        requests = model.requests

    left_pi, left_keepers = reap_chat_processes(ws.agent.path)
    left = left_pi + left_keepers
    report = harness.read_report(driver, out_dir, "VS Code chat context e2e")
    assert left == [], "a Pi process or keeper outlived code-server"
    passed = {s["name"] for s in report["steps"] if s["status"] == "passed"}

    if "ctx-send" in passed:  # the attachments reached the model as Pi's own @file blocks, before the text
        app = ws.folder / "src" / "app.py"
        lines = APP.split("\n")
        expected = (
            f'<file name="{app}">\n{APP}\n</file>\n'
            f'<file name="{app}" lines="2-3">\n{lines[1]}\n{lines[2]}\n</file>\n'
            f"{ATTACH_PROMPT}"
        )
        sent = [t for r in requests for t in _user_texts(r)[-1:] if t.endswith(ATTACH_PROMPT)]
        assert sent == [expected], sent
    if "ctx-undo" in passed:  # Undo put notes.txt back exactly
        assert ws.notes.read_text(encoding="utf-8") == sample_workspace.NOTES
    if "ctx-undo-refused" in passed:  # the write's file keeps what Pi wrote plus what changed after it
        assert (ws.folder / "CHANGELOG.md").read_text(encoding="utf-8").startswith(CHANGELOG)

    if os.environ.get("PI_CONTEXT_E2E_DOC_IMAGES") == "1":  # the docs' screenshots, from a run whose step passed
        for step, name in SHOTS.items():
            if step in passed and (out_dir / name).is_file():
                shutil.copy(out_dir / name, ROOT / "docs" / "images" / name)
