"""``--otlp-content``: a turn's messages in the GenAI conventions' shape, built from the session's entries."""

from __future__ import annotations

import json
from typing import Any

from lsp_server.usage.content import MAX_PART_CHARS, input_messages, output_messages


def entry(entry_id: str, parent: str | None, message: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "message",
        "id": entry_id,
        "parentId": parent,
        "timestamp": "2026-01-01T00:00:00.000Z",
        "message": message,
    }


CALL = {"type": "toolCall", "id": "call_1", "name": "read", "arguments": {"path": "a.txt"}}
THINKING = {"type": "thinking", "thinking": "look"}
ENTRIES = [
    entry("u1", None, {"role": "user", "content": "read a.txt", "timestamp": 1}),
    entry("a1", "u1", {"role": "assistant", "content": [THINKING, CALL], "stopReason": "toolUse"}),
    entry("t1", "a1", {"role": "toolResult", "toolCallId": "call_1", "toolName": "read",
                       "content": [{"type": "text", "text": "x" * (MAX_PART_CHARS + 5)}], "isError": False}),
    entry("a2", "t1", {"role": "assistant", "content": [{"type": "text", "text": "done"}], "stopReason": "stop"}),
]  # fmt: skip
BY_ID = {e["id"]: e for e in ENTRIES}


def test_a_tool_call_reply_and_what_the_next_turn_added() -> None:
    first_out = json.loads(output_messages(BY_ID["a1"]) or "")
    assert first_out == [
        {
            "role": "assistant",
            "parts": [
                {"type": "reasoning", "content": "look"},
                {"type": "tool_call", "id": "call_1", "name": "read", "arguments": {"path": "a.txt"}},
            ],
            "finish_reason": "tool_call",
        }
    ]
    assert json.loads(input_messages(BY_ID["a1"], BY_ID) or "") == [
        {"role": "user", "parts": [{"type": "text", "content": "read a.txt"}]}
    ]
    (tool,) = json.loads(input_messages(BY_ID["a2"], BY_ID) or "")
    assert tool["role"] == "tool" and tool["parts"][0]["id"] == "call_1"
    assert tool["parts"][0]["response"] == "x" * MAX_PART_CHARS + "…[5 more characters]"


def test_only_replies_have_messages() -> None:
    assert output_messages(BY_ID["u1"]) is None and input_messages(BY_ID["t1"], BY_ID) is None
