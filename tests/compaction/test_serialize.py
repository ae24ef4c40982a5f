"""The conversation text the summarizer reads (Pi's serializeConversation)."""

from __future__ import annotations

from typing import Any

from lsp_server.compaction.serialize import serialize_conversation, truncate_for_summary


def _tool_result(*texts: str) -> dict[str, Any]:
    return {"role": "toolResult", "toolCallId": "c", "toolName": "read", "isError": False, "timestamp": 1,
            "content": [{"type": "text", "text": t} for t in texts]}  # fmt: skip


def _assistant(*blocks: dict[str, Any]) -> dict[str, Any]:
    return {"role": "assistant", "content": list(blocks), "timestamp": 2}


def test_parts_are_labelled_and_separated_by_a_blank_line() -> None:
    text = serialize_conversation(
        [{"role": "user", "content": "hi", "timestamp": 1}, _assistant({"type": "text", "text": "hello"})]
    )
    assert text == "[User]: hi\n\n[Assistant]: hello"


def test_user_blocks_join_without_separator_and_assistant_blocks_with_newline() -> None:
    user = {"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}
    assistant = _assistant({"type": "text", "text": "a"}, {"type": "text", "text": "b"})
    assert serialize_conversation([user, assistant]) == "[User]: ab\n\n[Assistant]: a\nb"


def test_thinking_is_left_out() -> None:
    assert serialize_conversation([_assistant({"type": "thinking", "thinking": "secret"})]) == ""


def test_an_empty_text_block_still_writes_the_assistant_label() -> None:
    assert serialize_conversation([_assistant({"type": "text", "text": ""})]) == "[Assistant]: "


def test_tool_calls_use_json_values_in_javascript_key_order() -> None:
    call = {"type": "toolCall", "id": "1", "name": "t", "arguments": {"b": "x", "2": 1.0, "1": None}}
    assert serialize_conversation([_assistant(call)]) == '[Assistant tool calls]: t(1=null, 2=1, b="x")'


def test_tool_results_are_cut_at_2000_units() -> None:
    text = serialize_conversation([_tool_result("x" * 1500, "y" * 600)])
    assert text == "[Tool result]: " + "x" * 1500 + "y" * 500 + "\n\n[... 100 more characters truncated]"


def test_the_cut_never_splits_a_surrogate_pair() -> None:
    assert truncate_for_summary("x" * 1999 + "😀") == "x" * 1999 + "\n\n[... 1 more characters truncated]"


def test_system_and_unknown_roles_are_ignored() -> None:
    assert serialize_conversation([{"role": "system", "content": "P"}, {"role": "custom", "content": "c"}]) == ""
