"""Cancelling stops the HTTP stream at once and never returns partial text as a success."""

from __future__ import annotations

import asyncio

import pytest

from lsp_server.llm.client import CancelToken
from lsp_server.llm.policy import RetryPolicy
from lsp_server.llm.types import ABORTED_MESSAGE, CompletionRequest
from tests.llm.conftest import make_client
from tests.support.fake_llm_server import FakeLlmServer, RecordedRequest, ScriptedResponse

REQUEST = CompletionRequest.single_prompt("s", "p")
HANG_GUARD_S = 30
SLOW = ScriptedResponse(text="x" * 400, chunks=["x"] * 400, chunk_delay_s=0.05)  # 20 s if nobody stops it


def disconnected(requests: list[RecordedRequest]) -> bool:
    return bool(requests) and requests[0].outcome == "client-disconnected"


async def test_cancel_token_mid_stream_returns_aborted_and_closes_the_stream(server: FakeLlmServer, wire: str) -> None:
    server.enqueue(SLOW)
    token = CancelToken()

    def on_delta(chars: int) -> None:
        if chars >= 3:
            token.cancel()

    async with make_client(wire, server) as client:
        reply = await asyncio.wait_for(client.complete(REQUEST, cancel=token, on_text_delta=on_delta), HANG_GUARD_S)
    assert (reply.stop_reason, reply.text, reply.error_message) == ("aborted", "", ABORTED_MESSAGE)
    assert server.wait_for(disconnected)
    assert server.requests[0].chunks_sent < server.requests[0].chunks_planned


async def test_cancelled_token_sends_nothing(server: FakeLlmServer) -> None:
    token = CancelToken()
    token.cancel()
    async with make_client("openai", server) as client:
        reply = await client.complete(REQUEST, cancel=token)
    assert (reply.stop_reason, reply.attempts, server.requests) == ("aborted", 0, [])


async def test_cancel_during_retry_backoff_returns_aborted(server: FakeLlmServer) -> None:
    server.enqueue(ScriptedResponse(status=500))
    token = CancelToken()
    retry = RetryPolicy(max_retries=3, base_delay_s=30, max_delay_s=30)  # within the 60 s total limit
    async with make_client("openai", server, retry=retry) as client:
        reply = await asyncio.wait_for(
            client.complete(REQUEST, cancel=token, on_retry=lambda notice: token.cancel()), HANG_GUARD_S
        )
    assert (reply.stop_reason, reply.attempts, len(server.requests)) == ("aborted", 1, 1)


async def test_cancelling_the_task_propagates_and_closes_the_stream(server: FakeLlmServer, wire: str) -> None:
    server.enqueue(SLOW)
    started = asyncio.Event()
    async with make_client(wire, server) as client:
        task = asyncio.ensure_future(client.complete(REQUEST, on_text_delta=lambda chars: started.set()))
        await asyncio.wait_for(started.wait(), HANG_GUARD_S)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
    assert server.wait_for(disconnected)
    assert server.requests[0].chunks_sent < server.requests[0].chunks_planned
