"""Helpers for the tests of pi-context's custom methods: notifications, saves, the domain's own answer.

The domain answer is computed in the test process with the same HOME, agent dir and (absent) ``PI_*``
variables the server sees, so a test compares the server's numbers with the domain's, not with
numbers copied into the test.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types

from lsp_server.project.project import ProjectInputs, open_project
from lsp_server.project.prompt_state import PromptSnapshot, build_prompt
from tests.lsp.conftest import Session, Workspace, plain

SECTIONS_CHANGED = "pi/promptSectionsChanged"
SESSION_CHANGED = "pi/sessionChanged"
EXAMPLE_SESSION = Path(__file__).resolve().parents[2] / "examples" / "sessions" / "inventory-fix.jsonl"


def record(session: Session, *methods: str) -> None:
    """Keep every notification of ``methods`` in ``session.client.received`` (as plain JSON)."""
    for method in methods:

        def handler(ls: Any, params: Any, method: str = method) -> None:
            ls.received[method].append(plain(params))

        session.client.feature(method)(handler)


def received(session: Session, method: str) -> list[dict[str, Any]]:
    return list(session.client.received[method])


async def prompt_state(session: Session) -> dict[str, Any]:
    """Per cwd: builds, notifications, skill cache use, once every pending job is done."""
    result: dict[str, Any] = await session.command("pi.debug.promptState", {"idle": True})
    return result


def save(session: Session, path: Path, text: str) -> None:
    """What an editor does on save: the file is written, then ``didSave`` is sent."""
    path.write_text(text, encoding="utf-8")
    session.client.text_document_did_save(
        types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=session.workspace.uri(path)))
    )


def isolate(monkeypatch: pytest.MonkeyPatch, workspace: Workspace) -> None:
    """Give the test process the server's environment (HOME, agent dir, no other PI_* variables)."""
    for key in list(os.environ):
        if key.startswith("PI_"):
            monkeypatch.delenv(key)
    monkeypatch.setenv("HOME", str(workspace.home))
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(workspace.agent_dir))


def domain_prompt(workspace: Workspace, cwd: Path | None = None) -> PromptSnapshot:
    """The domain's prompt for the folder (call :func:`isolate` first)."""
    inputs = ProjectInputs(
        cwd=str(cwd or workspace.root), agent_dir=str(workspace.agent_dir), env=os.environ, home=str(workspace.home)
    )
    return build_prompt(open_project(inputs))


def install_session(workspace: Workspace, source: Path = EXAMPLE_SESSION, cwd: Path | None = None) -> Path:
    """Copy a session into Pi's session folder for the workspace, its header's cwd set to the workspace."""
    folder_cwd = str(cwd or workspace.root)
    encoded = "--" + folder_cwd.lstrip("/").replace("/", "-") + "--"
    target = workspace.agent_dir / "sessions" / encoded / source.name
    target.parent.mkdir(parents=True, exist_ok=True)
    lines = source.read_text(encoding="utf-8").splitlines(keepends=True)
    header = json.loads(lines[0])
    header["cwd"] = folder_cwd
    target.write_text(json.dumps(header, separators=(",", ":")) + "\n" + "".join(lines[1:]), encoding="utf-8")
    return target
