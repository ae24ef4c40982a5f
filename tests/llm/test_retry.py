"""Bounded retries on transient failures only, with the server's retry-after honoured up to a cap."""

from __future__ import annotations

import asyncio
import socket

from lsp_server.llm.openai_compat import OpenAiCompatClient
from lsp_server.llm.policy import RetryPolicy, Timeouts
from lsp_server.llm.types import CompletionRequest, RetryNotice
from tests.llm.conftest import FAST_RETRY, make_client
from tests.support.fake_llm_server import FakeLlmServer, ScriptedResponse

REQUEST = CompletionRequest.single_prompt("s", "p")
HANG_GUARD_S = 30  # only stops a broken test from hanging; no assertion depends on time


async def test_server_error_is_retried_then_reported(server: FakeLlmServer, wire: str) -> None:
    server.enqueue(*[ScriptedResponse(status=500, body={"error": {"message": "boom"}})] * 3)
    async with make_client(wire, server) as client:
        reply = await client.complete(REQUEST)
    assert (reply.stop_reason, reply.error_message, reply.text) == ("error", "500 boom", "")
    assert reply.attempts == len(server.requests) == 1 + FAST_RETRY.max_retries


async def test_server_error_then_success_returns_the_success(server: FakeLlmServer, wire: str) -> None:
    server.enqueue(ScriptedResponse(status=503), ScriptedResponse(text="fine"))
    async with make_client(wire, server) as client:
        reply = await client.complete(REQUEST)
    assert (reply.text, reply.stop_reason, reply.attempts) == ("fine", "stop", 2)


async def test_rate_limit_waits_the_retry_after_then_succeeds(server: FakeLlmServer, wire: str) -> None:
    server.enqueue(ScriptedResponse(status=429, retry_after=0.05), ScriptedResponse(text="after wait"))
    notices: list[RetryNotice] = []
    async with make_client(wire, server) as client:
        reply = await client.complete(REQUEST, on_retry=notices.append)
    assert reply.text == "after wait"
    assert [(n.attempt, n.delay_s) for n in notices] == [(1, 0.05)]


async def test_retry_after_beyond_the_cap_fails_without_waiting(server: FakeLlmServer) -> None:
    server.enqueue(ScriptedResponse(status=429, retry_after=3600))
    async with make_client("openai", server) as client:
        reply = await asyncio.wait_for(client.complete(REQUEST), HANG_GUARD_S)
    assert reply.stop_reason == "error"
    assert "retry after 3600s" in (reply.error_message or "")
    assert len(server.requests) == 1


async def test_exhausted_quota_429_is_not_retried(server: FakeLlmServer) -> None:
    body = {"error": {"message": "You exceeded your current quota", "code": "insufficient_quota"}}
    server.enqueue(ScriptedResponse(status=429, body=body))
    async with make_client("openai", server) as client:
        reply = await client.complete(REQUEST)
    assert (reply.error_message, len(server.requests)) == ("429 You exceeded your current quota", 1)


async def test_client_errors_are_not_retried(server: FakeLlmServer, wire: str) -> None:
    server.enqueue(ScriptedResponse(status=400, body={"error": {"message": "bad request"}}))
    async with make_client(wire, server) as client:
        reply = await client.complete(REQUEST)
    assert (reply.error_message, len(server.requests)) == ("400 bad request", 1)


async def test_dropped_connection_mid_stream_is_retried_from_scratch(server: FakeLlmServer, wire: str) -> None:
    server.enqueue(
        ScriptedResponse(text="partial text here", chunks=["partial ", "text here"], drop_after_chunks=1),
        ScriptedResponse(text="complete text"),
    )
    notices: list[RetryNotice] = []
    async with make_client(wire, server) as client:
        reply = await client.complete(REQUEST, on_retry=notices.append)
    assert server.requests[0].outcome == "dropped"
    assert (reply.text, reply.attempts, len(notices)) == ("complete text", 2, 1)


async def test_dropped_connection_without_retries_left_is_an_error_without_partial_text(
    server: FakeLlmServer, wire: str
) -> None:
    server.enqueue(ScriptedResponse(text="partial text", chunks=["partial ", "text"], drop_after_chunks=1))
    async with make_client(wire, server, retry=RetryPolicy(max_retries=0)) as client:
        reply = await client.complete(REQUEST)
    assert (reply.stop_reason, reply.text) == ("error", "")
    assert reply.error_message is not None and reply.error_message.startswith("Connection error")


async def test_refused_connection_is_retried_then_reported() -> None:
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    client = OpenAiCompatClient(base_url=f"http://127.0.0.1:{port}/v1", model="m", retry=FAST_RETRY)
    async with client:
        reply = await client.complete(REQUEST)
    assert reply.stop_reason == "error"
    assert (reply.error_message or "").startswith("Connection error")
    assert reply.attempts == 1 + FAST_RETRY.max_retries


async def test_stalled_stream_hits_the_read_idle_limit(server: FakeLlmServer, wire: str) -> None:
    server.enqueue(
        ScriptedResponse(text="never", stall_after_chunks=0), ScriptedResponse(text="x", stall_after_chunks=0)
    )
    timeouts = Timeouts(connect_s=5, read_idle_s=0.2, total_s=60)
    async with make_client(
        wire, server, timeouts=timeouts, retry=RetryPolicy(max_retries=1, base_delay_s=0.01)
    ) as client:
        reply = await asyncio.wait_for(client.complete(REQUEST), HANG_GUARD_S)
    assert (reply.stop_reason, reply.error_message, reply.attempts) == (
        "error",
        "Request timed out: no data for 0.2s (the idle limit; raise summarizer.timeoutSeconds or --timeout)",
        2,
    )


async def test_total_time_limit_bounds_the_whole_call(server: FakeLlmServer) -> None:
    server.enqueue(ScriptedResponse(text="never", stall_after_chunks=0))
    timeouts = Timeouts(connect_s=5, read_idle_s=20, total_s=0.3)
    async with make_client("openai", server, timeouts=timeouts) as client:
        reply = await asyncio.wait_for(client.complete(REQUEST), HANG_GUARD_S)
    assert (reply.error_message, reply.attempts) == (
        "Request timed out after 0.3s (the deadline for the whole call, retries and waits included; "
        "raise summarizer.deadlineSeconds or --deadline)",
        1,
    )


async def test_anthropic_overloaded_error_event_is_retried(server: FakeLlmServer) -> None:
    server.enqueue(
        ScriptedResponse(text="", error_event={"type": "overloaded_error", "message": "Overloaded"}),
        ScriptedResponse(text="recovered"),
    )
    async with make_client("anthropic", server) as client:
        reply = await client.complete(REQUEST)
    assert (reply.text, reply.attempts) == ("recovered", 2)


async def test_invalid_request_error_event_is_not_retried(server: FakeLlmServer) -> None:
    server.enqueue(
        ScriptedResponse(text="", error_event={"type": "invalid_request_error", "message": "prompt too long"})
    )
    async with make_client("anthropic", server) as client:
        reply = await client.complete(REQUEST)
    assert (reply.stop_reason, reply.error_message, reply.attempts) == ("error", "prompt too long", 1)


async def test_openai_error_chunk_mid_stream_is_an_error(server: FakeLlmServer) -> None:
    server.enqueue(ScriptedResponse(text="some", error_event={"message": "Provider returned error", "code": 400}))
    async with make_client("openai", server, retry=RetryPolicy(max_retries=0)) as client:
        reply = await client.complete(REQUEST)
    assert (reply.stop_reason, reply.error_message, reply.text) == ("error", "Provider returned error", "")
