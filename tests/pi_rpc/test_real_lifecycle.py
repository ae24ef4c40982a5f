"""The real Pi's end: killed mid-turn, closed with a tool running; and its extension dialogs."""

from __future__ import annotations

import asyncio
import json
import os
import signal
from pathlib import Path

import pytest

from lsp_server.pi_rpc import PiExitedError
from lsp_server.pi_rpc.reaper import marked_pids
from lsp_server.session.tail import load_session
from tests.pi_rpc.conftest import (
    LINUX,
    PROBE_EXTENSION,
    WAIT_S,
    RealPi,
    alive,
    command_line,
    group_alive,
    poll,
    settled,
)
from tests.support.fake_llm_server import ScriptedResponse

pytestmark = pytest.mark.pi


def sleepers(token: str) -> list[int]:
    return [pid for pid in marked_pids(token) if command_line(pid).startswith("sleep 300")]


@pytest.mark.skipif(not LINUX, reason="finds Pi's tool processes through /proc")
async def test_pi_killed_mid_turn_fails_pending_requests_and_leaves_a_valid_session(real_pi: RealPi) -> None:
    real_pi.model.enqueue(
        ScriptedResponse(text="first answer"),
        ScriptedResponse(text="never finished", chunks=["never ", "finished"], hold_after_chunks=1),
    )
    chat = await real_pi.start(extra_args=["--extension", str(PROBE_EXTENSION)])
    await chat.process.prompt("first question")
    await settled(chat.log)
    path = Path((await chat.process.get_state())["sessionFile"])
    await chat.process.prompt("second question")
    await asyncio.to_thread(real_pi.model.wait_until_held, 1)  # mid-turn: the answer is half streamed
    pending = asyncio.ensure_future(chat.process.request({"type": "bash", "command": "sleep 300"}))
    token = chat.process.owner_token
    await poll(lambda: bool(sleepers(token)))
    (sleeper,) = sleepers(token)

    os.kill(chat.process.pid, signal.SIGKILL)

    with pytest.raises(PiExitedError) as raised:
        await asyncio.wait_for(pending, WAIT_S)
    assert raised.value.returncode == -signal.SIGKILL and not raised.value.expected
    assert "chat-probe: loaded" in raised.value.stderr_tail
    assert str(raised.value) == "Pi was stopped by SIGKILL: chat-probe: loaded"
    assert [e.returncode for e in chat.log.exits] == [-signal.SIGKILL]
    with pytest.raises(PiExitedError):
        await chat.process.get_state()
    await poll(lambda: not alive(sleeper))  # Pi's detached tool shell did not outlive it
    assert not group_alive(chat.process.pid)

    session = load_session(path)
    assert session.is_session
    assert all(problem.line == len(path.read_bytes().splitlines()) for problem in session.problems)
    roles = [e["message"]["role"] for e in session.entries if e.get("type") == "message"]
    assert roles[:4] == ["system", "user", "assistant", "user"]
    # Pi's own loader takes the file back and the conversation goes on.
    real_pi.model.enqueue(ScriptedResponse(text="back again"))
    again = await real_pi.start(session_file=path)
    history = await again.process.get_messages()
    assert [m["role"] for m in history][:4] == ["system", "user", "assistant", "user"]
    await again.process.prompt("third question")
    await settled(again.log)
    assert real_pi.model.requests[-1].body["messages"][-1]["content"] == [{"type": "text", "text": "third question"}]


@pytest.mark.skipif(not LINUX, reason="finds Pi's tool processes through /proc")
async def test_close_with_a_tool_running_leaves_no_process_behind(real_pi: RealPi) -> None:
    real_pi.model.enqueue(
        ScriptedResponse(tool_calls=[{"name": "bash", "arguments": {"command": "sleep 300"}}], finish="tool")
    )
    real_pi.model.set_default(ScriptedResponse(text="done"))
    chat = await real_pi.start()
    await chat.process.prompt("run a long command")
    await chat.log.wait_type("tool_execution_start")
    token = chat.process.owner_token
    await poll(lambda: bool(sleepers(token)))
    (sleeper,) = sleepers(token)
    exit_ = await chat.process.close()
    assert exit_.expected and exit_.returncode == 0  # stdin EOF was enough: Pi shut down in order
    assert not alive(sleeper)
    assert not group_alive(chat.process.pid)
    assert marked_pids(token) == []


async def test_an_extension_dialog_round_trips_through_extension_ui_response(real_pi: RealPi) -> None:
    chat = await real_pi.start(extra_args=["--extension", str(PROBE_EXTENSION)])
    commands = await chat.process.get_commands()
    assert {"name": "probe-confirm", "source": "extension"}.items() <= next(
        c for c in commands if c["name"] == "probe-confirm"
    ).items()
    prompt = asyncio.ensure_future(chat.process.prompt("/probe-confirm"))
    dialog = await chat.log.wait_for(lambda e: e.get("type") == "extension_ui_request" and e["method"] == "confirm")
    assert (dialog["title"], dialog["message"]) == ("Really?", "The probe asks")
    await chat.process.extension_ui_response(dialog["id"], confirmed=True)
    note = await chat.log.wait_for(lambda e: e.get("type") == "extension_ui_request" and e["method"] == "notify")
    assert note["message"] == "confirmed"
    assert await asyncio.wait_for(prompt, WAIT_S) == "handled"
    assert real_pi.model.requests == []  # an extension command is not a model turn
    assert json.loads(json.dumps(dialog)) == dialog


@pytest.mark.skipif(not LINUX, reason="finds Pi's tool processes through /proc")
async def test_a_tool_call_cut_off_by_a_kill_gets_a_synthetic_result_after_resume(real_pi: RealPi) -> None:
    real_pi.model.enqueue(
        ScriptedResponse(
            tool_calls=[{"name": "bash", "arguments": {"command": "sleep 300"}, "id": "call_cut"}], finish="tool"
        ),
        ScriptedResponse(text="resumed"),
    )
    chat = await real_pi.start()
    await chat.process.prompt("run it")
    await chat.log.wait_type("tool_execution_start")
    path = Path((await chat.process.get_state())["sessionFile"])
    token = chat.process.owner_token
    await poll(lambda: bool(sleepers(token)))
    os.kill(chat.process.pid, signal.SIGKILL)
    await chat.process.wait_exit()
    await poll(lambda: not sleepers(token))
    last = json.loads(path.read_text(encoding="utf-8").splitlines()[-1])
    assert last["message"]["content"][0]["type"] == "toolCall"  # the call was saved, its result never was
    again = await real_pi.start(session_file=path)
    await again.process.prompt("go on")
    await settled(again.log)
    sent = real_pi.model.requests[-1].body["messages"]
    assert [m["role"] for m in sent[1:]] == ["user", "assistant", "tool", "user"]
    assert sent[3] == {"role": "tool", "content": "No result provided", "tool_call_id": "call_cut"}
    assert not any(
        e["type"] == "message" and e["message"]["role"] == "toolResult"
        for e in map(json.loads, path.read_text(encoding="utf-8").splitlines()[1:])
    )  # synthesized for the request only, never written to the session
