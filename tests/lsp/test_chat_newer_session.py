"""A session written by a newer Pi than any pi-context knows: the chat resumes it, the lens reads it as far
as it goes and says once what is new (session/novelty.py), through the real server and the real Pi."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.lsp.test_chat import chat_server, entries, model, pi_under_test
from tests.support.fake_llm_server import FakeLlmServer, ScriptedResponse

pytestmark = pytest.mark.pi
__all__ = ["chat_server", "model", "pi_under_test"]

USAGE = {"input": 10, "output": 5, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 15}
COST = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}


def newer_session(folder: Path, cwd: Path) -> Path:
    """Version 4, an entry type and a compaction field no known Pi writes, around an ordinary conversation."""
    stamp = "2026-12-01T00:00:0{}.000Z"
    lines: list[dict[str, Any]] = [
        {"type": "session", "version": 4, "id": "0f0e0d0c-0b0a-4000-8000-000000000001", "timestamp": stamp.format(0),
         "cwd": str(cwd)},
        {"type": "message", "id": "a1", "parentId": None, "timestamp": stamp.format(1),
         "message": {"role": "user", "content": "hello", "timestamp": 1}},
        {"type": "message", "id": "a2", "parentId": "a1", "timestamp": stamp.format(2),
         "message": {"role": "assistant", "content": [{"type": "text", "text": "hi"}], "api": "openai-completions",
                     "provider": "fake", "model": "fake-1", "usage": {**USAGE, "cost": COST}, "stopReason": "stop",
                     "timestamp": 2}},
        {"type": "checkpoint", "id": "a3", "parentId": "a2", "timestamp": stamp.format(3), "label": "new kind"},
        {"type": "compaction", "id": "a4", "parentId": "a3", "timestamp": stamp.format(4), "summary": "Said hello.",
         "firstKeptEntryId": "a2", "tokensBefore": 120, "retainedTail": {"entries": 1}},
    ]  # fmt: skip
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "newer.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


async def test_a_newer_pis_session_is_resumed_read_as_far_as_it_goes_and_what_is_new_said_once(
    chat_server: Callable[..., Any], model: FakeLlmServer, tmp_path: Path
) -> None:
    client = await chat_server()
    session = newer_session(client.agent.sessions / "newer", client.workspace.root)
    model.enqueue(ScriptedResponse(text="continued"))
    info = await client.ask("pi/chat/start", {"session": str(session)})
    assert info["session"] == str(session)
    # The lens reads it as far as it goes: the compaction applies, the unknown entry is no message.
    projected = await client.ask("pi/projectedRequest", {"session": str(session)})
    settled = await client.turn(info["chatId"], "go on")
    assert settled["type"] == "agent_settled"
    assert client.text(info["chatId"]) == "continued"  # the chat keeps working
    sent = model.requests[-1].body["messages"]  # the witness: what Pi sent for "go on"
    assert "Said hello." in json.dumps(sent)
    assert [m["role"] for m in sent[1:-1]] == [m["role"] for m in projected["messages"]]
    tree = await client.ask("pi/sessionTree", {"session": str(session)})
    said = [p for p in tree["problems"] if "session/newer-pi" in p]
    assert len(said) == 1
    assert "session version 4" in said[0] and "'checkpoint'" in said[0] and "'retainedTail' on compaction" in said[0]
    budget = await client.ask("pi/contextBudget", {"session": str(session)})
    assert budget["contextTokens"] > 0
    assert [e["type"] for e in entries(str(session))][:5] == [
        "session",
        "message",
        "message",
        "checkpoint",
        "compaction",
    ]
