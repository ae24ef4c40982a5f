"""Start, capabilities and a clean exit, for each recorded client."""

from __future__ import annotations

import asyncio

from lsprotocol import types

from lsp_server import __version__
from tests.lsp.conftest import Launch


async def test_initialize_answers_name_version_and_incremental_sync(launch: Launch, client_name: str) -> None:
    session = await launch(client_name)
    result = session.initialize_result
    assert result.server_info is not None
    assert (result.server_info.name, result.server_info.version) == ("pi-context", __version__)
    sync = result.capabilities.text_document_sync
    assert isinstance(sync, types.TextDocumentSyncOptions)
    assert sync.change == types.TextDocumentSyncKind.Incremental
    assert sync.open_close is True


async def test_initialize_advertises_pull_diagnostics(launch: Launch, client_name: str) -> None:
    session = await launch(client_name)
    provider = session.initialize_result.capabilities.diagnostic_provider
    assert isinstance(provider, types.DiagnosticOptions)
    assert provider.identifier == "pi-context"
    assert provider.inter_file_dependencies is False


async def test_debug_commands_are_listed_only_in_debug_mode(launch: Launch) -> None:
    debug = await launch(debug=True)
    quiet = await launch(debug=False)
    debug_provider = debug.initialize_result.capabilities.execute_command_provider
    assert debug_provider is not None
    assert "pi.debug.state" in debug_provider.commands
    quiet_provider = quiet.initialize_result.capabilities.execute_command_provider
    assert quiet_provider is None or not any(c.startswith("pi.debug.") for c in quiet_provider.commands)


async def test_shutdown_then_exit_ends_the_process_with_status_0(launch: Launch, client_name: str) -> None:
    session = await launch(client_name)
    await session.client.shutdown_session()
    server = session.client._server
    assert server is not None
    assert server.returncode == 0


async def test_workspace_folders_from_initialize_become_roots(launch: Launch, client_name: str) -> None:
    session = await launch(client_name)
    state = await session.state()
    assert state["roots"] == [str(session.workspace.root)]
    assert state["agentDir"] == str(session.workspace.agent_dir)


async def test_the_server_exits_when_the_client_goes_away(launch: Launch) -> None:
    session = await launch()
    await session.state(watcherReady=True)  # the watcher thread is running
    process = session.client._server
    assert process is not None and process.stdin is not None
    process.stdin.close()
    assert await asyncio.wait_for(process.wait(), 30) == 0
