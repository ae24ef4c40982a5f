"""A live chat's numbers come from what its Pi read, and the server says when the files differ (real Pi 1.6.0).

Each test changes something on disk while Pi runs, then checks three parties agree: what the server
answers (``pi/chat/drift``, ``pi/projectedRequest``, ``pi/chat/compactPreview``, ``pi/turnLedger``),
the request Pi really sends next (the loopback model's record) and what Pi writes (the session file).
The rules they rest on are tests of ``tests/pi_rpc/test_real_live_changes.py``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types

from tests.lsp.conftest import Workspace
from tests.lsp.test_chat import ChatClient, _text_of, chat_server, entries, model, pi_under_test
from tests.support.fake_llm_server import FakeLlmServer, ScriptedResponse

pytestmark = pytest.mark.pi
__all__ = ["chat_server", "model", "pi_under_test"]


def sent_system(model: FakeLlmServer, index: int = -1) -> str:
    return _text_of(model.requests[index].body["messages"][0])


def saved(client: ChatClient, path: Path, text: str) -> None:
    """The file written and saved in the editor (didSave), as a user saves AGENTS.md."""
    path.write_text(text, encoding="utf-8")
    client.client.text_document_did_save(
        types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=client.workspace.uri(path)))
    )


async def drift_of(client: ChatClient, chat_id: str, since: int = 0) -> dict[str, Any] | None:
    """The next ``pi/chat/drift`` of the chat after notification ``since``."""
    found = await client.wait(lambda: next((d for d in client.drifts[since:] if d["chatId"] == chat_id), None))
    drift: dict[str, Any] | None = found["drift"]
    return drift


async def test_a_saved_agents_md_is_not_what_pi_sends_next_until_the_chat_reloads(
    chat_server: Callable[..., Any], model: FakeLlmServer, workspace: Workspace
) -> None:
    agents = workspace.write("AGENTS.md", "# Rules\nVersion one.\n")
    client = await chat_server()
    model.set_default(ScriptedResponse(text="ok"))
    info = await client.ask("pi/chat/start", {})
    chat_id = info["chatId"]
    assert info.get("drift") is None and info["heldSince"] > 0
    await client.turn(chat_id, "first")
    session = (await client.ask("pi/chat/state", {"chatId": chat_id}))["session"]

    saved(client, agents, "# Rules\nVersion two, saved during the chat.\n")
    drift = await drift_of(client, chat_id)
    assert drift is not None
    assert (drift["files"], drift["sections"], drift["action"]) == (["AGENTS.md"], ["project_context"], "reload")
    assert drift["message"].startswith("AGENTS.md changed since this Pi read its files, and Pi keeps what it read")
    ledger = await client.ask("pi/turnLedger", {"session": session})
    assert ledger["liveChat"]["chatId"] == chat_id and ledger["liveChat"]["drift"] == drift
    assert ledger["promptUpdate"]["patch"] == {}  # Pi holds the prompt it read: it records nothing next
    assert list(ledger["liveChat"]["reload"]["patch"]) == ["project_context"]  # what Reload would make it record
    projected = await client.ask("pi/projectedRequest", {"session": session})
    await client.turn(chat_id, "second")
    assert sent_system(model) == projected["system"]["rendered"] == sent_system(model, 0)  # the old prompt

    info = await client.ask("pi/chat/reload", {"chatId": chat_id})
    assert info["chatId"] == chat_id and info.get("drift") is None and info["session"] == session
    projected = await client.ask("pi/projectedRequest", {"session": session})
    assert "Version two, saved during the chat." in projected["system"]["rendered"]
    await client.turn(chat_id, "third")
    assert sent_system(model) == projected["system"]["rendered"]
    recorded = [e["message"] for e in entries(session) if e["type"] == "message" and e["message"]["role"] == "system"]
    assert [list(m["sections"]) for m in recorded[1:]] == [["project_context"]]


async def test_a_settings_change_is_previewed_with_the_settings_pi_read_and_taken_up_by_reload(
    chat_server: Callable[..., Any], model: FakeLlmServer
) -> None:
    client = await chat_server()
    settings = client.agent.path / "settings.json"
    settings.write_text(json.dumps({"defaultProvider": "fake", "compaction": {"keepRecentTokens": 20000}}))
    model.set_default(ScriptedResponse(text="an answer " * 30))
    chat_id = (await client.ask("pi/chat/start", {}))["chatId"]
    await client.turn(chat_id, "first question")
    await client.turn(chat_id, "second question")
    settings.write_text(json.dumps({"defaultProvider": "fake", "compaction": {"keepRecentTokens": 10}}))
    drift = await drift_of(client, chat_id)
    assert drift is not None and drift["settings"] == ["compaction.keepRecentTokens"] and drift["action"] == "reload"
    # The preview says what Pi says: it still keeps 20,000 recent tokens, so there is nothing to compact.
    with pytest.raises(Exception, match=r"Nothing to compact \(session too small\)"):
        await client.ask("pi/chat/compactPreview", {"chatId": chat_id})
    with pytest.raises(Exception, match=r"Nothing to compact \(session too small\)"):
        await client.ask("pi/chat/compact", {"chatId": chat_id})
    await client.ask("pi/chat/reload", {"chatId": chat_id})
    preview = await client.ask("pi/chat/compactPreview", {"chatId": chat_id})
    result = await client.ask("pi/chat/compact", {"chatId": chat_id})
    assert (result["firstKeptEntryId"], result["tokensBefore"]) == (
        preview["firstKeptEntryId"],
        preview["tokensBefore"],
    )


async def test_trust_from_the_chat_records_it_as_pi_does_and_the_new_pi_loads_the_projects_skills(
    chat_server: Callable[..., Any], model: FakeLlmServer, workspace: Workspace
) -> None:
    workspace.write(".pi/skills/release/SKILL.md", "---\nname: release\ndescription: Cuts a release here.\n---\nGo.\n")
    client = await chat_server()
    model.set_default(ScriptedResponse(text="ok"))
    started = await client.ask("pi/chat/start", {})
    chat_id = started["chatId"]
    assert started["projectUntrusted"].startswith("Pi does not trust this project (no stored decision")
    assert "leaves out .pi/skills" in started["projectUntrusted"]
    await client.turn(chat_id, "first")
    session = (await client.ask("pi/chat/state", {"chatId": chat_id}))["session"]
    assert "Cuts a release here." not in sent_system(model)  # RPC mode: an untrusted project's skills stay out
    info = await client.ask("pi/chat/trust", {"chatId": chat_id})
    assert info["chatId"] != chat_id and info["session"] == session and info.get("drift") is None
    assert info.get("projectUntrusted") is None
    assert json.loads((client.agent.path / "trust.json").read_text()) == {str(workspace.root): True}
    assert not any(e["chatId"] == chat_id for e in client.exits)  # the restart is not a crash to report
    projected = await client.ask("pi/projectedRequest", {"session": session})
    await client.turn(info["chatId"], "second")
    sent = sent_system(model)
    assert "Cuts a release here." in sent
    # Pi's own introduction of the skills block is not pi-context's to copy, and the session recorded none to
    # take it from (it had no skills before): the rest of the prompt is exactly what Pi sent.
    assert _without_skills_intro(sent) == _without_skills_intro(projected["system"]["rendered"])


def _without_skills_intro(prompt: str) -> str:
    head, _, rest = prompt.partition("<skills>\n")
    return head + rest[rest.index("<available_skills>") :]


async def test_stop_clears_pis_queue_and_gives_the_queued_texts_back(
    chat_server: Callable[..., Any], model: FakeLlmServer
) -> None:
    client = await chat_server()
    model.enqueue(ScriptedResponse(text="half said", chunks=["half ", "said"], stall_after_chunks=1))
    model.set_default(ScriptedResponse(text="ok"))
    chat_id = (await client.ask("pi/chat/start", {}))["chatId"]
    since = client.mark()
    await client.ask("pi/chat/prompt", {"chatId": chat_id, "text": "first"})
    await client.wait(lambda: client.text(chat_id, since))
    queued = await client.ask("pi/chat/prompt", {"chatId": chat_id, "text": "steer", "streamingBehavior": "steer"})
    assert queued == {"disposition": "queued"}
    assert await client.ask("pi/chat/abort", {"chatId": chat_id}) == {"steering": ["steer"], "followUp": []}
    await client.turn(chat_id, "an unrelated question")
    users = [m for m in model.requests[-1].body["messages"] if m["role"] == "user"]
    assert [_text_of(m) for m in users] == ["first", "an unrelated question"]


async def test_a_fork_reads_the_files_again_and_the_views_follow_it(
    chat_server: Callable[..., Any], model: FakeLlmServer, workspace: Workspace
) -> None:
    agents = workspace.write("AGENTS.md", "# Rules\nVersion one.\n")
    client = await chat_server()
    model.set_default(ScriptedResponse(text="ok"))
    chat_id = (await client.ask("pi/chat/start", {}))["chatId"]
    await client.turn(chat_id, "first")
    await client.turn(chat_id, "second")
    saved(client, agents, "# Rules\nVersion two, saved during the chat.\n")
    assert await drift_of(client, chat_id) is not None
    points = (await client.ask("pi/chat/forkPoints", {"chatId": chat_id}))["messages"]
    forked = await client.ask("pi/chat/fork", {"chatId": chat_id, "entryId": points[-1]["entryId"]})
    state = await client.ask("pi/chat/state", {"chatId": chat_id})
    assert state.get("drift") is None  # Pi built a new runtime for the fork: it holds the saved file now
    await client.turn(chat_id, "second, again")  # the fork's file is written with its first message
    assert "Version two, saved during the chat." in sent_system(model)
    projected = await client.ask("pi/projectedRequest", {"session": forked["session"]})
    await client.turn(chat_id, "third")
    assert sent_system(model) == projected["system"]["rendered"]
