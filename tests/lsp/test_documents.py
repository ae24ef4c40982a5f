"""Open buffers are the truth for their files; closing hands a file back to the disk."""

from __future__ import annotations

from lsprotocol import types

from tests.lsp.conftest import Launch


async def test_open_buffer_wins_over_disk(launch: Launch, client_name: str) -> None:
    session = await launch(client_name)
    path = session.workspace.write("AGENTS.md", "on disk\n")
    session.open(path, "in the editor\n")
    seen = await session.command("pi.debug.read", session.workspace.uri(path))
    assert (seen["text"], seen["version"], seen["fromBuffer"]) == ("in the editor\n", 1, True)


async def test_incremental_changes_are_applied_to_the_buffer(launch: Launch, client_name: str) -> None:
    session = await launch(client_name)
    path = session.workspace.write("AGENTS.md", "")
    session.open(path, "hello world\n")
    uri = session.workspace.uri(path)
    session.client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[
                types.TextDocumentContentChangePartial(
                    range=types.Range(start=types.Position(0, 6), end=types.Position(0, 11)), text="pi"
                )
            ],
        )
    )
    seen = await session.command("pi.debug.read", uri)
    assert (seen["text"], seen["version"]) == ("hello pi\n", 2)


async def test_closed_file_is_read_from_disk_again(launch: Launch, client_name: str) -> None:
    session = await launch(client_name)
    path = session.workspace.write("SKILL.md", "saved\n")
    session.open(path, "unsaved edit\n")
    session.close(path)
    seen = await session.command("pi.debug.read", session.workspace.uri(path))
    assert (seen["text"], seen["version"], seen["fromBuffer"]) == ("saved\n", None, False)
    assert (await session.state())["openDocuments"] == []
