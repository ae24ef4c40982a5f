"""Changes on disk reach the server through the watcher, for files no editor has open."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lsprotocol import types

from tests.lsp.conftest import Launch, Session, plain

WATCH_EVENTS = "pi/debug/watchEvents"


def reported(session: Session) -> list[dict[str, Any]]:
    return [plain(params) for params in session.client.received[WATCH_EVENTS]]


def reported_paths(session: Session) -> set[str]:
    return {path for batch in reported(session) for kind in batch.values() for path in kind}


async def wait_for_path(session: Session, path: Path) -> None:
    await session.wait_for(WATCH_EVENTS, lambda: str(path) in reported_paths(session))


async def ready(session: Session) -> None:
    state = await session.state(watcherReady=True)
    assert state["watcher"]["ready"]


async def test_a_never_opened_file_changed_on_disk_is_reported(launch: Launch, client_name: str) -> None:
    session = await launch(client_name)
    await ready(session)
    path = session.workspace.write(".pi/skills/demo/SKILL.md", "---\nname: demo\n---\n")
    await wait_for_path(session, path)
    assert any(str(path) in batch["added"] + batch["modified"] for batch in reported(session))


async def test_a_deleted_file_is_reported_as_deleted(launch: Launch, client_name: str) -> None:
    session = await launch(client_name)
    path = session.workspace.write("AGENTS.md", "rules\n")
    await ready(session)
    path.unlink()
    await wait_for_path(session, path)
    assert any(str(path) in batch["deleted"] for batch in reported(session))


async def test_disk_changes_to_an_open_file_are_ignored(launch: Launch, client_name: str) -> None:
    session = await launch(client_name)
    open_file = session.workspace.write("AGENTS.md", "v1\n")
    session.open(open_file, "editor text\n")
    await ready(session)
    open_file.write_text("changed behind the editor's back\n", encoding="utf-8")
    marker = session.workspace.write("CLAUDE.md", "written after\n")
    await wait_for_path(session, marker)
    assert str(open_file) not in reported_paths(session)
    seen = await session.command("pi.debug.read", session.workspace.uri(open_file))
    assert seen["text"] == "editor text\n"


async def test_the_agent_dir_is_watched_too(launch: Launch) -> None:
    session = await launch()
    await ready(session)
    settings = session.workspace.agent_dir / "settings.json"
    settings.write_text("{}\n", encoding="utf-8")
    await wait_for_path(session, settings)


async def test_an_added_workspace_folder_is_watched(launch: Launch, client_name: str) -> None:
    session = await launch(client_name)
    await ready(session)
    extra = session.workspace.root.parent / "second"
    extra.mkdir()
    session.client.workspace_did_change_workspace_folders(
        types.DidChangeWorkspaceFoldersParams(
            event=types.WorkspaceFoldersChangeEvent(
                added=[types.WorkspaceFolder(uri=session.workspace.uri(extra), name="second")], removed=[]
            )
        )
    )
    state = await session.state(watcherReady=True)
    assert str(extra) in state["watcher"]["roots"]
    path = extra / "AGENTS.md"
    path.write_text("second folder\n", encoding="utf-8")
    await wait_for_path(session, path)
