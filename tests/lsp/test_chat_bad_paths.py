"""The chat's bad paths through the real language server, with the real Pi 1.6.0 and the loopback model.

Each test breaks something under a live chat (its workspace folder removed, its session file
deleted or replaced, an abort while a tool runs, a model that keeps failing) and checks the four
things a user relies on: they are told in words, the session file still loads as a session, no
line of it was lost, and no Pi process (nor a tool's shell) is left behind.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types

from lsp_server.session.tail import load_session
from lsp_server.vocabulary.pi_releases import rules_for
from tests.lsp import test_chat as chat_tests
from tests.lsp.conftest import Workspace
from tests.lsp.test_chat import ChatClient, entries, pi_processes
from tests.support.fake_llm_server import FakeLlmServer, ScriptedResponse
from tests.support.pi_for_tests import PiUnderTest

pytestmark = pytest.mark.pi

# The chat fixtures of test_chat.py, shared by name: a real server, a real Pi, the loopback model.
chat_server = chat_tests.chat_server
model = chat_tests.model
pi_under_test = chat_tests.pi_under_test


def assert_valid_session(path: str) -> list[dict[str, Any]]:
    """The file loads without a problem in pi-context (the library and ``pi-context session``)."""
    loaded = load_session(path)
    assert loaded.is_session and loaded.problems == [], loaded.problems
    done = subprocess.run(
        [sys.executable, "-m", "lsp_server", "session", path, "--json"], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["session"]["problems"] == []
    return entries(path)


def ids(lines: list[dict[str, Any]]) -> list[Any]:
    return [line.get("id") for line in lines]


async def notice(client: ChatClient, chat_id: str, kind: str) -> dict[str, Any]:
    found: dict[str, Any] = await client.wait(
        lambda: next((n for n in client.notices if n["chatId"] == chat_id and n.get("kind") == kind), None)
    )
    return found


async def started(client: ChatClient) -> tuple[str, str]:
    """A chat with one finished turn: its id and the session file Pi writes."""
    chat_id = (await client.ask("pi/chat/start", {}))["chatId"]
    await client.turn(chat_id, "first question")
    session = (await client.ask("pi/chat/state", {"chatId": chat_id}))["session"]
    assert Path(session).is_file()
    return chat_id, session


async def stop_and_check_nothing_left(client: ChatClient, chat_id: str) -> None:
    await client.ask("pi/chat/stop", {"chatId": chat_id})
    await client.wait(lambda: any(e["chatId"] == chat_id for e in client.exits))
    assert pi_processes(client.agent.path) == []


# --- 1. the workspace folder removed ----------------------------------------------------------------


async def test_removing_the_chats_workspace_folder_ends_it_mid_reply_keeping_every_line(
    chat_server: Callable[..., Any], model: FakeLlmServer, workspace: Workspace, pi_under_test: PiUnderTest
) -> None:
    model.enqueue(ScriptedResponse(text="one"), ScriptedResponse(text="a reply cut off " * 8, hold_after_chunks=1))
    client = await chat_server()
    chat_id, session = await started(client)
    since = client.mark()
    await client.ask("pi/chat/prompt", {"chatId": chat_id, "text": "second question"})
    await asyncio.to_thread(model.wait_until_held, 1)
    await client.event(chat_id, "message_update", since)
    before = Path(session).read_bytes()
    removed = types.WorkspaceFolder(uri=workspace.uri(workspace.root), name="ws")
    client.client.workspace_did_change_workspace_folders(
        types.DidChangeWorkspaceFoldersParams(event=types.WorkspaceFoldersChangeEvent(added=[], removed=[removed]))
    )
    said = await notice(client, chat_id, "folder-removed")
    assert said["level"] == "warning"
    assert f"The workspace folder {workspace.root} was removed" in said["message"]
    keeps = rules_for(pi_under_test.version).has("stop-keeps-reply")  # what became of it, as this Pi does it
    assert session in said["message"] and ("cut off and kept as aborted" if keeps else "is lost") in said["message"]
    exited = await client.wait(lambda: next((e for e in client.exits if e["chatId"] == chat_id), None))
    assert exited["expected"] is True and exited["session"] == session
    assert pi_processes(client.agent.path) == []
    model.release()
    after = Path(session).read_bytes()
    assert after.startswith(before)  # nothing rewritten, nothing lost
    lines = assert_valid_session(session)
    cut = [line["message"] for line in lines if line["type"] == "message" and line["message"]["role"] == "assistant"]
    if keeps:
        assert cut[-1]["stopReason"] == "aborted"  # the reply in progress is kept, marked as cut off
    else:
        assert [m["stopReason"] for m in cut] == ["stop"]  # only the first reply: the one cut off was not written
    # The chat resumes the session once the folder is back.
    client.client.workspace_did_change_workspace_folders(
        types.DidChangeWorkspaceFoldersParams(event=types.WorkspaceFoldersChangeEvent(added=[removed], removed=[]))
    )
    resumed = await client.ask("pi/chat/start", {"session": session})
    model.set_default(ScriptedResponse(text="back"))
    await client.turn(resumed["chatId"], "third question")
    assert ids(assert_valid_session(session))[: len(lines)] == ids(lines)
    await stop_and_check_nothing_left(client, resumed["chatId"])


# --- 2. the session file deleted ---------------------------------------------------------------------


async def test_a_session_file_deleted_while_idle_is_written_back_from_pi_and_the_chat_goes_on(
    chat_server: Callable[..., Any], model: FakeLlmServer
) -> None:
    model.set_default(ScriptedResponse(text="an answer"))
    client = await chat_server()
    chat_id, session = await started(client)
    kept = entries(session)
    os.unlink(session)
    said = await notice(client, chat_id, "session-deleted")
    assert said["level"] == "warning" and f"The session file {session} was deleted" in said["message"]
    assert "writes the session Pi holds back to that path" in said["message"]
    restored = await notice(client, chat_id, "session-restored")
    assert restored["session"] == session and "nothing of the conversation was lost" in restored["message"]
    assert assert_valid_session(session) == kept  # the same lines, byte for byte as JSON values
    await client.turn(chat_id, "second question")  # Pi appends to the file written back
    lines = assert_valid_session(session)
    assert lines[: len(kept)] == kept and [e["message"]["role"] for e in lines[len(kept) :]] == ["user", "assistant"]
    assert (await client.ask("pi/chat/state", {"chatId": chat_id}))["session"] == session
    await stop_and_check_nothing_left(client, chat_id)


async def test_a_session_file_deleted_mid_reply_gets_every_line_back_after_the_reply(
    chat_server: Callable[..., Any], model: FakeLlmServer
) -> None:
    model.enqueue(ScriptedResponse(text="one"), ScriptedResponse(text="the reply goes on " * 6, hold_after_chunks=1))
    model.set_default(ScriptedResponse(text="later"))
    client = await chat_server()
    chat_id, session = await started(client)
    since = client.mark()
    await client.ask("pi/chat/prompt", {"chatId": chat_id, "text": "second question"})
    await asyncio.to_thread(model.wait_until_held, 1)
    kept = entries(session)  # with the user's second question, written when the run started
    os.unlink(session)
    said = await notice(client, chat_id, "session-deleted")
    assert "when Pi's current reply ends" in said["message"]
    model.release(1)  # Pi's next entry starts a file without a header ...
    await client.event(chat_id, "agent_settled", since)
    restored = await notice(client, chat_id, "session-restored")  # ... which the whole session replaces
    assert restored["session"] == session and "was part of this session" in restored["message"]
    lines = assert_valid_session(session)
    assert lines[: len(kept)] == kept
    assert lines[-1]["message"]["role"] == "assistant" and lines[-1]["message"]["stopReason"] == "stop"
    await client.turn(chat_id, "third question")
    assert ids(assert_valid_session(session))[: len(lines)] == ids(lines)
    await stop_and_check_nothing_left(client, chat_id)


# --- 3. the session file replaced ----------------------------------------------------------------------


async def test_a_session_file_replaced_by_another_file_is_left_alone_and_the_chat_moves_beside_it(
    chat_server: Callable[..., Any], model: FakeLlmServer, tmp_path: Path
) -> None:
    model.set_default(ScriptedResponse(text="an answer"))
    client = await chat_server()
    chat_id, session = await started(client)
    kept = entries(session)
    other = tmp_path / "other.jsonl"  # somebody else's file, renamed over the session (a new inode)
    other.write_text('{"type":"note","text":"not a Pi session"}\n', encoding="utf-8")
    os.replace(other, session)
    said = await notice(client, chat_id, "session-replaced")
    assert (
        f"The session file {session} was replaced" in said["message"]
        and "another file now has its name" in said["message"]
    )
    restored = await notice(client, chat_id, "session-restored")
    moved = restored["session"]
    assert moved == session.removesuffix(".jsonl") + ".restored.jsonl"
    assert "is left as it is" in restored["message"] and moved in restored["message"]
    assert Path(session).read_text(encoding="utf-8") == '{"type":"note","text":"not a Pi session"}\n'
    assert assert_valid_session(moved) == kept
    state = await client.ask("pi/chat/state", {"chatId": chat_id})
    assert state["session"] == moved
    await client.turn(chat_id, "second question")  # the chat goes on in the new file
    assert ids(assert_valid_session(moved))[: len(kept)] == ids(kept)
    assert Path(session).read_text(encoding="utf-8") == '{"type":"note","text":"not a Pi session"}\n'
    await stop_and_check_nothing_left(client, chat_id)


async def test_a_session_file_put_back_as_an_older_copy_gets_the_whole_session_again(
    chat_server: Callable[..., Any], model: FakeLlmServer
) -> None:
    model.set_default(ScriptedResponse(text="an answer"))
    client = await chat_server()
    chat_id, session = await started(client)
    await client.turn(chat_id, "second question")
    kept = entries(session)
    older = b"".join(Path(session).read_bytes().splitlines(keepends=True)[:-2])  # a backup from before the last turn
    Path(session).write_bytes(older)  # rewritten in place: same inode, shorter
    said = await notice(client, chat_id, "session-replaced")
    assert "it shrank from" in said["message"]
    restored = await notice(client, chat_id, "session-restored")
    assert restored["session"] == session and "was part of this session" in restored["message"]
    assert assert_valid_session(session) == kept
    await stop_and_check_nothing_left(client, chat_id)


# --- 4. abort while a tool runs -----------------------------------------------------------------------


async def test_abort_during_a_bash_tool_call_ends_the_tool_as_aborted(
    chat_server: Callable[..., Any], model: FakeLlmServer, workspace: Workspace
) -> None:
    marker = workspace.root / "tool-started"
    command = f"touch {marker} && sleep 120"
    model.enqueue(
        ScriptedResponse(
            tool_calls=[{"name": "bash", "arguments": {"command": command}, "id": "call_sleep"}], finish="tool"
        )
    )
    client = await chat_server()
    chat_id = (await client.ask("pi/chat/start", {}))["chatId"]
    since = client.mark()
    await client.ask("pi/chat/prompt", {"chatId": chat_id, "text": "run the long job"})
    start = await client.event(chat_id, "tool_execution_start", since)
    assert start["toolName"] == "bash" and start["args"] == {"command": command}
    await client.wait(marker.exists)  # the shell is running
    await client.ask("pi/chat/abort", {"chatId": chat_id})
    end = await client.event(chat_id, "tool_execution_end", since)
    assert end["toolCallId"] == "call_sleep" and end["isError"] is True
    text = "".join(part.get("text", "") for part in end["result"]["content"])
    assert "abort" in text.lower()  # Pi's own words for it, readable in the card
    settled = await client.event(chat_id, "agent_settled", since)
    assert settled.get("aborted", True) is True  # no `aborted` before Pi 1.1.0
    session = (await client.ask("pi/chat/state", {"chatId": chat_id}))["session"]
    lines = assert_valid_session(session)
    results = [
        line["message"] for line in lines if line["type"] == "message" and line["message"]["role"] == "toolResult"
    ]
    assert [(r["toolCallId"], r["isError"]) for r in results] == [("call_sleep", True)]
    assert len(pi_processes(client.agent.path)) == 1  # the shell is gone, Pi is not
    await stop_and_check_nothing_left(client, chat_id)


# --- 5. a model that keeps failing --------------------------------------------------------------------


async def test_a_failing_model_is_retried_by_pi_and_the_final_error_is_readable(
    chat_server: Callable[..., Any], model: FakeLlmServer
) -> None:
    client = await chat_server()
    client.agent.write_settings({"defaultProvider": "fake", "retry": {"maxRetries": 2, "baseDelayMs": 10}})
    model.set_default(ScriptedResponse(status=503, body={"error": {"message": "the model is overloaded"}}))
    chat_id = (await client.ask("pi/chat/start", {}))["chatId"]
    settled = await client.turn(chat_id, "hello")
    assert settled.get("aborted", False) is False  # no `aborted` before Pi 1.1.0
    kinds = client.kinds(chat_id)
    assert kinds.count("auto_retry_start") == 2
    starts = [e["event"] for e in client.events if e["event"]["type"] == "auto_retry_start"]
    assert [s["attempt"] for s in starts] == [1, 2] and all("overloaded" in s["errorMessage"] for s in starts)
    final = await client.event(chat_id, "auto_retry_end")
    assert final["success"] is False and "overloaded" in final["finalError"]
    ended = [e["event"]["message"] for e in client.events if e["event"]["type"] == "message_end"]
    assert ended[-1]["role"] == "assistant" and ended[-1]["stopReason"] == "error"
    assert "overloaded" in ended[-1]["errorMessage"]
    assert len(model.requests) == 3  # the first request and two retries
    session = (await client.ask("pi/chat/state", {"chatId": chat_id}))["session"]
    assert_valid_session(session)
    await stop_and_check_nothing_left(client, chat_id)


async def test_a_stalled_model_times_out_is_retried_and_the_final_error_is_readable(
    chat_server: Callable[..., Any], model: FakeLlmServer
) -> None:
    client = await chat_server()
    client.agent.write_settings(
        {"defaultProvider": "fake", "httpIdleTimeoutMs": 500, "retry": {"maxRetries": 1, "baseDelayMs": 10}}
    )
    model.set_default(ScriptedResponse(text="a reply that stops " * 4, stall_after_chunks=1))
    chat_id = (await client.ask("pi/chat/start", {}))["chatId"]
    await client.turn(chat_id, "hello")
    final = await client.event(chat_id, "auto_retry_end")
    assert final["success"] is False and final["finalError"]
    ended = [e["event"]["message"] for e in client.events if e["event"]["type"] == "message_end"]
    assert ended[-1]["stopReason"] == "error" and ended[-1]["errorMessage"] == final["finalError"]
    # Pi reports the retry's end as it aborts the request; the fake notices the closed socket on its
    # next poll (50 ms), so wait for that instead of racing it (Pi 1.3.0 in CI's matrix lost that race).
    closed = await asyncio.to_thread(
        model.wait_for, lambda requests: len(requests) == 2 and all(r.client_closed for r in requests), 10.0
    )
    assert closed, [(r.outcome, r.client_closed) for r in model.requests]
    assert len(model.requests) == 2
    session = (await client.ask("pi/chat/state", {"chatId": chat_id}))["session"]
    assert_valid_session(session)
    await stop_and_check_nothing_left(client, chat_id)
