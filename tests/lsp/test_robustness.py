"""A failing handler or a bad request costs one answer, never the server."""

from __future__ import annotations

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInternalError, JsonRpcMethodNotFound

from tests.lsp.conftest import Launch


async def test_a_handler_that_raises_answers_an_error_and_the_server_keeps_working(
    launch: Launch, client_name: str
) -> None:
    session = await launch(client_name)
    with pytest.raises(JsonRpcInternalError, match="RuntimeError: disk on fire"):
        await session.command("pi.debug.fail", "disk on fire")
    errors = [m for m in session.client.log_messages if m.type == types.MessageType.Error]
    assert any(m.message.startswith("command pi.debug.fail failed: RuntimeError: disk on fire") for m in errors)
    assert (await session.state())["roots"] == [str(session.workspace.root)]


async def test_an_unknown_method_is_answered_method_not_found(launch: Launch) -> None:
    session = await launch()
    with pytest.raises(JsonRpcMethodNotFound):
        await session.client.protocol.send_request_async("pi/noSuchMethod", {})
    assert "roots" in await session.state()


async def test_an_unknown_command_and_bad_arguments_are_answered_not_fatal(launch: Launch) -> None:
    session = await launch()
    with pytest.raises(JsonRpcException, match="is not defined"):
        await session.command("pi.noSuchCommand")
    with pytest.raises(JsonRpcException, match="Expected 1 arguments, got 2"):
        await session.command("pi.debug.read", "a", "b")
    assert "roots" in await session.state()


async def test_a_folder_where_a_file_was_expected_reads_as_an_error_value(launch: Launch) -> None:
    session = await launch()
    folder = session.workspace.root / "AGENTS.md"
    folder.mkdir()
    seen = await session.command("pi.debug.read", session.workspace.uri(folder))
    assert seen["text"] is None
    assert seen["error"].startswith("EISDIR")


async def test_custom_request_params_arrive_as_plain_json(launch: Launch) -> None:
    session = await launch()
    answer = await session.client.protocol.send_request_async("pi/debug/echo", {"a-b": [1, {"c": None}]})
    assert answer.type == "dict"  # pygls' default would hand the server a lossy namedtuple
