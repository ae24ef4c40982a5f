"""Streaming replies in both wire formats become one AssistantReply in Pi's vocabulary."""

from __future__ import annotations

from lsp_server.llm.http_client import HttpLlmClient
from lsp_server.llm.types import CompletionRequest, Usage
from tests.llm.conftest import make_client
from tests.support.fake_llm_server import FakeLlmServer, ScriptedResponse

REQUEST = CompletionRequest.single_prompt("You summarize.", "Summarize this.")


async def test_streamed_text_is_assembled_from_deltas(server: FakeLlmServer, client: HttpLlmClient) -> None:
    server.enqueue(ScriptedResponse(text="Hello world", chunks=["Hel", "lo ", "world"]))
    reply = await client.complete(REQUEST)
    assert (reply.text, reply.stop_reason, reply.attempts, reply.ok) == ("Hello world", "stop", 1, True)


async def test_usage_is_mapped_to_pi_fields(server: FakeLlmServer, client: HttpLlmClient) -> None:
    server.enqueue(ScriptedResponse(text="x", usage={"input": 100, "output": 20, "cacheRead": 30}))
    reply = await client.complete(REQUEST)
    assert reply.usage == Usage(input=100, output=20, cache_read=30, cache_write=0)
    assert reply.usage.to_json()["totalTokens"] == 150


async def test_progress_reports_characters_received_so_far(server: FakeLlmServer, client: HttpLlmClient) -> None:
    server.enqueue(ScriptedResponse(text="abcdef", chunks=["ab", "cd", "ef"]))
    seen: list[int] = []
    await client.complete(REQUEST, on_text_delta=seen.append)
    assert seen == [2, 4, 6]


async def test_length_stop_maps_to_length(server: FakeLlmServer, client: HttpLlmClient) -> None:
    server.enqueue(ScriptedResponse(text="cut sho", finish="length"))
    reply = await client.complete(REQUEST)
    assert (reply.stop_reason, reply.text, reply.ok) == ("length", "cut sho", False)


async def test_tool_call_sets_has_tool_call_and_tool_use(server: FakeLlmServer, client: HttpLlmClient) -> None:
    server.enqueue(ScriptedResponse(text="", tool_call={"name": "read", "arguments": {"path": "a.py"}}, finish="tool"))
    reply = await client.complete(REQUEST)
    assert (reply.stop_reason, reply.has_tool_call, reply.ok) == ("toolUse", True, False)


async def test_tool_call_with_a_normal_stop_is_still_reported(server: FakeLlmServer, client: HttpLlmClient) -> None:
    server.enqueue(ScriptedResponse(text="x", tool_call={"name": "read", "arguments": {}}, finish="stop"))
    reply = await client.complete(REQUEST)
    assert (reply.stop_reason, reply.has_tool_call, reply.ok) == ("stop", True, False)


async def test_thinking_is_not_reply_text(server: FakeLlmServer, client: HttpLlmClient) -> None:
    server.enqueue(ScriptedResponse(text="answer", thinking="let me think"))
    assert (await client.complete(REQUEST)).text == "answer"


async def test_reported_model_and_provider_are_kept(server: FakeLlmServer, client: HttpLlmClient) -> None:
    server.enqueue(ScriptedResponse(text="x", model="served-model-2"))
    reply = await client.complete(REQUEST)
    assert reply.model == "served-model-2"
    assert reply.provider == client.provider


async def test_a_json_answer_to_a_stream_request_is_read(server: FakeLlmServer, client: HttpLlmClient) -> None:
    server.enqueue(ScriptedResponse(text="whole answer", non_streaming=True, usage={"input": 7, "output": 3}))
    reply = await client.complete(REQUEST)
    assert (reply.text, reply.stop_reason, reply.usage.input, reply.usage.output) == ("whole answer", "stop", 7, 3)


async def test_openai_content_filter_is_an_error_with_pis_message(server: FakeLlmServer) -> None:
    server.enqueue(ScriptedResponse(text="partial", finish="content_filter"))
    async with make_client("openai", server) as client:
        reply = await client.complete(REQUEST)
    assert (reply.stop_reason, reply.error_message, reply.text) == (
        "error",
        "Provider finish_reason: content_filter",
        "",
    )


async def test_anthropic_refusal_is_an_error_with_pis_message(server: FakeLlmServer) -> None:
    server.enqueue(ScriptedResponse(text="no", finish="refusal"))
    async with make_client("anthropic", server) as client:
        reply = await client.complete(REQUEST)
    assert (reply.stop_reason, reply.error_message) == ("error", "The model refused to complete the request")
