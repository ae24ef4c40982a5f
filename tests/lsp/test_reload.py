"""pi.reloadWorkspace re-checks everything, including what changed while nobody watched."""

from __future__ import annotations

from lsprotocol import types

from tests.lsp.conftest import Launch, Session

BROKEN = "---\nname: demo\n---\n"


def codes(session: Session, uri: str) -> list[str]:
    return sorted(str(d.code) for d in session.client.diagnostics.get(uri, []))


async def test_reload_finds_changes_made_while_watching_was_off(launch: Launch, client_name: str) -> None:
    session = await launch(client_name, init_options={"watch": False})
    await session.state(idle=True)
    path = session.workspace.write(".pi/skills/demo/SKILL.md", BROKEN)
    answer = await session.command("pi.reloadWorkspace")
    assert answer["roots"] == [str(session.workspace.root)]
    assert answer["watching"] == []
    assert answer["files"] == 1
    uri = session.workspace.uri(path)
    await session.wait_for(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS, lambda: codes(session, uri) != [])
    path.unlink()
    await session.command("pi.reloadWorkspace")
    await session.wait_for(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS, lambda: codes(session, uri) == [])
