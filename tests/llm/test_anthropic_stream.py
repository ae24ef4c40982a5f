"""Rules of the Anthropic stream reader that the fake server does not exercise."""

from __future__ import annotations

import json
from typing import Any

from lsp_server.llm.anthropic import AnthropicStreamState, to_anthropic_messages
from lsp_server.llm.sse import SseEvent


def feed(state: AnthropicStreamState, *events: dict[str, Any]) -> None:
    for event in events:
        state.on_event(SseEvent(str(event["type"]), json.dumps(event)))


def test_text_blocks_are_joined_with_a_newline() -> None:
    state = AnthropicStreamState("m")
    feed(
        state,
        {"type": "message_start", "message": {"model": "m", "usage": {"input_tokens": 5}}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "one"}},
        {"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": "two"}},
        {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 2}},
        {"type": "message_stop"},
    )
    assert state.result().text == "one\ntwo"


def test_message_delta_usage_without_input_keeps_message_start_input() -> None:
    state = AnthropicStreamState("m")
    feed(
        state,
        {"type": "message_start", "message": {"usage": {"input_tokens": 42, "output_tokens": 1}}},
        {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 9}},
    )
    usage = state.result().usage
    assert (usage.input, usage.output) == (42, 9)


def test_unknown_stop_reason_is_an_error() -> None:
    state = AnthropicStreamState("m")
    feed(state, {"type": "message_delta", "delta": {"stop_reason": "new_reason"}})
    result = state.result()
    assert (result.stop_reason, result.error_message) == ("error", "Unhandled stop reason: new_reason")


def test_stream_without_stop_reason_is_a_retryable_error() -> None:
    state = AnthropicStreamState("m")
    feed(state, {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": "hi"}})
    result = state.result()
    assert (result.stop_reason, result.text, result.retryable) == ("error", "", True)


def test_tool_results_become_tool_result_blocks_of_one_user_turn() -> None:
    messages: list[dict[str, Any]] = [
        {
            "role": "assistant",
            "content": [{"type": "toolCall", "id": "t1", "name": "read", "arguments": {"path": "a"}}],
        },
        {"role": "toolResult", "toolCallId": "t1", "content": [{"type": "text", "text": "A"}]},
        {"role": "toolResult", "toolCallId": "t2", "content": [{"type": "text", "text": "B"}], "isError": True},
    ]
    assert to_anthropic_messages(messages) == [
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "read", "input": {"path": "a"}}]},
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "t1", "content": [{"type": "text", "text": "A"}]},
                {
                    "type": "tool_result",
                    "tool_use_id": "t2",
                    "content": [{"type": "text", "text": "B"}],
                    "is_error": True,
                },
            ],
        },
    ]


def test_empty_text_blocks_are_not_sent() -> None:
    assert to_anthropic_messages([{"role": "user", "content": [{"type": "text", "text": ""}]}]) == []
