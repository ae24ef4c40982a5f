"""Cancel tokens and long operations (the LSP side is in tests/lsp/test_progress.py)."""

from __future__ import annotations

import asyncio
import threading

import pytest
from pygls.exceptions import JsonRpcRequestCancelled

from lsp_server.server.progress import long_operation
from lsp_server.workspace.cancellation import CancelRegistry, CancelToken, OperationCancelled

WAIT_S = 30.0


def test_token_is_set_once_and_keeps_the_first_reason() -> None:
    token = CancelToken()
    assert token.cancel("by user") is True
    assert token.cancel("again") is False
    assert (token.cancelled, token.reason) == (True, "by user")


def test_callbacks_run_on_cancel_or_at_once_when_already_cancelled() -> None:
    token = CancelToken()
    calls: list[str] = []
    token.on_cancel(lambda: calls.append("early"))
    token.cancel()
    token.on_cancel(lambda: calls.append("late"))
    assert calls == ["early", "late"]


def test_raise_if_cancelled_stops_loops_that_do_not_await() -> None:
    token = CancelToken()
    token.raise_if_cancelled()
    token.cancel("enough")
    with pytest.raises(OperationCancelled, match="enough"):
        token.raise_if_cancelled()


def test_worker_threads_wake_up_when_cancelled() -> None:
    token = CancelToken()
    woke = threading.Event()

    def worker() -> None:
        if token.wait(WAIT_S):
            woke.set()

    thread = threading.Thread(target=worker)
    thread.start()
    token.cancel()
    thread.join(WAIT_S)
    assert woke.is_set()


def test_registry_finds_tokens_by_request_and_progress_token_while_tracked() -> None:
    registry = CancelRegistry()
    token = CancelToken()
    with registry.track(token, request_id=7, progress_token="p"):
        assert registry.active() == 1
        assert registry.cancel_progress("p") is True
    assert token.cancelled
    assert registry.active() == 0
    assert registry.cancel_request(7) is False


async def test_operation_that_finishes_answers_normally() -> None:
    registry = CancelRegistry()
    async with long_operation("work", registry=registry, progress=None, request_id=1) as operation:
        await asyncio.sleep(0)
    assert not operation.cancelled
    assert registry.active() == 0


async def test_cancel_by_request_id_interrupts_the_await_and_answers_request_cancelled() -> None:
    registry = CancelRegistry()
    started = asyncio.Event()

    async def command() -> str:
        async with long_operation("compact", registry=registry, progress=None, request_id=42):
            started.set()
            await asyncio.sleep(WAIT_S)  # a slow model call
        return "finished"

    task = asyncio.create_task(command())
    await asyncio.wait_for(started.wait(), WAIT_S)
    assert registry.cancel_request(42)
    with pytest.raises(JsonRpcRequestCancelled, match="compact: cancelled by the client"):
        await asyncio.wait_for(task, WAIT_S)


async def test_cancel_from_another_thread_reaches_the_task() -> None:
    registry = CancelRegistry()
    started = threading.Event()

    async def command() -> None:
        async with long_operation("summary", registry=registry, progress=None, progress_token="tok") as operation:
            # blocking work in a thread, polling the token as real summarizers do
            await operation.run_in_thread(lambda: (started.set(), operation.token.wait(WAIT_S)))
            await asyncio.sleep(WAIT_S)

    task = asyncio.create_task(command())
    await asyncio.get_running_loop().run_in_executor(None, started.wait, WAIT_S)
    threading.Thread(target=registry.cancel_progress, args=("tok",)).start()
    with pytest.raises(JsonRpcRequestCancelled):
        await asyncio.wait_for(task, WAIT_S)


async def test_a_failure_inside_the_operation_propagates_unchanged() -> None:
    registry = CancelRegistry()
    with pytest.raises(ValueError, match="no model"):
        async with long_operation("compact", registry=registry, progress=None):
            raise ValueError("no model")
    assert registry.active() == 0
