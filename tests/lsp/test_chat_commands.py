"""The editor's session commands on a session a chat holds: Compact Session goes through Pi, Summarize Branch cannot.

One writer per session: while a chat's Pi holds a session, pi-context writes nothing to it. Compact
Session (``pi.compact``, from the Sessions tree or the command palette) previews the plan from the
file and then asks that chat's Pi to compact; Summarize Branch (``pi.branchSummary``) needs a move in
the tree, which Pi's RPC mode does not have, so it is refused with the reason and what to do.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pygls.exceptions import JsonRpcException

from lsp_server.session.tail import load_session
from tests.lsp import test_chat as chat_tests
from tests.lsp.test_chat import entries
from tests.support.fake_llm_server import FakeLlmServer, ScriptedResponse
from tests.support.pi_for_tests import PiUnderTest, summary_focus_expected

pytestmark = pytest.mark.pi

# The chat fixtures of test_chat.py, shared by name: a real server, a real Pi, the loopback model.
chat_server = chat_tests.chat_server
model = chat_tests.model
pi_under_test = chat_tests.pi_under_test


async def test_compact_session_on_a_live_session_previews_from_the_file_then_pi_compacts(
    chat_server: Callable[..., Any], model: FakeLlmServer, pi_under_test: PiUnderTest
) -> None:
    client = await chat_server()
    client.agent.write_settings({"defaultProvider": "fake", "compaction": {"keepRecentTokens": 10}})
    model.enqueue(ScriptedResponse(text="answer one"), ScriptedResponse(text="answer two"))
    model.set_default(ScriptedResponse(text="## Goal\nPi's own summary."))
    chat_id = (await client.ask("pi/chat/start", {}))["chatId"]
    await client.turn(chat_id, "first question")
    await client.turn(chat_id, "second question")
    session = (await client.ask("pi/chat/state", {"chatId": chat_id}))["session"]
    before = Path(session).read_bytes()
    requests = len(model.requests)

    preview = await client.command("pi.compact", {"session": session, "previewOnly": True, "instructions": "Goals"})
    assert preview["chatId"] == chat_id and preview["summarizer"] == f"Pi in chat {chat_id} (fake/fake-1)"
    assert preview["written"] is False and preview["summary"] == "" and preview["sessionSize"] == len(before)
    plan = preview["plan"]
    assert plan["messagesToSummarize"] + plan["turnPrefixMessages"] >= 1 and plan["keptEntries"] >= 1
    assert Path(session).read_bytes() == before and len(model.requests) == requests  # nothing written or asked

    with pytest.raises(JsonRpcException, match="cannot move to another entry"):
        await client.command("pi.compact", {"session": session, "leafId": "x", "previewOnly": False})
    with pytest.raises(JsonRpcException, match="changed since the preview"):
        await client.command("pi.compact", {"session": session, "expectedSize": len(before) - 1})
    assert Path(session).read_bytes() == before

    since = client.mark()
    applied = await client.command(
        "pi.compact", {"session": session, "instructions": "Goals", "expectedSize": preview["sessionSize"]}
    )
    assert applied["written"] is True and applied["chatId"] == chat_id
    assert "Pi's own summary." in applied["summary"]  # Pi's model wrote it, not pi-context's summarizer
    assert applied["firstKeptEntryId"] == preview["firstKeptEntryId"]
    assert applied["tokensBefore"] == preview["tokensBefore"]
    assert client.kinds(chat_id, since)[:1] == ["compaction_start"]  # the chat shows Pi's compaction
    after = Path(session).read_bytes()
    assert after.startswith(before)  # appended by Pi, never rewritten
    written = entries(session)[-1]
    assert written["type"] == "compaction" and applied["entry"] == written
    assert written["summary"] == applied["summary"]
    last = model.requests[-1].body  # the last summary call: focused unless a turn prefix of a Pi before 1.4.0
    assert ("Additional focus: Goals" in json.dumps(last)) == summary_focus_expected(last, pi_under_test.version)
    loaded = load_session(session)
    assert loaded.is_session and loaded.problems == []


async def test_summarize_branch_on_a_live_session_is_refused_with_the_reason_and_what_to_do(
    chat_server: Callable[..., Any], model: FakeLlmServer
) -> None:
    model.set_default(ScriptedResponse(text="an answer"))
    client = await chat_server()
    chat_id = (await client.ask("pi/chat/start", {}))["chatId"]
    await client.turn(chat_id, "first question")
    await client.turn(chat_id, "second question")
    session = (await client.ask("pi/chat/state", {"chatId": chat_id}))["session"]
    lines = entries(session)
    user_ids = [e["id"] for e in lines if e["type"] == "message" and e["message"]["role"] == "user"]
    before = Path(session).read_bytes()
    arguments = {"session": session, "fromId": lines[-1]["id"], "toId": user_ids[0], "previewOnly": True}
    with pytest.raises(JsonRpcException) as refused:
        await client.command("pi.branchSummary", arguments)
    message = str(refused.value)
    assert f"open in chat {chat_id}" in message and "cannot move to another branch" in message
    assert "Stop the chat" in message
    assert Path(session).read_bytes() == before
    await client.ask("pi/chat/stop", {"chatId": chat_id})  # what the message advises: then it works
    await client.wait(lambda: any(e["chatId"] == chat_id for e in client.exits))
    preview = await client.command("pi.branchSummary", arguments)
    assert preview["previewOnly"] is True and preview["written"] is False


async def test_a_chat_cannot_open_a_session_while_pi_context_appends_a_compaction_to_it(
    chat_server: Callable[..., Any], model: FakeLlmServer
) -> None:
    """pi-context's own compaction asks its summarizer first (which can take a minute), then appends: a chat
    opening the session meanwhile would have Pi hold a file we then write to. It is refused until the write."""
    summarizer = {"mode": "endpoint", "url": model.openai_base_url, "model": "summary-model", "retries": 0}
    client = await chat_server(settings={"summarizer": summarizer})
    client.agent.write_settings({"defaultProvider": "fake", "compaction": {"keepRecentTokens": 10}})
    model.enqueue(ScriptedResponse(text="answer one"), ScriptedResponse(text="answer two"))
    chat_id = (await client.ask("pi/chat/start", {}))["chatId"]
    await client.turn(chat_id, "first question")
    await client.turn(chat_id, "second question")
    session = (await client.ask("pi/chat/state", {"chatId": chat_id}))["session"]
    await client.ask("pi/chat/stop", {"chatId": chat_id})
    await client.wait(lambda: any(e["chatId"] == chat_id for e in client.exits))
    held = len(model.requests)
    model.enqueue(ScriptedResponse(text="## Goal\nOur summarizer's summary, in pieces.", hold_after_chunks=1))
    compacting = asyncio.ensure_future(client.command("pi.compact", {"session": session}))
    await asyncio.to_thread(model.wait_until_held, held)
    before = Path(session).read_bytes()
    try:
        with pytest.raises(JsonRpcException, match="is getting a compaction from pi-context right now"):
            await client.ask("pi/chat/start", {"session": session})
    finally:
        model.release(held)  # also when the test fails: the server's shutdown would wait for the summary
    outcome = await asyncio.wait_for(compacting, 60)
    assert outcome["written"] is True and Path(session).read_bytes().startswith(before)
    assert entries(session)[-1]["type"] == "compaction"
    reopened = await client.ask("pi/chat/start", {"session": session})  # written: the chat may have it now
    assert reopened["session"] == session
    await client.ask("pi/chat/stop", {"chatId": reopened["chatId"]})
