"""What goes over the wire: endpoint, headers, body, and never anything that enables caching."""

from __future__ import annotations

from typing import Any

from lsp_server.llm.openai_compat import to_openai_messages
from lsp_server.llm.types import CompletionRequest
from lsp_server.redaction import Secret
from tests.llm.conftest import KEY, deep_keys, make_client
from tests.support.fake_llm_server import FakeLlmServer, ScriptedResponse

REQUEST = CompletionRequest.single_prompt("SYSTEM TEXT", "PROMPT TEXT", session_id="0190-session")
CACHE_FIELDS = {"cache_control", "prompt_cache_key", "prompt_cache_retention", "cacheRetention"}


async def test_openai_request_has_system_message_stream_usage_and_bearer_key(server: FakeLlmServer) -> None:
    server.enqueue(ScriptedResponse(text="ok"))
    async with make_client("openai", server) as client:
        await client.complete(REQUEST)
    sent = server.requests[0]
    assert sent.path == "/v1/chat/completions"
    assert sent.body == {
        "model": "test-model",
        "messages": [{"role": "system", "content": "SYSTEM TEXT"}, {"role": "user", "content": "PROMPT TEXT"}],
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    assert server.received_key(0, KEY)
    assert sent.headers["authorization"] == "<redacted>"


async def test_anthropic_request_has_top_level_system_default_cap_and_version(server: FakeLlmServer) -> None:
    server.enqueue(ScriptedResponse(text="ok"))
    async with make_client("anthropic", server) as client:
        await client.complete(REQUEST)
    sent = server.requests[0]
    assert sent.path == "/v1/messages"
    assert sent.body == {
        "model": "test-model",
        "max_tokens": 16384,
        "messages": [{"role": "user", "content": [{"type": "text", "text": "PROMPT TEXT"}]}],
        "stream": True,
        "system": "SYSTEM TEXT",
    }
    assert sent.headers["anthropic-version"] == "2023-06-01"
    assert sent.headers["x-api-key"] == "<redacted>"
    assert server.received_key(0, KEY)


async def test_summary_requests_carry_no_caching_fields(server: FakeLlmServer, wire: str) -> None:
    server.enqueue(ScriptedResponse(text="ok"))
    async with make_client(wire, server) as client:
        await client.complete(REQUEST)
    assert not deep_keys(server.requests[0].body) & CACHE_FIELDS
    assert "0190-session" not in str(server.requests[0].body)


async def test_request_model_overrides_the_configured_model(server: FakeLlmServer, wire: str) -> None:
    server.enqueue(ScriptedResponse(text="ok"))
    async with make_client(wire, server) as client:
        reply = await client.complete(CompletionRequest.single_prompt("s", "p", model="other-model"))
    assert server.requests[0].body["model"] == "other-model"
    assert reply.model == "other-model"


async def test_openai_cap_uses_max_tokens_for_compatible_servers(server: FakeLlmServer) -> None:
    server.enqueue(ScriptedResponse(text="ok"), ScriptedResponse(text="ok"))
    async with make_client("openai", server) as client:
        await client.complete(CompletionRequest.single_prompt("s", "p", max_tokens=500, temperature=0.0))
    async with make_client("openai", server, max_tokens_field="max_completion_tokens") as client:
        await client.complete(CompletionRequest.single_prompt("s", "p", max_tokens=500))
    first, second = (r.body for r in server.requests)
    assert (first["max_tokens"], first["temperature"], "max_completion_tokens" in first) == (500, 0.0, False)
    assert (second["max_completion_tokens"], "max_tokens" in second) == (500, False)


async def test_openai_without_key_sends_no_authorization(server: FakeLlmServer) -> None:
    server.enqueue(ScriptedResponse(text="ok"))
    async with make_client("openai", server, api_key=None) as client:
        await client.complete(REQUEST)
    assert "authorization" not in server.requests[0].headers


async def test_openai_reasoning_effort_only_for_reasoning_models(server: FakeLlmServer) -> None:
    server.enqueue(ScriptedResponse(text="ok"), ScriptedResponse(text="ok"))
    request = CompletionRequest.single_prompt("s", "p", reasoning="high")
    async with make_client("openai", server) as client:
        await client.complete(request)
    async with make_client("openai", server, reasoning=True) as client:
        await client.complete(request)
    plain, reasoning = (r.body for r in server.requests)
    assert "reasoning_effort" not in plain
    assert reasoning["reasoning_effort"] == "high"


async def test_openai_session_affinity_header_is_opt_in(server: FakeLlmServer) -> None:
    server.enqueue(ScriptedResponse(text="ok"), ScriptedResponse(text="ok"))
    async with make_client("openai", server) as client:
        await client.complete(REQUEST)
    async with make_client("openai", server, session_affinity_headers=True) as client:
        await client.complete(REQUEST)
    off, on = server.requests
    assert "x-session-affinity" not in off.headers
    assert on.headers["x-session-affinity"] == "0190-session"


async def test_anthropic_thinking_budget_keeps_room_for_the_answer(server: FakeLlmServer) -> None:
    server.enqueue(ScriptedResponse(text="ok"), ScriptedResponse(text="ok"))
    async with make_client("anthropic", server, reasoning=True) as client:
        await client.complete(CompletionRequest.single_prompt("s", "p", reasoning="medium", temperature=0.5))
        await client.complete(CompletionRequest.single_prompt("s", "p", reasoning="xhigh", max_tokens=2000))
    default_cap, explicit = (r.body for r in server.requests)
    assert (default_cap["max_tokens"], default_cap["thinking"]) == (16384, {"type": "enabled", "budget_tokens": 8192})
    assert "temperature" not in default_cap
    assert (explicit["max_tokens"], explicit["thinking"]["budget_tokens"]) == (2000 + 16384, 16384)


async def test_anthropic_key_header_is_x_api_key(server: FakeLlmServer) -> None:
    server.enqueue(ScriptedResponse(text="ok"))
    async with make_client("anthropic", server, api_key=Secret("another-key-123")) as client:
        await client.complete(REQUEST)
    assert server.received_key(0, "another-key-123")
    assert "authorization" not in server.requests[0].headers


def test_openai_messages_carry_tool_calls_and_results() -> None:
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]},
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "hmm"},
                {"type": "text", "text": "reading"},
                {"type": "toolCall", "id": "c1", "name": "read", "arguments": {"path": "x"}},
            ],
        },
        {"role": "toolResult", "toolCallId": "c1", "content": [{"type": "text", "text": "X"}]},
    ]
    assert to_openai_messages(messages) == [
        {"role": "user", "content": "ab"},
        {
            "role": "assistant",
            "content": "reading",
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "read", "arguments": '{"path": "x"}'}}
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "X"},
    ]
