"""RunLog: what a client attaching in the middle of a run is shown again, one rule per test."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from lsp_server.pi_rpc.run_log import RecordKey, RunLog

FIXTURES = Path(__file__).resolve().parents[2] / "vscode-extension" / "test" / "fixtures" / "chat"


def folded(records: list[dict[str, Any]], max_size: int = 1_000_000) -> RunLog[dict[str, Any]]:
    log: RunLog[dict[str, Any]] = RunLog(max_size)
    for record in records:
        log.add(RecordKey.of(record), record, len(json.dumps(record)))
    return log


def types(log: RunLog[dict[str, Any]]) -> list[str]:
    return [str(item["type"]) for item in log.items()]


def delta(text: str) -> dict[str, Any]:
    return {"type": "message_update", "assistantMessageEvent": {"type": "text_delta", "delta": text}}


USER = {"role": "user", "content": "go"}
REPLY = {"role": "assistant", "content": []}


def test_a_message_that_ended_is_not_replayed_the_one_streaming_is() -> None:
    log = folded(
        [
            {"type": "agent_start"},
            {"type": "message_start", "message": USER},
            {"type": "message_end", "message": USER},
            {"type": "message_start", "message": REPLY},
            delta("Hel"),
            delta("lo"),
        ]
    )
    assert types(log) == ["message_start", "message_update", "message_update"]


def test_a_running_tool_is_kept_across_the_end_of_another_message() -> None:
    log = folded(
        [
            {"type": "tool_execution_start", "toolCallId": "a"},
            {"type": "tool_execution_start", "toolCallId": "b"},
            {"type": "tool_execution_end", "toolCallId": "a"},
            {"type": "message_end", "message": {"role": "toolResult", "toolCallId": "a"}},
        ]
    )
    assert [(item["type"], item["toolCallId"]) for item in log.items()] == [("tool_execution_start", "b")]


def test_only_the_latest_output_of_a_tool_is_kept() -> None:
    log = folded(
        [
            {"type": "tool_execution_start", "toolCallId": "a"},
            {"type": "tool_execution_update", "toolCallId": "a", "partialResult": {"content": "1"}},
            {"type": "tool_execution_update", "toolCallId": "b", "partialResult": {"content": "x"}},
            {"type": "tool_execution_update", "toolCallId": "a", "partialResult": {"content": "12"}},
        ]
    )
    updates = [(i["toolCallId"], i["partialResult"]["content"]) for i in log.items() if i["type"].endswith("update")]
    assert updates == [("b", "x"), ("a", "12")]


def test_the_settled_run_leaves_nothing_but_a_dialog_still_waiting() -> None:
    dialog = {"type": "extension_ui_request", "id": "ui-1", "method": "confirm", "title": "Sure?"}
    notice = {"type": "extension_ui_request", "id": "ui-2", "method": "notify", "message": "hi"}
    log = folded([{"type": "agent_start"}, dialog, notice, delta("x"), {"type": "agent_settled", "aborted": False}])
    assert log.items() == [dialog]
    log.answered("ui-1")
    assert log.items() == []


def test_a_compaction_that_ended_is_in_the_messages_a_failed_one_is_kept() -> None:
    ended = folded([{"type": "compaction_start"}, {"type": "compaction_end", "result": {"summary": "s"}}])
    assert types(ended) == []
    failed = folded([{"type": "compaction_start"}, {"type": "compaction_end", "errorMessage": "no model"}])
    assert types(failed) == ["compaction_end"]


def test_only_the_latest_queue_is_kept_and_run_ends_are_not() -> None:
    log = folded(
        [
            {"type": "queue_update", "steering": ["a"]},
            {"type": "turn_end", "message": REPLY},
            {"type": "agent_end", "messages": []},
            {"type": "queue_update", "steering": []},
        ]
    )
    assert log.items() == [{"type": "queue_update", "steering": []}]


def test_past_the_bound_the_oldest_pieces_of_the_reply_go_first_and_the_log_says_so() -> None:
    dialog = {"type": "extension_ui_request", "id": "ui-1", "method": "input", "title": "Name?"}
    records = [dialog, {"type": "tool_execution_start", "toolCallId": "t"}, {"type": "message_start", "message": REPLY}]
    records += [delta(f"piece {n} ") for n in range(200)]
    log = folded(records, max_size=4000)
    assert log.truncated and log.size <= 4000
    kept = log.items()
    assert kept[:2] == records[:2]  # the dialog and the running tool stay
    pieces = [item["assistantMessageEvent"]["delta"] for item in kept[2:]]
    assert pieces == [f"piece {n} " for n in range(200 - len(pieces), 200)]  # the newest, in order
    log.add(RecordKey("agent_settled"), {"type": "agent_settled"}, 1)
    assert not log.truncated


@pytest.mark.parametrize("name", ["tool-turn", "thinking", "compaction", "retry"])
def test_a_recorded_pi_run_leaves_nothing_once_it_settled(name: str) -> None:
    lines = (FIXTURES / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines]
    log = folded([r for r in records if r.get("type") != "recorded_messages"])
    assert log.items() == []
