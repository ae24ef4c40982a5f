"""PiRpcProcess against a stand-in peer (tests/support/fake_pi_rpc.py): correlation, events, errors, ending.

The peer is a real child process speaking Pi's framing, so what is tested here is the real pipe
reading, the real process group and the real signals; only the agent behind it is scripted.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
import threading
import time
from pathlib import Path

import pytest

from lsp_server.pi_rpc import (
    FramingProblem,
    PiCommandError,
    PiExitedError,
    PiProtocolError,
    PiRequestTimeout,
    PiRpcProcess,
    PiStartError,
    UnmatchedResponse,
)
from lsp_server.pi_rpc.reaper import marked_pids
from tests.pi_rpc.conftest import LINUX, WAIT_S, Launcher, alive, group_alive


async def test_responses_are_matched_by_id_even_out_of_order(launcher: Launcher, peer_argv: list[str]) -> None:
    peer = await launcher.start(peer_argv, cwd=os.getcwd(), ready_timeout_s=None)
    slow = asyncio.ensure_future(peer.process.request({"type": "later", "onSignal": True}))
    fast = await peer.process.request({"type": "echo", "payload": [1, "two"]})
    assert not slow.done()
    os.kill(peer.process.pid, signal.SIGUSR1)  # the first command is answered only now, after the second
    assert fast["payload"] == [1, "two"] and fast["id"].startswith("pc-")
    assert await asyncio.wait_for(slow, WAIT_S) == {"late": True}


async def test_every_request_gets_a_unique_id(launcher: Launcher, peer_argv: list[str]) -> None:
    peer = await launcher.start(peer_argv, cwd=os.getcwd(), ready_timeout_s=None)
    answers = await asyncio.gather(*(peer.process.request({"type": "echo"}) for _ in range(20)))
    assert len({answer["id"] for answer in answers}) == 20


async def test_events_reach_the_callback_in_arrival_order_exactly_as_written(
    launcher: Launcher, peer_argv: list[str]
) -> None:
    peer = await launcher.start(peer_argv, cwd=os.getcwd(), ready_timeout_s=None)
    records = [
        {"type": "message_update", "assistantMessageEvent": {"type": "text_delta", "delta": "a\u2028b"}},
        {"type": "extension_ui_request", "id": "ui-1", "method": "confirm", "title": "Sure?"},
        {"type": "agent_settled", "aborted": False, "extra": {"nested": [1.5, None, True]}},
    ]
    lines = [json.dumps(r, ensure_ascii=False) for r in records]
    await peer.process.request({"type": "emit", "lines": lines})
    assert peer.log.events == records  # all three arrived before the response that followed them


async def test_a_record_split_across_writes_and_crlf_still_arrive_whole(
    launcher: Launcher, peer_argv: list[str]
) -> None:
    peer = await launcher.start(peer_argv, cwd=os.getcwd(), ready_timeout_s=None)
    raw = json.dumps({"type": "turn_start", "note": "é\u2029"}, ensure_ascii=False).encode() + b"\r\n"
    chunks = [raw[i : i + 3].decode("latin-1") for i in range(0, len(raw), 3)]
    await peer.process.request({"type": "chunks", "chunks": chunks})
    assert peer.log.events == [{"type": "turn_start", "note": "é\u2029"}]


async def test_a_refused_command_raises_with_pis_error_text(launcher: Launcher, peer_argv: list[str]) -> None:
    peer = await launcher.start(peer_argv, cwd=os.getcwd(), ready_timeout_s=None)
    with pytest.raises(PiCommandError) as raised:
        await peer.process.request({"type": "fail", "error": "Model not found: x/y"})
    assert (raised.value.command, raised.value.error) == ("fail", "Model not found: x/y")
    assert str(raised.value) == "Pi refused fail: Model not found: x/y"


async def test_bad_lines_and_stray_responses_are_reported_and_reading_goes_on(
    launcher: Launcher, peer_argv: list[str]
) -> None:
    peer = await launcher.start(peer_argv, cwd=os.getcwd(), ready_timeout_s=None)
    stray = {"id": "nobody", "type": "response", "command": "x", "success": True}
    lines = ["not json at all", json.dumps(stray), "[1]", json.dumps({"type": "after"})]
    await peer.process.request({"type": "emit", "lines": lines})
    kinds = [p.kind if isinstance(p, FramingProblem) else "unmatched" for p in peer.log.problems]
    assert kinds == ["not-json", "unmatched", "not-an-object"]
    assert isinstance(peer.log.problems[1], UnmatchedResponse) and "nobody" in peer.log.problems[1].message
    assert peer.log.events == [{"type": "after"}]


async def test_an_over_long_response_fails_its_request_and_the_next_request_works(
    launcher: Launcher, peer_argv: list[str]
) -> None:
    peer = await launcher.start(peer_argv, cwd=os.getcwd(), ready_timeout_s=None, max_line_bytes=4096)
    with pytest.raises(PiProtocolError, match="longer than the limit"):
        await asyncio.wait_for(peer.process.request({"type": "big", "size": 100_000}), WAIT_S)
    assert (await peer.process.request({"type": "big", "size": 10}))["text"] == "x" * 10


async def test_a_large_command_is_written_whole(launcher: Launcher, peer_argv: list[str]) -> None:
    peer = await launcher.start(peer_argv, cwd=os.getcwd(), ready_timeout_s=None)
    message = "ü" * 2_000_000  # more than a pipe holds: the write waits for the peer to read
    answer = await asyncio.wait_for(peer.process.request({"type": "echo", "message": message}), WAIT_S)
    assert answer["message"] == message


async def test_a_request_timeout_leaves_the_process_running(launcher: Launcher, peer_argv: list[str]) -> None:
    peer = await launcher.start(peer_argv, cwd=os.getcwd(), ready_timeout_s=None)
    with pytest.raises(PiRequestTimeout, match="did not answer later"):
        await peer.process.request({"type": "later", "delay": 5}, timeout=0.05)
    assert (await peer.process.request({"type": "echo"}))["type"] == "echo"
    assert peer.process.running


async def test_an_exit_fails_pending_requests_with_the_exit_code_and_stderr_tail(
    launcher: Launcher, peer_argv: list[str]
) -> None:
    peer = await launcher.start(peer_argv, cwd=os.getcwd(), ready_timeout_s=None)
    pending = asyncio.ensure_future(peer.process.request({"type": "hang"}))
    await peer.process.request({"type": "stderr", "text": "warming up\n"})
    await peer.process.send({"type": "exit", "code": 3, "stderr": "TypeError: boom\n"})
    with pytest.raises(PiExitedError) as raised:
        await asyncio.wait_for(pending, WAIT_S)
    assert raised.value.returncode == 3
    assert raised.value.stderr_tail == "warming up\nTypeError: boom\n"
    assert str(raised.value) == "Pi exited with code 3: TypeError: boom"
    exit_ = await peer.process.wait_exit()
    assert (exit_.returncode, exit_.expected) == (3, False)
    assert peer.log.exits == [exit_]
    assert bytes(peer.log.stderr) == b"warming up\nTypeError: boom\n"
    with pytest.raises(PiExitedError):
        await peer.process.request({"type": "echo"})


async def test_the_stderr_tail_is_bounded(launcher: Launcher, peer_argv: list[str]) -> None:
    peer = await launcher.start(peer_argv, cwd=os.getcwd(), ready_timeout_s=None, stderr_tail_bytes=1000)
    await peer.process.request({"type": "stderr", "text": "0123456789", "repeat": 500})
    await peer.process.request({"type": "stderr", "text": "the end\n"})
    await peer.log.wait_until(lambda: bytes(peer.log.stderr).endswith(b"the end\n"))
    tail = peer.process.stderr_tail
    assert len(tail) == 1000 and tail.endswith("the end\n")
    assert len(peer.log.stderr) == 5008  # the callback saw everything


async def test_close_is_orderly_and_idempotent(launcher: Launcher, peer_argv: list[str]) -> None:
    peer = await launcher.start(peer_argv, cwd=os.getcwd(), ready_timeout_s=None)
    first = await peer.process.close()
    second = await peer.process.close()
    assert first is second
    assert (first.returncode, first.expected) == (0, True)  # it left on stdin EOF, no signal needed
    assert not alive(peer.process.pid)
    with pytest.raises(PiExitedError):
        await peer.process.request({"type": "echo"})


async def test_close_escalates_to_sigterm_then_sigkill(launcher: Launcher, peer_argv: list[str]) -> None:
    stubborn = await launcher.start(
        [*peer_argv, "--ignore-eof", "--ignore-term"], cwd=os.getcwd(), ready_timeout_s=None
    )
    polite = await launcher.start([*peer_argv, "--ignore-eof"], cwd=os.getcwd(), ready_timeout_s=None)
    await stubborn.process.request({"type": "echo"})  # the SIGTERM handler is installed
    stubborn_exit, polite_exit = await asyncio.gather(
        stubborn.process.close(grace_s=0.2, term_s=0.2), polite.process.close(grace_s=0.2, term_s=5)
    )
    assert stubborn_exit.returncode == -signal.SIGKILL
    assert polite_exit.returncode == -signal.SIGTERM
    assert "SIGKILL" in stubborn_exit.message and "asked to close" in stubborn_exit.message


async def test_pending_requests_fail_when_close_ends_the_process(launcher: Launcher, peer_argv: list[str]) -> None:
    peer = await launcher.start(peer_argv, cwd=os.getcwd(), ready_timeout_s=None)
    pending = asyncio.ensure_future(peer.process.request({"type": "hang"}))
    await peer.process.request({"type": "echo"})
    await peer.process.close()
    with pytest.raises(PiExitedError) as raised:
        await pending
    assert raised.value.expected


@pytest.mark.skipif(not LINUX, reason="the environment marker is read from /proc")
async def test_a_detached_grandchild_is_ended_by_close(launcher: Launcher, peer_argv: list[str]) -> None:
    peer = await launcher.start(peer_argv, cwd=os.getcwd(), ready_timeout_s=None)
    grandchild = (await peer.process.request({"type": "spawn"}))["pid"]
    assert alive(grandchild) and os.getpgid(grandchild) != peer.process.pid  # outside Pi's group
    await peer.process.close()
    await peer.log.wait_until(lambda: not alive(grandchild))
    assert marked_pids(peer.process.owner_token) == []
    assert not group_alive(peer.process.pid)


@pytest.mark.skipif(not LINUX, reason="the environment marker is read from /proc")
async def test_a_detached_grandchild_is_ended_when_the_peer_dies_on_its_own(
    launcher: Launcher, peer_argv: list[str]
) -> None:
    peer = await launcher.start(peer_argv, cwd=os.getcwd(), ready_timeout_s=None)
    grandchild = (await peer.process.request({"type": "spawn"}))["pid"]
    os.kill(peer.process.pid, signal.SIGKILL)
    exit_ = await asyncio.wait_for(peer.process.wait_exit(), WAIT_S)
    assert exit_.returncode == -signal.SIGKILL and not exit_.expected
    assert exit_.message == "Pi was stopped by SIGKILL"
    await peer.log.wait_until(lambda: not alive(grandchild))


def test_the_process_dies_with_its_event_loop_when_nobody_closed_it(peer_argv: list[str]) -> None:
    pids: list[int] = []

    async def forget_to_close() -> None:
        process = await PiRpcProcess.start(peer_argv, cwd=os.getcwd(), env=os.environ, ready_timeout_s=None)
        await process.request({"type": "echo"})
        pids.append(process.pid)
        keep.append(process)  # still referenced: only the loop's shutdown can end it

    keep: list[PiRpcProcess] = []
    runner = threading.Thread(target=lambda: asyncio.run(forget_to_close()))
    runner.start()
    runner.join(WAIT_S)
    (pid,) = pids
    deadline = time.monotonic() + WAIT_S
    while (alive(pid) or group_alive(pid)) and time.monotonic() < deadline:
        time.sleep(0.05)
    # Killed, and reaped although its loop is gone (a zombie would still answer kill(pid, 0)).
    assert not group_alive(pid)
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


async def test_a_missing_program_or_folder_is_a_start_error(tmp_path: Path) -> None:
    with pytest.raises(PiStartError, match="was not found"):
        await PiRpcProcess.start([str(tmp_path / "no-such-pi")], cwd=tmp_path, env=os.environ)
    with pytest.raises(PiStartError, match="does not exist"):
        await PiRpcProcess.start([sys.executable], cwd=tmp_path / "missing", env=os.environ)


async def test_a_process_that_exits_before_answering_fails_the_start(tmp_path: Path) -> None:
    script = "import sys; sys.stderr.write('Error: Unknown option: --mode\\n'); sys.exit(1)"
    with pytest.raises(PiExitedError, match="Pi exited with code 1: Error: Unknown option: --mode"):
        await PiRpcProcess.start([sys.executable, "-c", script], cwd=tmp_path, env=os.environ)


async def test_commands_need_a_type_and_get_our_id(launcher: Launcher, peer_argv: list[str]) -> None:
    peer = await launcher.start(peer_argv, cwd=os.getcwd(), ready_timeout_s=None)
    with pytest.raises(ValueError, match="type"):
        await peer.process.request({"message": "x"})
    with pytest.raises(ValueError, match="assigns the id"):
        await peer.process.request({"type": "echo", "id": "mine"})


async def test_at_answer_runs_where_the_answer_stands_in_pis_output(launcher: Launcher, peer_argv: list[str]) -> None:
    peer = await launcher.start(peer_argv, cwd=os.getcwd(), ready_timeout_s=None)
    first = '{"type":"message_update","n":1}'
    answer = '{"id":"pc-2","type":"response","command":"hang","success":true,"data":{"ok":1}}'
    after = '{"type":"message_update","n":2}'
    # The peer writes an event, the answer to the next request (pc-2) and another event, in one burst.
    await peer.process.request({"type": "schedule", "onSignal": True, "lines": [first, answer, after]})
    seen: list[int] = []
    hang = asyncio.ensure_future(
        peer.process.request({"type": "hang"}, at_answer=lambda: seen.append(len(peer.log.events)))
    )
    await asyncio.sleep(0)  # the request is pending (pc-2) before the burst that answers it is written
    os.kill(peer.process.pid, signal.SIGUSR1)
    data = await asyncio.wait_for(hang, WAIT_S)
    assert data == {"ok": 1} and seen == [1]  # the event before the answer was folded, the one after was not
    await peer.log.wait_until(lambda: len(peer.log.events) == 2)
