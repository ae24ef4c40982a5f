"""Prompt work someone waits for goes before the workspace's background checks.

In a workspace of 20,000 skills the workspace check runs thousands of checks in worker threads,
and every thread shares one core with the prompt build (Python). A check of the workspace check
(``background``) therefore waits while a prompt build runs or is scheduled, or a request holds
``projects.foreground()``; a check for an edit does not wait. The server object here is the real one,
with a pygls workspace and a writer that keeps what would be sent.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from pygls.workspace import Workspace

from lsp_server.server.app import PiLanguageServer
from lsp_server.server.create import create_server


class _Sent:
    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []

    def write(self, data: bytes) -> None:
        self.messages.append(json.loads(data.split(b"\r\n\r\n", 1)[1]))

    def close(self) -> None:
        pass


def _server() -> tuple[PiLanguageServer, _Sent]:
    server = create_server(debug=False)
    server.protocol._workspace = Workspace(None)
    sent = _Sent()
    server.protocol.set_writer(sent)
    return server, sent


def _skill(tmp_path: Path) -> str:
    path = tmp_path / ".pi" / "skills" / "a" / "SKILL.md"
    path.parent.mkdir(parents=True)
    path.write_text("---\nname: a\n---\nbody\n", encoding="utf-8")  # no description: a finding
    return str(path)


def test_a_background_check_waits_for_prompt_work_and_an_edits_check_does_not(tmp_path: Path) -> None:
    path = _skill(tmp_path)

    async def scenario() -> None:
        server, sent = _server()
        async with server.ws.projects.foreground():
            background = asyncio.ensure_future(server.ws.check_now(path, background=True))
            edit = await server.ws.check_now(path)  # an editor waits for this one: it does not hold back
            assert [finding.code for finding in edit.findings][:1] == ["skill/description-missing"]
            for _ in range(20):
                await asyncio.sleep(0)
            assert not background.done()  # still waiting: the prompt work is not over
        entry = await asyncio.wait_for(background, 30)
        assert entry.findings == edit.findings
        assert [message["method"] for message in sent.messages] == ["textDocument/publishDiagnostics"]

    asyncio.run(scenario())


def test_a_scheduled_prompt_refresh_counts_until_it_has_run(tmp_path: Path) -> None:
    """A folder's refresh is prompt work from when it is scheduled (several asks count once) to its end."""
    path = _skill(tmp_path)

    async def scenario() -> None:
        server, _ = _server()
        projects = server.ws.projects
        state = projects.state(str(tmp_path))
        projects._schedule(state)
        projects._schedule(state)  # asked again before it ran: still one piece of work
        background = asyncio.ensure_future(server.ws.check_now(path, background=True))
        await asyncio.wait_for(projects.foreground_done(), 30)  # the refresh ran (a real build of the folder)
        assert state.builds == 1
        await asyncio.wait_for(background, 30)
        assert projects.no_foreground.is_set()

    asyncio.run(scenario())
