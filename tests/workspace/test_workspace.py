"""The workspace without pygls: a client that keeps what it is told, the real checker, projects and watcher-free events.

The LSP binding is one client of :class:`Workspace`; this one is a list. What the language server does
for an editor (findings published, a prompt change announced) happens here the same way, which is
what lets the application layer be tested, and reasoned about, apart from LSP.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from lsp_server import protocol_names
from lsp_server.workspace.cancellation import CancelToken, Operation
from lsp_server.workspace.client import LogLevel
from lsp_server.workspace.diagnostics import FileDiagnostics
from lsp_server.workspace.events import DiskChanged
from lsp_server.workspace.workspace import Workspace


class ListClient:
    """The workspace's client as lists: what an editor would have been sent."""

    def __init__(self) -> None:
        self.notes: list[tuple[str, Any]] = []
        self.published: list[FileDiagnostics] = []
        self.logs: list[tuple[LogLevel, str]] = []

    def notify(self, method: str, params: Any) -> None:
        self.notes.append((method, params))

    def publish(self, entry: FileDiagnostics) -> None:
        self.published.append(entry)

    def log(self, message: str, level: LogLevel = "info") -> None:
        self.logs.append((level, message))

    def log_failure(self, what: str, exc: BaseException) -> None:
        self.logs.append(("error", f"{what}: {exc}"))

    @asynccontextmanager
    async def long_operation(
        self, title: str, *, cancellable: bool = True, message: str | None = None
    ) -> AsyncIterator[Operation]:
        yield Operation(None, None, CancelToken())

    def uri_for(self, path: str) -> str:
        return f"file://{path}"

    def folder_uri(self, root: str) -> str:
        return f"file://{root}"

    def path_of(self, uri: str) -> str | None:
        return uri.removeprefix("file://") if uri.startswith("file://") else None

    def folders(self) -> list[str]:
        return []

    def refresh_code_lenses(self) -> None:
        pass


def _workspace(tmp_path: Path) -> tuple[Workspace, ListClient]:
    client = ListClient()
    home = tmp_path / "home"
    home.mkdir()
    ws = Workspace(client, env={"HOME": str(home), "PI_CODING_AGENT_DIR": str(home / "agent")})
    ws.init_options = {"piContext": {"trust": "trusted", "watch": False}}
    ws.roots = [str(tmp_path / "project")]
    (tmp_path / "project").mkdir()
    return ws, client


def test_an_open_buffer_is_checked_and_its_findings_published(tmp_path: Path) -> None:
    ws, client = _workspace(tmp_path)
    skill = tmp_path / "project" / ".pi" / "skills" / "a" / "SKILL.md"

    async def scenario() -> None:
        await ws.apply_settings(None, initial=True)
        ws.documents.open(str(skill), f"file://{skill}", "---\nname: a\n---\nbody\n", 1)  # no description
        entry = await ws.check_now(str(skill))
        assert [finding.code for finding in entry.findings][:1] == ["skill/description-missing"]

    asyncio.run(scenario())
    assert [entry.path for entry in client.published] == [str(skill)]


def test_a_saved_context_file_is_announced_as_a_prompt_change(tmp_path: Path) -> None:
    ws, client = _workspace(tmp_path)
    agents = tmp_path / "project" / "AGENTS.md"
    agents.write_text("# Rules\n", encoding="utf-8")

    async def scenario() -> None:
        await ws.apply_settings(None, initial=True)
        ws.ready.set()
        await ws.start()  # the folder's first prompt: the baseline, nothing sent
        await asyncio.wait_for(ws.scheduler.idle(), 30)
        agents.write_text("# Rules\n\n- Small functions.\n", encoding="utf-8")
        ws.emit(DiskChanged((str(agents),)))
        await asyncio.wait_for(ws.scheduler.idle(), 30)

    asyncio.run(scenario())
    changes = [params for method, params in client.notes if method == protocol_names.PROMPT_SECTIONS_CHANGED]
    assert len(changes) == 1 and changes[0]["triggerPaths"] == [str(agents)]


def test_the_workspace_imports_neither_pygls_nor_lsprotocol() -> None:
    code = "import json, sys; import lsp_server.workspace.workspace; print(json.dumps(sorted(sys.modules)))"
    loaded = json.loads(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)
    assert [name for name in loaded if name.split(".")[0] in ("pygls", "lsprotocol")] == []
