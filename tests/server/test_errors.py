"""The handler guard: failures are logged and answered, never raised into pygls' loop."""

from __future__ import annotations

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcInternalError, JsonRpcRequestCancelled

from lsp_server.server.errors import describe_failure, guard, is_notification


class Sink:
    """Collects what would be sent as window/logMessage."""

    def __init__(self) -> None:
        self.logged: list[types.LogMessageParams] = []

    def window_log_message(self, params: types.LogMessageParams) -> None:
        self.logged.append(params)


def boom(ls: Sink, value: int) -> int:
    raise ValueError(f"bad value {value}")


def test_lsp_notifications_are_told_apart_from_requests() -> None:
    assert is_notification(types.TEXT_DOCUMENT_DID_CHANGE)
    assert is_notification(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    assert not is_notification(types.TEXT_DOCUMENT_HOVER)
    assert not is_notification("pi/systemPrompt")  # custom methods are requests


def test_failing_request_is_logged_and_answered_with_an_internal_error() -> None:
    sink = Sink()
    with pytest.raises(JsonRpcInternalError) as raised:
        guard(boom, what="textDocument/hover", request=True)(sink, 3)
    assert raised.value.message == "ValueError: bad value 3"
    assert [m.type for m in sink.logged] == [types.MessageType.Error]
    assert sink.logged[0].message.startswith("textDocument/hover failed: ValueError: bad value 3\n")


def test_failing_notification_is_logged_and_swallowed() -> None:
    sink = Sink()
    assert guard(boom, what="textDocument/didOpen", request=False)(sink, 1) is None
    assert len(sink.logged) == 1


async def test_async_handlers_are_guarded_too() -> None:
    async def async_boom(ls: Sink) -> None:
        raise KeyError("k")

    sink = Sink()
    with pytest.raises(JsonRpcInternalError):
        await guard(async_boom, what="pi/x", request=True)(sink)
    assert len(sink.logged) == 1


def test_deliberate_json_rpc_errors_pass_through_unlogged() -> None:
    def cancelled(ls: Sink) -> None:
        raise JsonRpcRequestCancelled("stop")

    sink = Sink()
    with pytest.raises(JsonRpcRequestCancelled):
        guard(cancelled, what="cmd", request=True)(sink)
    assert sink.logged == []


def test_guard_keeps_the_signature_pygls_reads() -> None:
    wrapped = guard(boom, what="x", request=True)
    assert wrapped.__wrapped__ is boom  # type: ignore[attr-defined]
    assert wrapped.__name__ == "boom"


def test_failure_text_names_the_handler_and_the_innermost_frame() -> None:
    try:
        boom(Sink(), 7)
    except ValueError as exc:
        text = describe_failure("command pi.x", exc)
    assert text.splitlines()[0] == "command pi.x failed: ValueError: bad value 7"
    assert "in boom" in text
