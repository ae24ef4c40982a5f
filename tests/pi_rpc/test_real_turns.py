"""Agent turns through the real Pi: streaming, a tool call, abort, steering.

The fake model's recorded requests are the witness: they are what Pi really sent.
"""

from __future__ import annotations

import asyncio

import pytest

from lsp_server.pi_rpc import PiCommandError
from tests.pi_rpc.conftest import RealPi, model_request, settled
from tests.support.fake_llm_server import ScriptedResponse
from tests.support.pi_for_tests import settled_event

pytestmark = pytest.mark.pi


async def test_a_prompt_streams_text_deltas_then_settles(real_pi: RealPi) -> None:
    real_pi.model.enqueue(ScriptedResponse(text="Hello from the fake model, streamed in pieces."))
    chat = await real_pi.start()
    assert await chat.process.prompt("Say hello") == "started"
    end = await settled(chat.log)
    assert end == settled_event(real_pi.pi.version, aborted=False)
    assert chat.log.text_deltas() == "Hello from the fake model, streamed in pieces."
    kinds = chat.log.types()
    assert kinds[0] == "agent_start" and kinds[-2:] == ["agent_end", "agent_settled"]
    assert kinds.count("message_update") >= 3  # three 16-char chunks, each its own text_delta
    state = await chat.process.get_state()
    assert (state["isStreaming"], state["messageCount"]) == (False, 3)  # system, user, assistant


async def test_the_first_request_carries_pis_system_prompt_tools_and_the_user_message(real_pi: RealPi) -> None:
    real_pi.model.enqueue(ScriptedResponse(text="ok"))
    chat = await real_pi.start()
    await chat.process.prompt("What is here?")
    await settled(chat.log)
    body = real_pi.model.requests[0].body
    assert (body["model"], body["stream"], body["stream_options"]) == ("fake-1", True, {"include_usage": True})
    assert body["max_completion_tokens"] == 2000
    system, user = body["messages"]
    assert system["role"] == "system" and system["content"].endswith(f"<cwd>\n{real_pi.workspace}\n</cwd>")
    assert user == {"role": "user", "content": [{"type": "text", "text": "What is here?"}]}
    assert [tool["function"]["name"] for tool in body["tools"]] == ["read", "bash", "edit", "write"]
    # The session's system message holds the same prompt as sections (what pi-context projects).
    system_event = next(e for e in chat.log.events if e.get("type") == "message_end")
    assert system_event["message"]["role"] == "system"
    assert set(system_event["message"]["sections"]) >= {"preamble", "tools", "cwd"}


async def test_a_read_tool_call_runs_on_a_workspace_file_and_its_result_reaches_the_model(real_pi: RealPi) -> None:
    (real_pi.workspace / "notes.txt").write_text("line one\nline two ✓\n", encoding="utf-8")
    real_pi.model.enqueue(
        ScriptedResponse(
            tool_calls=[{"name": "read", "arguments": {"path": "notes.txt"}, "id": "call_r1"}], finish="tool"
        ),
        ScriptedResponse(text="The file has two lines."),
    )
    chat = await real_pi.start()
    await chat.process.prompt("Read notes.txt")
    await settled(chat.log)
    started = next(e for e in chat.log.events if e.get("type") == "tool_execution_start")
    ended = next(e for e in chat.log.events if e.get("type") == "tool_execution_end")
    assert (started["toolName"], started["args"]) == ("read", {"path": "notes.txt"})
    assert (ended["isError"], ended["result"]["content"]) == (
        False,
        [{"type": "text", "text": "line one\nline two ✓\n"}],
    )
    second = real_pi.model.requests[1].body["messages"]
    assert second[-2] == {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "call_r1", "type": "function", "function": {"name": "read", "arguments": '{"path":"notes.txt"}'}}
        ],
    }
    assert second[-1] == {"role": "tool", "content": "line one\nline two ✓\n", "tool_call_id": "call_r1"}
    assert chat.log.text_deltas() == "The file has two lines."


async def test_abort_mid_stream_ends_the_turn_and_closes_the_model_stream(real_pi: RealPi) -> None:
    real_pi.model.enqueue(ScriptedResponse(text="partial answer", chunks=["partial ", "answer"], stall_after_chunks=1))
    chat = await real_pi.start()
    await chat.process.prompt("Take your time")
    await chat.log.wait_for(
        lambda e: e.get("type") == "message_update" and e["assistantMessageEvent"]["type"] == "text_delta"
    )
    assert (await chat.process.get_state())["isStreaming"] is True
    await chat.process.abort()  # Pi answers once idle: the run has settled by now
    end = next(e for e in chat.log.events if e.get("type") == "agent_settled")
    assert end == settled_event(real_pi.pi.version, aborted=True)
    final = [e for e in chat.log.events if e.get("type") == "message_end"][-1]["message"]
    assert (final["stopReason"], final["content"]) == ("aborted", [{"type": "text", "text": "partial "}])
    assert (await chat.process.get_state())["isStreaming"] is False
    await asyncio.to_thread(real_pi.model.wait_for_request, 0, lambda r: r.client_closed)


async def test_steering_while_streaming_is_queued_and_reaches_the_next_model_request(real_pi: RealPi) -> None:
    real_pi.model.enqueue(
        ScriptedResponse(text="first answer", chunks=["first ", "answer"], hold_after_chunks=1),
        ScriptedResponse(text="steered answer"),
        ScriptedResponse(text="follow-up answer"),
    )
    chat = await real_pi.start()
    await chat.process.prompt("Start something")
    await asyncio.to_thread(real_pi.model.wait_until_held, 0)
    assert await chat.process.steer("Actually, do this instead") == "queued"
    queued = await chat.log.wait_type("queue_update")
    assert queued == {"type": "queue_update", "steering": ["Actually, do this instead"], "followUp": []}
    with pytest.raises(PiCommandError, match="streamingBehavior"):
        await chat.process.prompt("no behaviour given while streaming")
    assert await chat.process.prompt("and then this", streaming_behavior="followUp") == "queued"
    real_pi.model.release(0)
    follow_up_request = await model_request(real_pi.model, 2)
    await settled(chat.log)
    steered = real_pi.model.requests[1].body["messages"]
    assert [m["role"] for m in steered[1:]] == ["user", "assistant", "user"]
    assert steered[-2] == {"role": "assistant", "content": "first answer"}
    assert steered[-1] == {"role": "user", "content": [{"type": "text", "text": "Actually, do this instead"}]}
    assert follow_up_request.body["messages"][-1]["content"] == [{"type": "text", "text": "and then this"}]


async def test_usage_comes_from_the_streams_last_chunk(real_pi: RealPi) -> None:
    real_pi.model.enqueue(
        ScriptedResponse(text="counted", usage={"input": 1234, "output": 56, "cacheRead": 200}),
        ScriptedResponse(text="uncounted", usage_in_stream=False),
    )
    chat = await real_pi.start()
    await chat.process.prompt("one")
    await settled(chat.log)
    since = chat.log.mark()
    await chat.process.prompt("two")
    await settled(chat.log, since)
    ends = [e["message"] for e in chat.log.events if e.get("type") == "message_end"]
    counted, uncounted = (m["usage"] for m in ends if m["role"] == "assistant")
    # prompt_tokens includes the cached ones; Pi reports input without them.
    assert (counted["input"], counted["output"], counted["cacheRead"]) == (1234, 56, 200)
    assert (uncounted["input"], uncounted["output"], uncounted["totalTokens"]) == (0, 0, 0)
    stats = await chat.process.get_session_stats()
    assert stats["tokens"]["input"] == 1234 and stats["assistantMessages"] == 2


async def test_an_aborted_answer_stays_in_the_session_but_is_not_sent_again(real_pi: RealPi) -> None:
    real_pi.model.enqueue(
        ScriptedResponse(text="half said", chunks=["half ", "said"], stall_after_chunks=1),
        ScriptedResponse(text="fresh answer"),
    )
    chat = await real_pi.start()
    await chat.process.prompt("first")
    await chat.log.wait_for(lambda e: e.get("assistantMessageEvent", {}).get("type") == "text_delta")
    await chat.process.abort()
    since = chat.log.mark()
    await chat.process.prompt("second")
    await settled(chat.log, since)
    messages = await chat.process.get_messages()
    assert [(m["role"], m.get("stopReason")) for m in messages[1:]] == [
        ("user", None),
        ("assistant", "aborted"),
        ("user", None),
        ("assistant", "stop"),
    ]
    sent = real_pi.model.requests[1].body["messages"]
    assert sent[1:] == [
        {"role": "user", "content": [{"type": "text", "text": "first"}]},
        {"role": "user", "content": [{"type": "text", "text": "second"}]},
    ]


async def test_a_server_error_is_retried_by_pi_with_the_same_request(real_pi: RealPi) -> None:
    real_pi.agent.write_settings({"retry": {"baseDelayMs": 1}})
    real_pi.model.enqueue({"status": 503}, ScriptedResponse(text="recovered"))
    chat = await real_pi.start()
    await chat.process.prompt("please")
    await settled(chat.log)
    retry = [e for e in chat.log.events if e.get("type", "").startswith("auto_retry")]
    assert [(e["type"], e["attempt"]) for e in retry] == [("auto_retry_start", 1), ("auto_retry_end", 1)]
    assert retry[1]["success"] is True and "503" in retry[0]["errorMessage"]
    first, second = real_pi.model.requests
    assert first.body == second.body
    assert chat.log.text_deltas() == "recovered"
