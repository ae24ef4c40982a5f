"""pi-ai's last rewrite of the messages before a request: what the provider receives, not what the file holds."""

from __future__ import annotations

from typing import Any

from lsp_server.session.transform import SYNTHETIC_RESULT_TEXT, transform_messages


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": text}]}


def assistant(*blocks: dict[str, Any], stop: str = "stop", model: str = "m1") -> dict[str, Any]:
    return {"role": "assistant", "content": list(blocks), "stopReason": stop, "provider": "p", "model": model}


def call(call_id: str, name: str = "read") -> dict[str, Any]:
    return {"type": "toolCall", "id": call_id, "name": name, "arguments": {}}


def result(call_id: str) -> dict[str, Any]:
    return {"role": "toolResult", "toolCallId": call_id, "toolName": "read", "content": [], "isError": False}


def roles(messages: list[Any]) -> list[str]:
    return [piece.message["role"] for piece in messages]


def test_an_aborted_or_failed_reply_is_not_sent() -> None:
    sent = transform_messages(
        [user("a"), assistant({"type": "text", "text": "half"}, stop="aborted"), user("b"), assistant(stop="error")]
    )
    assert roles(sent) == ["user", "user"]
    assert [piece.source for piece in sent] == [0, 2]


def test_an_unanswered_tool_call_gets_pis_synthetic_result_before_the_next_turn() -> None:
    sent = transform_messages([user("a"), assistant(call("c1"), call("c2")), result("c1"), user("go on")])
    assert roles(sent) == ["user", "assistant", "toolResult", "toolResult", "user"]
    synthetic = sent[3]
    assert synthetic.source is None
    assert synthetic.message["toolCallId"] == "c2" and synthetic.message["isError"] is True
    assert synthetic.message["content"] == [{"type": "text", "text": SYNTHETIC_RESULT_TEXT}]


def test_a_conversation_ending_in_a_tool_call_is_closed_too() -> None:
    sent = transform_messages([user("a"), assistant(call("c1"))])
    assert roles(sent) == ["user", "assistant", "toolResult"] and sent[-1].source is None


def test_a_system_message_between_a_call_and_its_result_waits_for_the_result() -> None:
    system = {"role": "system", "content": "patch"}
    sent = transform_messages([user("a"), assistant(call("c1")), system, result("c1"), user("b")])
    assert roles(sent) == ["user", "assistant", "toolResult", "system", "user"]


def test_thinking_of_another_model_and_empty_thinking_are_dropped() -> None:
    thinking = {"type": "thinking", "thinking": "because"}
    empty = {"type": "thinking", "thinking": "  "}
    signed = {"type": "thinking", "thinking": "", "thinkingSignature": "sig"}
    text = {"type": "text", "text": "answer"}
    same = transform_messages([assistant(thinking, empty, signed, text)], provider="p", model_id="m1")
    assert same[0].message["content"] == [thinking, signed, text]
    other = transform_messages([assistant(thinking, signed, text, model="m0")], provider="p", model_id="m1")
    assert other[0].message["content"] == [text]


def test_tool_call_ids_that_are_objects_answer_nothing_and_do_not_crash() -> None:
    """Found by fuzzing (``toolCallId: []``): JavaScript's Set compares objects by identity."""
    odd_call = {"type": "toolCall", "id": [], "name": "read", "arguments": {}}
    odd_result = {"role": "toolResult", "toolCallId": [], "toolName": "read", "content": [], "isError": False}
    sent = transform_messages([user("a"), assistant(odd_call), odd_result, user("b")])
    assert roles(sent) == ["user", "assistant", "toolResult", "toolResult", "user"]
    assert sent[3].source is None and sent[3].message["toolCallId"] == []


def test_equal_numbers_answer_their_call_as_in_a_javascript_set() -> None:
    numbered = {"type": "toolCall", "id": 1, "name": "read", "arguments": {}}
    answer = {"role": "toolResult", "toolCallId": 1.0, "toolName": "read", "content": [], "isError": False}
    assert roles(transform_messages([user("a"), assistant(numbered), answer])) == ["user", "assistant", "toolResult"]


def test_orphan_tool_results_compare_ids_as_javascript_does_and_object_ids_answer_nothing() -> None:
    from lsp_server.session.transform import orphan_tool_results

    def entry(message: dict[str, Any]) -> dict[str, Any]:
        return {"type": "message", "message": message}

    call = {"role": "assistant", "content": [{"type": "toolCall", "id": "c1"}, {"type": "toolCall", "id": []}]}
    branch = [
        entry(call),
        entry({"role": "toolResult", "toolCallId": "c1"}),  # answers c1
        entry({"role": "toolResult", "toolCallId": []}),  # an array is equal to no other array (found by fuzzing)
        entry({"role": "toolResult", "toolCallId": "c9"}),  # answers nothing
    ]
    assert orphan_tool_results(branch) == [2, 3]
