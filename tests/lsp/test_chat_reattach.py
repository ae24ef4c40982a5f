# ruff: noqa: F811 - the fixtures come from test_chat.py, and tests take them as parameters of the same names
"""A turn outlives the language server (a window reload): real Pi under a keeper, two real servers in turn.

The first server starts a chat and a turn whose stream the loopback model holds after a few pieces;
then that server ends (a clean ``shutdown``/``exit``, or ``kill -9``). Pi goes on under its keeper.
A second server finds the chat (``pi/chat/list``), takes it up (``pi/chat/start {session}``),
rebuilds the conversation from ``pi/chat/messages`` (Pi's messages, the reply in progress and the
``seq`` they include) and receives the rest of the turn live. The reply the second client puts
together is exactly the text the model sent, the session file is complete and loads, there was one
Pi all along, and nothing is left once the chat stops. With nobody coming back, the grace period
ends Pi and its keeper; an idle chat still ends with its server.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pygls.exceptions import JsonRpcException

from lsp_server.pi_rpc.keeper_files import read_records
from lsp_server.session.tail import load_session
from tests.lsp.conftest import WAIT_S, Workspace
from tests.lsp.test_chat import (  # noqa: F401 - fixtures
    ChatClient,
    chat_server,
    entries,
    model,
    pi_under_test,
)
from tests.pi_rpc.conftest import PROBE_EXTENSION
from tests.support.fake_llm_server import FakeLlmServer, ScriptedResponse
from tests.support.processes import keeper_processes, pi_processes

pytestmark = pytest.mark.pi

REPLY = "The keeper held this reply while the window reloaded, and not one piece of it was lost. " * 3


async def poll(condition: Callable[[], bool]) -> None:
    """Wait for a process to go (nothing signals it); a hang guard, not a timing check."""
    async with asyncio.timeout(WAIT_S):
        while not condition():
            await asyncio.sleep(0.05)


def deltas(events: list[dict[str, Any]]) -> str:
    return "".join(
        e["assistantMessageEvent"]["delta"]
        for e in events
        if e.get("type") == "message_update" and e["assistantMessageEvent"].get("type") == "text_delta"
    )


def assert_valid_session(path: str) -> None:
    loaded = load_session(path)
    assert loaded.is_session and loaded.problems == []
    command = [sys.executable, "-m", "lsp_server", "session", path, "--json"]
    done = subprocess.run(command, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["session"]["problems"] == []


async def start_held_turn(client: ChatClient, model: FakeLlmServer) -> tuple[str, str, int]:
    """A chat whose turn streams two pieces, then waits for the test: (chat id, session, Pi's pid)."""
    model.enqueue(ScriptedResponse(text=REPLY, hold_after_chunks=2))
    info = await client.ask("pi/chat/start", {})
    assert info["kept"] is True and info["reattached"] is False
    chat_id = info["chatId"]
    await client.ask("pi/chat/prompt", {"chatId": chat_id, "text": "tell me about keepers"})
    await asyncio.to_thread(model.wait_until_held, 0)
    await client.wait(lambda: len(deltas([e["event"] for e in client.events if e["chatId"] == chat_id])) >= 32)
    session = (await client.ask("pi/chat/state", {"chatId": chat_id}))["session"]
    (pid,) = pi_processes(client.agent.path)
    return chat_id, session, pid


async def take_up(client: ChatClient, session: str, model: FakeLlmServer, pid: int) -> str:
    """The second server finds the chat, takes it up, gets the rest of the turn; answers the chat id."""
    listed = await client.ask("pi/chat/list", {})
    assert listed["chats"] == []
    (detached,) = listed["detached"]
    assert detached["session"] == session and detached["busy"] is True and detached["piPid"] == pid
    # One writer: while the kept Pi holds the session, pi-context's own writer refuses it.
    with pytest.raises(JsonRpcException, match="kept running after its window closed"):
        await client.command("pi.compact", {"session": session, "previewOnly": True})
    info = await client.ask("pi/chat/start", {"session": session})
    assert info["reattached"] is True and info["streaming"] is True and info["session"] == session
    chat_id = info["chatId"]
    snapshot = await client.ask("pi/chat/messages", {"chatId": chat_id})
    assert [m["role"] for m in snapshot["items"]][-1] == "user"  # the reply has not ended: it is in flight
    in_flight = snapshot["inFlight"]
    assert [e["type"] for e in in_flight][:1] == ["message_start"] and deltas(in_flight)
    assert pi_processes(client.agent.path) == [pid]  # the same Pi: nothing was started again
    since = client.mark()
    model.release(0)
    settled = await client.event(chat_id, "agent_settled", since)
    assert settled.get("aborted", False) is False  # no `aborted` before Pi 1.1.0
    live = [e["event"] for e in client.events if e["chatId"] == chat_id and e["seq"] > snapshot["seq"]]
    assert deltas(in_flight) + deltas(live) == REPLY  # the view's reply: every piece once, in order
    roles = [e["message"]["role"] for e in entries(session) if e["type"] == "message"]
    assert roles[-2:] == ["user", "assistant"]
    assert_valid_session(session)
    return chat_id


async def stop_and_check_nothing_is_left(client: ChatClient, chat_id: str) -> None:
    await client.ask("pi/chat/stop", {"chatId": chat_id})
    await client.wait(lambda: any(e["chatId"] == chat_id for e in client.exits))
    await poll(lambda: not pi_processes(client.agent.path) and not keeper_processes(client.agent.path))


async def test_a_turn_goes_on_across_a_clean_shutdown_and_the_next_server_takes_it_up(
    chat_server: Callable[..., Any], model: FakeLlmServer, keepers_folder: Path
) -> None:
    first = await chat_server()
    _, session, pid = await start_held_turn(first, model)
    await asyncio.wait_for(first.client.shutdown_session(), WAIT_S)  # the window reloads
    (record,) = read_records(keepers_folder)
    assert record.state == "detached" and record.busy and record.session == session
    assert pi_processes(first.agent.path) == [pid]  # Pi goes on
    second = await chat_server()
    chat_id = await take_up(second, session, model, pid)
    await stop_and_check_nothing_is_left(second, chat_id)


async def test_a_turn_goes_on_when_the_server_is_killed_and_the_next_server_takes_it_up(
    chat_server: Callable[..., Any], model: FakeLlmServer
) -> None:
    first = await chat_server()
    _, session, pid = await start_held_turn(first, model)
    server = first.client._server
    assert server is not None
    os.kill(server.pid, signal.SIGKILL)
    await server.wait()
    await poll(lambda: first.client.stopped)
    assert pi_processes(first.agent.path) == [pid]
    second = await chat_server()
    chat_id = await take_up(second, session, model, pid)
    await stop_and_check_nothing_is_left(second, chat_id)


async def test_a_second_window_cannot_take_a_chat_another_window_holds(
    chat_server: Callable[..., Any], model: FakeLlmServer
) -> None:
    first = await chat_server()
    chat_id, session, _ = await start_held_turn(first, model)
    second = await chat_server()
    assert (await second.ask("pi/chat/list", {}))["detached"] == []  # attached elsewhere: not offered
    with pytest.raises(JsonRpcException, match="open in a chat of another window"):
        await second.ask("pi/chat/start", {"session": session})
    model.release(0)
    await first.event(chat_id, "agent_settled")
    await stop_and_check_nothing_is_left(first, chat_id)


async def test_with_nobody_coming_back_the_grace_period_ends_pi_and_its_keeper(
    chat_server: Callable[..., Any], model: FakeLlmServer, keepers_folder: Path
) -> None:
    first = await chat_server(settings={"pi": {"reattachGraceSeconds": 0.5}})
    _, session, pid = await start_held_turn(first, model)
    await asyncio.wait_for(first.client.shutdown_session(), WAIT_S)
    assert pi_processes(first.agent.path) == [pid]
    model.release(0)  # the turn finishes with no window, then the grace runs out
    await poll(lambda: not pi_processes(first.agent.path) and not keeper_processes(first.agent.path))
    assert read_records(keepers_folder) == []
    roles = [e["message"]["role"] for e in entries(session) if e["type"] == "message"]
    assert roles[-2:] == ["user", "assistant"]  # Pi wrote the whole reply before it ended
    assert entries(session)[-1]["message"]["content"][0]["text"] == REPLY
    assert_valid_session(session)


async def test_an_idle_chat_still_ends_with_its_server(
    chat_server: Callable[..., Any], model: FakeLlmServer, keepers_folder: Path, workspace: Workspace
) -> None:
    model.set_default(ScriptedResponse(text="ok"))
    client = await chat_server()
    chat_id = (await client.ask("pi/chat/start", {}))["chatId"]
    await client.turn(chat_id, "hello")
    assert len(pi_processes(client.agent.path)) == 1 and len(keeper_processes(client.agent.path)) == 1
    await asyncio.wait_for(client.client.shutdown_session(), WAIT_S)
    assert pi_processes(client.agent.path) == []  # ended before shutdown answered, as without a keeper
    assert read_records(keepers_folder) == []
    await poll(lambda: not keeper_processes(client.agent.path))


async def test_a_dialog_pi_asked_before_the_reload_is_asked_again_and_the_answer_reaches_pi(
    chat_server: Callable[..., Any], model: FakeLlmServer
) -> None:
    first = await chat_server()
    extensions = first.agent.path / "extensions"  # Pi loads the probe from its agent dir
    extensions.mkdir(exist_ok=True)
    shutil.copy(PROBE_EXTENSION, extensions / PROBE_EXTENSION.name)
    info = await first.ask("pi/chat/start", {})
    chat_id, session = info["chatId"], info["session"]
    since = first.mark()
    # Pi answers the prompt only once the dialog is answered: the server that asked will be gone by then.
    asked = asyncio.ensure_future(first.ask("pi/chat/prompt", {"chatId": chat_id, "text": "/probe-confirm"}))
    dialog = await first.event(chat_id, "extension_ui_request", since)
    assert dialog["method"] == "confirm"
    await asyncio.wait_for(first.client.shutdown_session(), WAIT_S)
    (refused,) = await asyncio.gather(asked, return_exceptions=True)  # the server let go of Pi: no answer for it
    assert isinstance(refused, JsonRpcException)
    (pid,) = pi_processes(first.agent.path)  # Pi waits for the answer: it is kept
    assert not Path(session).exists()  # nothing written yet: the chat is taken up all the same
    second = await chat_server()
    taken = await second.ask("pi/chat/start", {"session": session})
    assert taken["reattached"] is True and pi_processes(second.agent.path) == [pid]
    snapshot = await second.ask("pi/chat/messages", {"chatId": taken["chatId"]})
    assert [e for e in snapshot["inFlight"] if e["type"] == "extension_ui_request"] == [dialog]
    since = second.mark()
    await second.ask("pi/chat/uiResponse", {"chatId": taken["chatId"], "id": dialog["id"], "confirmed": True})
    notified = await second.event(taken["chatId"], "extension_ui_request", since)
    assert (notified["method"], notified["message"]) == ("notify", "confirmed")
    await stop_and_check_nothing_is_left(second, taken["chatId"])


CANARY = "sk-canary-Keeper7q2X9vLmN4pR8sT1wY6zB3"


async def test_a_key_the_model_streams_in_pieces_is_redacted_before_and_after_the_take_up(
    chat_server: Callable[..., Any], model: FakeLlmServer
) -> None:
    """A model repeats a key Pi holds, in pieces no one of which is the key; the window reloads in the middle.

    Both servers relay the reply with the key replaced: the first as it streams, the second in the
    replay of the run in flight and in what follows live (the second server knows the chat's keys
    as the first did: the keeper does not carry them over).
    """
    env = {"PI_CONTEXT_CANARY_API_KEY": CANARY}
    pieces = ["The key in .env is ", CANARY[:7], CANARY[7:20], CANARY[20:], "; ", "and ", CANARY[:15], CANARY[15:], "."]
    text = "".join(pieces)
    first = await chat_server(extra_env=env)
    model.enqueue(ScriptedResponse(text=text, chunks=pieces, hold_after_chunks=5))
    chat_id = (await first.ask("pi/chat/start", {}))["chatId"]
    await first.ask("pi/chat/prompt", {"chatId": chat_id, "text": "what is in .env?"})
    await asyncio.to_thread(model.wait_until_held, 0)
    await first.wait(lambda: deltas([e["event"] for e in first.events]).endswith("; "))
    assert deltas([e["event"] for e in first.events]) == "The key in .env is ***; "
    session = (await first.ask("pi/chat/state", {"chatId": chat_id}))["session"]
    await asyncio.wait_for(first.client.shutdown_session(), WAIT_S)
    second = await chat_server(extra_env=env)
    info = await second.ask("pi/chat/start", {"session": session})
    assert info["reattached"] is True
    taken = info["chatId"]
    snapshot = await second.ask("pi/chat/messages", {"chatId": taken})
    since = second.mark()
    model.release(0)
    end = await second.event(taken, "message_end", since)
    await second.event(taken, "agent_settled", since)
    live = [e["event"] for e in second.events if e["chatId"] == taken and e["seq"] > snapshot["seq"]]
    assert deltas(snapshot["inFlight"]) + deltas(live) == text.replace(CANARY, "***")
    assert end["message"]["content"][-1]["text"] == text.replace(CANARY, "***")
    relayed = json.dumps([first.events, second.events, snapshot])
    assert [piece for piece in pieces if CANARY.startswith(piece) or piece in CANARY if piece in relayed] == []
    assert CANARY in Path(session).read_text(encoding="utf-8")  # Pi's own file keeps what the model said
    await stop_and_check_nothing_is_left(second, taken)
