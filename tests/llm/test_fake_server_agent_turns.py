"""The fake model's features for driving a real agent: tool calls, held streams, waiting for requests."""

from __future__ import annotations

import http.client
import json
import threading
from typing import Any

import pytest

from tests.support.fake_llm_server import FakeLlmServer, ScriptedResponse

BODY = {"model": "m", "stream": True, "messages": [{"role": "user", "content": "hi"}]}


def post(server: FakeLlmServer, path: str = "/v1/chat/completions") -> http.client.HTTPResponse:
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    connection.request("POST", path, json.dumps(BODY), {"content-type": "application/json"})
    return connection.getresponse()


def sse_data(response: http.client.HTTPResponse) -> list[Any]:
    events = []
    for line in response.read().decode().splitlines():
        if line.startswith("data: ") and line != "data: [DONE]":
            events.append(json.loads(line[6:]))
    return events


def test_tool_calls_stream_their_arguments_in_pieces_like_openai() -> None:
    calls = [
        {"name": "read", "arguments": {"path": "a/long/path/to/some/file.py", "offset": 10}},
        {"name": "bash", "arguments": {"command": "ls -la"}, "id": "call_mine"},
    ]
    with FakeLlmServer([ScriptedResponse(tool_calls=calls, finish="tool")]) as server:
        chunks = sse_data(post(server))
    deltas = [c["choices"][0]["delta"] for c in chunks if c["choices"]]
    parts: dict[int, dict[str, Any]] = {}
    for delta in deltas:
        for call in delta.get("tool_calls", []):
            slot = parts.setdefault(call["index"], {"arguments": ""})
            slot.update({k: v for k, v in call.items() if k in ("id", "type")})
            slot["name"] = call.get("function", {}).get("name", slot.get("name"))
            slot["arguments"] += call["function"].get("arguments", "")
    assert [(p["id"], p["name"], json.loads(p["arguments"])) for p in parts.values()] == [
        ("call_fake", "read", calls[0]["arguments"]),
        ("call_mine", "bash", calls[1]["arguments"]),
    ]
    assert sum(1 for d in deltas for _ in d.get("tool_calls", [])) > 4  # arguments came in several pieces
    assert [c["choices"][0]["finish_reason"] for c in chunks if c["choices"]][-1] == "tool_calls"


def test_several_tool_calls_become_tool_use_blocks_in_anthropic_format() -> None:
    calls = [
        {"name": "read", "arguments": {"path": "x"}},
        {"name": "write", "arguments": {"path": "y", "content": "z"}},
    ]
    with FakeLlmServer([ScriptedResponse(tool_calls=calls, finish="tool")]) as server:
        events = sse_data(post(server, "/v1/messages"))
    starts = [e["content_block"] for e in events if e["type"] == "content_block_start"]
    assert [(b["type"], b.get("name"), b.get("id")) for b in starts if b["type"] == "tool_use"] == [
        ("tool_use", "read", "toolu_fake"),
        ("tool_use", "write", "toolu_fake_2"),
    ]


def test_the_usage_chunk_can_be_left_out() -> None:
    with FakeLlmServer([ScriptedResponse(text="a"), ScriptedResponse(text="a", usage_in_stream=False)]) as server:
        with_usage, without = sse_data(post(server)), sse_data(post(server))
    assert with_usage[-1]["usage"]["completion_tokens"] == 5
    assert not any("usage" in chunk for chunk in without)


def test_a_held_stream_waits_for_release_then_ends_normally() -> None:
    script = ScriptedResponse(text="abc", chunks=["a", "b", "c"], hold_after_chunks=2)
    with FakeLlmServer([script]) as server:
        answers: list[list[Any]] = []
        reader = threading.Thread(target=lambda: answers.append(sse_data(post(server))))
        reader.start()
        held = server.wait_until_held(0)
        assert (held.chunks_sent, held.outcome) == (2, "pending")
        server.release(0)
        reader.join(30)
        record = server.wait_for_request(0, lambda r: r.outcome != "pending")
    text = "".join(c["choices"][0]["delta"].get("content", "") for c in answers[0] if c["choices"])
    assert (text, record.outcome, record.chunks_sent, record.held) == ("abc", "completed", 3, False)


def test_a_hold_after_all_text_stops_before_the_finish() -> None:
    with FakeLlmServer([ScriptedResponse(text="", hold_after_chunks=0, tool_call={"name": "read"})]) as server:
        reader = threading.Thread(target=lambda: post(server).read())
        reader.start()
        assert server.wait_until_held(0).outcome == "pending"
        server.release()
        reader.join(30)
        assert server.wait_for_request(0, lambda r: r.outcome == "completed")


def test_a_client_closing_a_stalled_stream_is_noticed() -> None:
    with FakeLlmServer([ScriptedResponse(text="ab", chunks=["a", "b"], stall_after_chunks=1)]) as server:
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
        connection.request("POST", "/v1/chat/completions", json.dumps(BODY), {"content-type": "application/json"})
        response = connection.getresponse()
        server.wait_for_request(0, lambda r: r.outcome == "stalled")
        response.close()
        connection.close()
        record = server.wait_for_request(0, lambda r: r.client_closed)
    assert (record.outcome, record.chunks_sent) == ("stalled", 1)


def test_waiting_for_a_request_that_never_comes_says_what_was_seen() -> None:
    with FakeLlmServer([ScriptedResponse(text="a")]) as server:
        post(server).read()
        with pytest.raises(TimeoutError, match=r"request 1 did not arrive .* seen: \[\('/v1/chat/completions'"):
            server.wait_for_request(1, timeout=0.1)


def test_the_default_answer_can_be_changed() -> None:
    with FakeLlmServer() as server:
        server.set_default(ScriptedResponse(text="from the default"))
        first = sse_data(post(server))
        server.set_default(None)
        assert post(server).status == 500
    assert "".join(c["choices"][0]["delta"].get("content", "") for c in first if c["choices"]) == "from the default"
