# ruff: noqa: F811 - the fixtures come from test_chat.py, and tests take them as parameters of the same names
"""Issue 19's proof: during one chat, every number the views show is the one of the Pi that runs (real Pi 1.6.0).

One chat goes through what a user does: AGENTS.md saved, Pi's settings changed, a compaction, the
window reloaded (the server ends mid-turn and a new one takes the kept Pi up), the model and the
thinking level switched. Before every request Pi sends, the test takes what the views would show
(``pi/projectedRequest``, ``pi/contextBudget``, ``pi/chat/compactPreview``, and Pi's own
``get_session_stats`` through ``pi/chat/state``) and compares it with the request the loopback model
then receives from Pi and with the entries Pi writes:

* the projected system prompt and messages are the request's, byte for byte (Pi's prose is in both);
* the budget's model, window and threshold are those of the Pi that runs (its model, the settings it
  read), its context tokens are Pi's (``get_session_stats.contextUsage`` and a compaction's
  ``tokensBefore``), and after a compaction both say the count is unknown until a reply;
* the compaction preview's cut and token count are those of the entry Pi writes, and when the
  settings Pi read leave nothing to compact, the preview refuses exactly as Pi does.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Callable
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from tests.lsp.conftest import WAIT_S, Workspace
from tests.lsp.test_chat import ChatClient, _text_of, chat_server, entries, model, pi_under_test  # noqa: F401
from tests.support.fake_llm_server import FakeLlmServer, ScriptedResponse
from tests.support.pi_agent import write_agent_dir

pytestmark = pytest.mark.pi

ANSWER = "An answer with enough words in it to be worth keeping or summarizing later on. " * 4


def setup_agent(client: ChatClient, model: FakeLlmServer, settings: dict[str, Any]) -> None:
    """Two models (the second reasons, with a larger window) and Pi's settings, in the chat's agent dir."""
    write_agent_dir(
        client.agent.path,
        model.openai_base_url,
        settings={"defaultProvider": "fake", **settings},
        more_models=[{"id": "fake-2", "reasoning": True, "contextWindow": 64000, "maxTokens": 2000}],
    )


async def views(client: ChatClient, chat_id: str, session: str) -> dict[str, Any]:
    """What the Context view, the status bar, the chat's gauge and its /compact preview would show now."""
    projected = await client.ask("pi/projectedRequest", {"session": session})
    budget = await client.ask("pi/contextBudget", {"session": session})
    try:
        preview: dict[str, Any] | str = await client.ask("pi/chat/compactPreview", {"chatId": chat_id})
    except JsonRpcException as exc:
        preview = str(exc.message)
    state = await client.ask("pi/chat/state", {"chatId": chat_id})
    return {"projected": projected, "budget": budget, "preview": preview, "state": state}


def assert_budget_is_pis(seen: dict[str, Any], reserve: int) -> None:
    """The budget is the one of the Pi that runs: its model and window, the reserve it read, its own count."""
    budget, state = seen["budget"], seen["state"]
    pi_model = state["state"]["model"]
    usage = state["stats"]["contextUsage"]
    assert (budget["model"]["provider"], budget["model"]["id"]) == (pi_model["provider"], pi_model["id"])
    assert budget["window"] == pi_model["contextWindow"] == usage["contextWindow"]
    assert budget["threshold"] == budget["window"] - reserve
    assert budget.get("footerTokens") == usage["tokens"]  # Pi's footer count (null after a compaction)
    if usage["tokens"] is not None:
        assert budget["contextTokens"] == usage["tokens"]


def assert_sent_as_projected(model: FakeLlmServer, seen: dict[str, Any], text: str) -> dict[str, Any]:
    """The request Pi sent next is the projected one: system prompt, messages, model (and the new prompt last)."""
    body: dict[str, Any] = model.requests[-1].body
    projected = seen["projected"]
    sent = body["messages"]
    assert sent[0] == {"role": "system", "content": projected["system"]["rendered"]}
    assert [m["role"] for m in sent[1:-1]] == [m["role"] for m in projected["messages"]]
    assert [_text_of(m) for m in sent[1:-1]] == [m["text"] for m in projected["messages"]]
    assert _text_of(sent[-1]) == text
    assert body["model"] == projected["model"]["id"] == seen["state"]["state"]["model"]["id"]
    return body


async def turn_checked(
    client: ChatClient, model: FakeLlmServer, chat_id: str, session: str, text: str, reserve: int
) -> dict[str, Any]:
    seen = await views(client, chat_id, session)
    assert_budget_is_pis(seen, reserve)
    await client.turn(chat_id, text)
    return assert_sent_as_projected(model, seen, text) | {"seen": seen}


async def drift_after(client: ChatClient, chat_id: str, since: int) -> dict[str, Any] | None:
    found = await client.wait(lambda: next((d for d in client.drifts[since:] if d["chatId"] == chat_id), None))
    drift: dict[str, Any] | None = found["drift"]
    return drift


async def test_during_one_chat_the_views_show_what_pi_then_sends_and_writes(
    chat_server: Callable[..., Any], model: FakeLlmServer, workspace: Workspace
) -> None:
    agents = workspace.write("AGENTS.md", "# Rules\nVersion one.\n")
    first = await chat_server()
    setup_agent(first, model, {"compaction": {"keepRecentTokens": 20000}})
    model.set_default(ScriptedResponse(text=ANSWER, usage={"input": 2400, "output": 90}))
    chat_id = (await first.ask("pi/chat/start", {}))["chatId"]
    await first.turn(chat_id, "first question")
    session = (await first.ask("pi/chat/state", {"chatId": chat_id}))["session"]
    reserve = 16384  # Pi's default: no settings file names it
    await turn_checked(first, model, chat_id, session, "second question", reserve)

    # 1. AGENTS.md saved during the chat: Pi keeps the prompt it read, and the views say so.
    since = len(first.drifts)
    agents.write_text("# Rules\nVersion two, saved during the chat.\n", encoding="utf-8")
    first.client.text_document_did_save(
        types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=workspace.uri(agents)))
    )
    drift = await drift_after(first, chat_id, since)
    assert drift is not None and drift["files"] == ["AGENTS.md"]
    body = await turn_checked(first, model, chat_id, session, "third question", reserve)
    assert "Version two" not in body["messages"][0]["content"]

    # 2. Pi's settings changed: the preview uses what Pi read (nothing to compact), as Pi does.
    since = len(first.drifts)
    setup_agent(first, model, {"compaction": {"keepRecentTokens": 10}})
    drift = await drift_after(first, chat_id, since)
    assert drift is not None and drift["settings"] == ["compaction.keepRecentTokens"]
    seen = await views(first, chat_id, session)
    assert seen["preview"].startswith("Nothing to compact (session too small)")
    with pytest.raises(JsonRpcException, match=r"Nothing to compact \(session too small\)"):
        await first.ask("pi/chat/compact", {"chatId": chat_id})

    # 3. Reload: Pi reads the files again; what it sends next carries the change, as projected.
    info = await first.ask("pi/chat/reload", {"chatId": chat_id})
    assert info.get("drift") is None
    body = await turn_checked(first, model, chat_id, session, "fourth question", reserve)
    assert "Version two, saved during the chat." in body["messages"][0]["content"]

    # 4. Compaction: the preview's cut and count are those of the entry Pi writes; then Pi's count is unknown.
    seen = await views(first, chat_id, session)
    preview, budget = seen["preview"], seen["budget"]
    assert isinstance(preview, dict) and preview["tokensBefore"] == budget["contextTokens"]
    await first.ask("pi/chat/compact", {"chatId": chat_id})
    entry = [e for e in entries(session) if e["type"] == "compaction"][-1]
    assert (entry["firstKeptEntryId"], entry["tokensBefore"]) == (preview["firstKeptEntryId"], preview["tokensBefore"])
    after = await views(first, chat_id, session)
    assert after["state"]["stats"]["contextUsage"]["tokens"] is None and after["budget"].get("footerTokens") is None
    assert after["budget"]["contextTokensSource"] == "estimate"
    # The CLI reads the same file with the same settings (Pi reloaded them): the same figures.
    cli = json.loads(
        subprocess.run(
            [sys.executable, "-m", "lsp_server", "session", session, "--json"],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "HOME": str(workspace.home), "PI_CODING_AGENT_DIR": str(first.agent.path)},
        ).stdout
    )["budget"]
    for key in ("contextTokens", "window", "threshold", "footerTokens"):
        assert cli.get(key) == after["budget"].get(key), key
    body = await turn_checked(first, model, chat_id, session, "fifth question", reserve)
    assert entry["summary"] in _text_of(body["messages"][1])

    # 5. The window reloads mid-turn, after a settings change Pi has not read: the next server takes the kept Pi up
    #    and counts with what that Pi read (the record the first server left), not with the files.
    setup_agent(first, model, {"compaction": {"keepRecentTokens": 10, "reserveTokens": 20000}})
    await first.wait(lambda: any(d["chatId"] == chat_id and d["drift"] for d in first.drifts[since:]))
    model.enqueue(ScriptedResponse(text=ANSWER, usage={"input": 2400, "output": 90}, hold_after_chunks=1))
    since_events, held = first.mark(), len(model.requests)
    await first.ask("pi/chat/prompt", {"chatId": chat_id, "text": "sixth question"})
    await asyncio.to_thread(model.wait_until_held, held)
    await first.wait(lambda: first.text(chat_id, since_events))
    await asyncio.wait_for(first.client.shutdown_session(), WAIT_S)
    second = await chat_server()
    setup_agent(second, model, {"compaction": {"keepRecentTokens": 10, "reserveTokens": 20000}})
    taken = await second.ask("pi/chat/start", {"session": session})
    assert taken["reattached"] is True
    assert taken["drift"]["settings"] == ["compaction.reserveTokens"]  # what Pi read is known to the new server
    chat_id = taken["chatId"]
    since_events = second.mark()
    model.release(held)
    await second.event(chat_id, "agent_settled", since_events)
    body = await turn_checked(second, model, chat_id, session, "seventh question", reserve)

    # 6. Model and thinking level switched: the budget is the new model's, the request carries both.
    await second.ask("pi/chat/setModel", {"chatId": chat_id, "model": "fake/fake-2"})
    await second.ask("pi/chat/setThinkingLevel", {"chatId": chat_id, "level": "high"})
    body = await turn_checked(second, model, chat_id, session, "eighth question", reserve)
    assert body["model"] == "fake-2" and body["reasoning_effort"] == "high"
    seen = await views(second, chat_id, session)
    assert seen["budget"]["window"] == 64000 and seen["projected"]["thinkingLevel"] == "high"
    assert json.loads(json.dumps(seen["budget"]["model"]))["id"] == "fake-2"
    await second.ask("pi/chat/stop", {"chatId": chat_id})
