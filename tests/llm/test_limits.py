"""Bounded model calls: what a reply may cost in memory and time, whatever the server does (issue 18 item 2).

The red team's servers, real on 127.0.0.1: one that floods deltas as fast as the socket takes them,
one that trickles a word at a time (never silent long enough for the idle limit), one that accepts
the request and never answers, a socket that listens and never accepts, a line that never ends, an
event whose data lines never end, a non-streamed body too big to hold. Each ends the attempt with a
sentence that names the limit it met; a flood and an unreadable reply are not retried.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Iterator

import pytest

from lsp_server.llm.openai_compat import OpenAiCompatClient
from lsp_server.llm.policy import (
    MAX_LINE_CHARS,
    RetryPolicy,
    Timeouts,
    deadline_message,
    idle_message,
    line_too_long_message,
    output_cap,
    too_long_message,
)
from lsp_server.llm.summarizer_config import SummarizerConfig
from lsp_server.llm.types import CompletionRequest
from lsp_server.settings.pi_context import SummarizerSettings
from lsp_server.settings.summarizer import config_from_model_arg, config_from_settings, with_time_limits
from lsp_server.vocabulary.providers import DEFAULT_MAX_TOKENS
from tests.llm.conftest import make_client
from tests.support.fake_llm_server import FakeLlmServer, ScriptedResponse

REQUEST = CompletionRequest.single_prompt("s", "p")
HANG_GUARD_S = 60  # only stops a broken test from hanging; no assertion depends on time
NO_RETRY = RetryPolicy(max_retries=0)


def words(count: int) -> list[str]:
    return [f"word{n} " for n in range(count)]


async def test_a_flood_stops_at_the_output_cap_and_is_not_retried(server: FakeLlmServer, wire: str) -> None:
    server.enqueue(ScriptedResponse(text="start ", flood_chars=20_000_000))
    async with make_client(wire, server) as client:
        reply = await asyncio.wait_for(client.complete(REQUEST), HANG_GUARD_S)
    cap = output_cap(DEFAULT_MAX_TOKENS)
    assert (reply.stop_reason, reply.text, reply.attempts) == ("error", "", 1)
    assert reply.error_message == too_long_message(cap, DEFAULT_MAX_TOKENS)
    # The client stopped reading: the server never got to the end of its flood.
    assert server.wait_for(lambda requests: requests[0].outcome == "client-disconnected", timeout=HANG_GUARD_S)
    assert server.requests[0].flooded < 20_000_000


async def test_the_cap_follows_the_requests_own_output_limit(server: FakeLlmServer, wire: str) -> None:
    request = CompletionRequest.single_prompt("s", "p", max_tokens=100)  # 1,600 characters
    server.enqueue(ScriptedResponse(text="x" * 1_500), ScriptedResponse(text="y" * 1_700))
    async with make_client(wire, server) as client:
        within = await client.complete(request)
        beyond = await client.complete(request)
    assert (within.stop_reason, len(within.text)) == ("stop", 1_500)
    assert (beyond.stop_reason, beyond.error_message) == ("error", too_long_message(1_600, 100))


async def test_a_line_that_never_ends_is_not_held(server: FakeLlmServer, wire: str) -> None:
    server.enqueue(ScriptedResponse(text="a", raw_tail="data: " + "x" * (MAX_LINE_CHARS + 100)))
    async with make_client(wire, server, retry=NO_RETRY) as client:
        reply = await asyncio.wait_for(client.complete(REQUEST), HANG_GUARD_S)
    assert (reply.stop_reason, reply.error_message) == ("error", line_too_long_message())


async def test_an_event_whose_data_lines_never_end_is_not_held(server: FakeLlmServer, wire: str) -> None:
    lines = "data: " + "z" * 1000 + "\n"
    server.enqueue(ScriptedResponse(text="a", raw_tail=lines * (MAX_LINE_CHARS // 1000 + 10)))
    async with make_client(wire, server, retry=NO_RETRY) as client:
        reply = await asyncio.wait_for(client.complete(REQUEST), HANG_GUARD_S)
    assert (reply.stop_reason, reply.error_message) == ("error", line_too_long_message())


async def test_a_body_too_big_to_hold_is_not_read_whole(server: FakeLlmServer, wire: str) -> None:
    server.enqueue(ScriptedResponse(text="b" * (MAX_LINE_CHARS + 10), non_streaming=True))
    async with make_client(wire, server, retry=NO_RETRY) as client:
        reply = await asyncio.wait_for(client.complete(REQUEST), HANG_GUARD_S)
    assert (reply.stop_reason, reply.error_message) == ("error", line_too_long_message())


async def test_a_silent_server_costs_one_idle_limit_per_attempt(server: FakeLlmServer, wire: str) -> None:
    server.enqueue(ScriptedResponse(silent=True), ScriptedResponse(silent=True))
    timeouts = Timeouts(connect_s=5, read_idle_s=0.3, total_s=60)
    retry = RetryPolicy(max_retries=1, base_delay_s=0.01)
    async with make_client(wire, server, timeouts=timeouts, retry=retry) as client:
        reply = await asyncio.wait_for(client.complete(REQUEST), HANG_GUARD_S)
    assert (reply.error_message, reply.attempts) == (idle_message(0.3), 2)
    assert [r.outcome for r in server.requests] == ["stalled", "stalled"]  # the requests did arrive


@pytest.fixture
def never_accepting() -> Iterator[int]:
    """A port whose socket listens (the kernel completes the handshake) but is never accepted from."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        yield listener.getsockname()[1]


async def test_a_socket_that_listens_and_never_accepts_meets_the_idle_limit(never_accepting: int) -> None:
    timeouts = Timeouts(connect_s=5, read_idle_s=0.3, total_s=60)
    async with OpenAiCompatClient(
        base_url=f"http://127.0.0.1:{never_accepting}/v1", model="m", timeouts=timeouts, retry=NO_RETRY
    ) as client:
        reply = await asyncio.wait_for(client.complete(REQUEST), HANG_GUARD_S)
    assert (reply.stop_reason, reply.error_message) == ("error", idle_message(0.3))


async def test_a_trickle_never_silent_long_enough_for_the_idle_limit_meets_the_deadline(
    server: FakeLlmServer, wire: str
) -> None:
    server.enqueue(ScriptedResponse(chunks=words(400), chunk_delay_s=0.05))  # 20 s of words
    timeouts = Timeouts(connect_s=5, read_idle_s=5, total_s=1)
    async with make_client(wire, server, timeouts=timeouts) as client:
        reply = await asyncio.wait_for(client.complete(REQUEST), HANG_GUARD_S)
    assert (reply.stop_reason, reply.error_message, reply.attempts) == ("error", deadline_message(1), 1)
    assert server.requests[0].chunks_sent < 400


async def test_the_deadline_bounds_the_retries_of_a_silent_server_too(server: FakeLlmServer) -> None:
    server.set_default(ScriptedResponse(silent=True))
    timeouts = Timeouts(connect_s=5, read_idle_s=0.4, total_s=1.0)
    retry = RetryPolicy(max_retries=10, base_delay_s=0.01)
    async with make_client("openai", server, timeouts=timeouts, retry=retry) as client:
        reply = await asyncio.wait_for(client.complete(REQUEST), HANG_GUARD_S)
    assert reply.stop_reason == "error" and reply.attempts < 11
    assert reply.error_message in (idle_message(0.4), deadline_message(1.0))


def test_the_defaults_bound_a_call_well_under_the_old_ten_minutes() -> None:
    assert SummarizerConfig().timeouts == Timeouts(connect_s=10, read_idle_s=30, total_s=120)
    assert Timeouts() == SummarizerConfig().timeouts
    settings = SummarizerSettings()
    assert (settings.timeout_seconds, settings.deadline_seconds) == (30, 120)


def test_settings_and_flags_set_the_idle_limit_and_the_deadline() -> None:
    settings = SummarizerSettings.model_validate(
        {"mode": "endpoint", "url": "http://127.0.0.1:1/v1", "model": "m", "timeoutSeconds": 7, "deadlineSeconds": 9}
    )
    config = config_from_settings(settings)
    assert (config.read_idle_timeout_s, config.total_timeout_s) == (7, 9)
    other = config_from_model_arg("anthropic/claude", settings, env={})  # another wire format: the limits hold
    assert not isinstance(other, str) and (other.read_idle_timeout_s, other.total_timeout_s) == (7, 9)
    flagged = with_time_limits(config, idle_s=None, deadline_s=3)
    assert (flagged.read_idle_timeout_s, flagged.total_timeout_s) == (7, 3)
