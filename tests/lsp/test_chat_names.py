"""Conversations with names, with the real Pi: a session's title in ``pi/sessions``, and ``pi/sessionRename``.

A session's title is Pi's name for it (the latest ``session_info`` entry) or else its first user message,
as Pi's own ``/resume`` list shows it. Renaming a session a chat's Pi holds goes through that Pi
(``set_session_name``: only Pi writes a session it holds); a session no Pi holds gets the entry Pi would
write, appended by pi-context.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pygls.exceptions import JsonRpcException

from tests.lsp import test_chat as chat_tests
from tests.lsp.test_chat import entries
from tests.support.fake_llm_server import FakeLlmServer, ScriptedResponse

pytestmark = pytest.mark.pi

# The chat fixtures of test_chat.py, shared by name: a real server, a real Pi, the loopback model.
chat_server = chat_tests.chat_server
model = chat_tests.model
pi_under_test = chat_tests.pi_under_test


def _listed(answer: dict[str, Any], session: str) -> dict[str, Any]:
    (found,) = [s for s in answer["sessions"] if s["path"] == session]
    return found


async def test_a_session_is_titled_by_its_first_message_until_pi_names_it_through_the_chat(
    chat_server: Callable[..., Any], model: FakeLlmServer
) -> None:
    model.enqueue(ScriptedResponse(text="Done.", usage={"input": 1000, "output": 20}))
    client = await chat_server()
    chat_id = (await client.ask("pi/chat/start", {}))["chatId"]
    await client.turn(chat_id, "Fix the flaky\n  inventory   test")
    session = (await client.ask("pi/chat/state", {"chatId": chat_id}))["session"]
    listed = _listed(await client.ask("pi/sessions", {}), session)
    assert listed.get("name") is None
    assert listed["firstMessage"] == "Fix the flaky\n  inventory   test"
    assert listed["title"] == "Fix the flaky inventory test"  # one line
    assert listed["model"] == f"{client.agent.provider}/{client.agent.model}"

    since = client.mark()
    answer = await client.ask("pi/sessionRename", {"chatId": chat_id, "name": "  Inventory\r\nfix  "})
    assert answer == {"session": session, "name": "Inventory fix", "via": "pi", "chatId": chat_id}
    # Pi wrote it, as Pi writes it, and said so.
    changed = await client.event(chat_id, "session_info_changed", since)
    assert changed["name"] == "Inventory fix"
    assert (await client.ask("pi/chat/state", {"chatId": chat_id}))["state"]["sessionName"] == "Inventory fix"
    infos = [e for e in entries(session) if e["type"] == "session_info"]
    assert [(list(e), e["name"]) for e in infos] == [(["type", "id", "parentId", "timestamp", "name"], "Inventory fix")]
    await client.wait(lambda: any(c["session"] == session for c in client.session_changes))
    listed = _listed(await client.ask("pi/sessions", {}), session)
    assert (listed["name"], listed["title"]) == ("Inventory fix", "Inventory fix")


async def test_a_session_no_pi_holds_is_named_with_the_entry_pi_would_write(
    chat_server: Callable[..., Any], model: FakeLlmServer
) -> None:
    model.enqueue(ScriptedResponse(text="Hello."))
    client = await chat_server()
    chat_id = (await client.ask("pi/chat/start", {}))["chatId"]
    await client.turn(chat_id, "say hello")
    session = (await client.ask("pi/chat/state", {"chatId": chat_id}))["session"]
    await client.ask("pi/chat/stop", {"chatId": chat_id})
    await client.wait(lambda: client.exits)
    before = Path(session).read_bytes()
    with pytest.raises(JsonRpcException, match="Session name cannot be empty"):
        await client.ask("pi/sessionRename", {"session": session, "name": " \n "})
    assert Path(session).read_bytes() == before
    answer = await client.ask("pi/sessionRename", {"session": session, "name": "Greeting"})
    assert answer == {"session": session, "name": "Greeting", "via": "file"}
    last = entries(session)[-1]
    assert list(last) == ["type", "id", "parentId", "timestamp", "name"] and last["name"] == "Greeting"
    assert last["parentId"] == entries(session)[-2]["id"]
    await client.wait(lambda: any(c["reason"] == "name" for c in client.session_changes))
    assert _listed(await client.ask("pi/sessions", {}), session)["title"] == "Greeting"
    # Pi reads the entry back as the session's name: a chat resuming the session has it in get_state.
    resumed = await client.ask("pi/chat/start", {"session": session})
    assert resumed["session"] == session and resumed["state"]["sessionName"] == "Greeting"
