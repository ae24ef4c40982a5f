"""The stdio transport: messages framed from chunks of any size, read by the loop from a pipe, by a
thread from anything else, and the real server over each (a pipe, a file redirected to stdin)."""

from __future__ import annotations

import asyncio
import io
import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from lsp_server.server import early
from lsp_server.server.stdio import ChunkedReader, loop_fill, loop_readable, thread_fill
from tests.support.lsp_frames import read_frames


def _frame(message: dict[str, Any]) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n%s" % (
        len(body),
        body,
    )


def _chunks(data: bytes, sizes: list[int]) -> Any:
    """A fill that hands out ``data`` in chunks of the given sizes (cycled), then b""."""
    position = 0

    async def fill() -> bytes:
        nonlocal position
        size = sizes[position % len(sizes)] if position < len(data) else 0
        chunk = data[position : position + size]
        position += len(chunk)
        return chunk

    return fill


async def _messages(reader: ChunkedReader) -> list[Any]:
    """What pygls's loop (``pygls.io_.run_async``) reads: header lines up to the blank one, then the body."""
    found: list[Any] = []
    while True:
        length = 0
        while True:
            line = await reader.readline()
            if not line:
                return found
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
            if line == b"\r\n":
                break
        found.append(json.loads(await reader.readexactly(length)))


MESSAGES: list[dict[str, Any]] = [
    {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}},
    {"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {"text": "é\n" * 3000}},
    {"jsonrpc": "2.0", "id": 2, "method": "shutdown"},
]


def test_messages_are_read_whole_whatever_the_chunks() -> None:
    data = b"".join(_frame(message) for message in MESSAGES)
    rng = random.Random(7)
    for sizes in ([1], [3, 1, 7], [len(data)], [rng.randrange(1, 200) for _ in range(50)], [65536]):
        for split in (0, 5, 40, len(_frame(MESSAGES[0]))):
            reader = ChunkedReader(_chunks(data[split:], sizes), data[:split])
            assert asyncio.run(_messages(reader)) == MESSAGES, (sizes, split)


def test_the_end_of_the_stream_gives_what_is_left() -> None:
    async def read() -> tuple[bytes, bytes, bytes]:
        reader = ChunkedReader(_chunks(b"Content-Length: 10\r\n\r\n{}", [4]))
        await reader.readline()
        await reader.readline()
        return await reader.readexactly(10), await reader.readline(), await reader.readexactly(3)

    assert asyncio.run(read()) == (b"{}", b"", b"")


def test_the_loop_reads_a_pipe_without_a_thread() -> None:
    read_end, write_end = os.pipe()
    data = b"".join(_frame(message) for message in MESSAGES)

    async def run() -> list[Any]:
        loop = asyncio.get_running_loop()
        os.set_blocking(read_end, False)

        def write() -> None:
            for start in range(0, len(data), 1000):  # in pieces, so the reader waits for the rest
                os.write(write_end, data[start : start + 1000])
            os.close(write_end)

        loop.call_later(0.01, write)
        return await _messages(ChunkedReader(loop_fill(read_end)))

    try:
        assert asyncio.run(run()) == MESSAGES
    finally:
        os.close(read_end)


def test_a_worker_thread_reads_other_streams() -> None:
    data = b"".join(_frame(message) for message in MESSAGES)
    reader = ChunkedReader(thread_fill(io.BufferedReader(io.BytesIO(data)), None))
    assert asyncio.run(_messages(reader)) == MESSAGES


def test_only_pipes_and_sockets_stdout_does_not_share_are_read_by_the_loop(tmp_path: Path) -> None:
    import socket

    read_end, write_end = os.pipe()
    left, right = socket.socketpair()
    primary, replica = os.openpty()
    regular = tmp_path / "input"
    regular.write_bytes(b"x")
    stdout = io.BytesIO()
    try:
        with os.fdopen(read_end, "rb", closefd=False) as pipe, open(regular, "rb") as file:
            assert loop_readable(pipe, stdout) == read_end
            assert loop_readable(file, stdout) is None
            with os.fdopen(write_end, "wb", closefd=False) as pipe_out:
                assert loop_readable(pipe, pipe_out) is None  # one pipe: cannot tell
        with left.makefile("rb") as sock_in, left.makefile("wb") as same, right.makefile("wb") as other:
            assert loop_readable(sock_in, other) == left.fileno()
            assert loop_readable(sock_in, same) is None  # one socket: non-blocking would reach stdout
        with os.fdopen(replica, "rb", closefd=False) as terminal:
            assert loop_readable(terminal, stdout) is None  # the flag would stay on the terminal
        assert loop_readable(io.BytesIO(b""), stdout) is None
    finally:
        for fd in (read_end, write_end, primary, replica):
            os.close(fd)
        left.close()
        right.close()


def test_early_reading_leaves_nothing_in_stdins_own_buffer() -> None:
    """What came with ``initialize`` is in the bytes handed on, not kept by ``sys.stdin.buffer``."""
    data = b"".join(_frame(message) for message in MESSAGES)
    stream = io.BufferedReader(io.BytesIO(data), buffer_size=16)
    reader, _ = early.answer_initialize(stream, io.BytesIO(), debug=False)
    first, rest = reader.take_rest()
    assert first + rest.read() == data
    assert first.startswith(_frame(MESSAGES[0]))


def _answers(out: bytes) -> list[Any]:
    return [message["id"] for message in read_frames(out) if "id" in message and "method" not in message]


SESSION: list[dict[str, Any]] = [
    {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}},
    {"jsonrpc": "2.0", "method": "initialized", "params": {}},
    {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "textDocument/hover",
        "params": {"textDocument": {"uri": "file:///x/AGENTS.md"}, "position": {"line": 0, "character": 0}},
    },
    {"jsonrpc": "2.0", "id": 3, "method": "shutdown"},
    {"jsonrpc": "2.0", "method": "exit"},
]


def test_the_server_over_a_pipe_answers_everything_written_at_once_and_exits_cleanly(tmp_path: Path) -> None:
    """Every message in one write: read by the loop back to back, shutdown answered before exit, status 0."""
    done = subprocess.run(
        [sys.executable, "-m", "lsp_server", "serve"],
        input=b"".join(_frame(message) for message in SESSION),
        capture_output=True,
        timeout=120,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
    )
    assert _answers(done.stdout) == [1, 2, 3], done.stderr.decode()
    assert done.returncode == 0, done.stderr.decode()


def test_the_server_reads_a_file_redirected_to_stdin(tmp_path: Path) -> None:
    recorded = tmp_path / "session.lsp"
    recorded.write_bytes(b"".join(_frame(message) for message in SESSION))
    with recorded.open("rb") as stdin:
        done = subprocess.run(
            [sys.executable, "-m", "lsp_server", "serve"],
            stdin=stdin,
            capture_output=True,
            timeout=120,
            env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
        )
    assert _answers(done.stdout) == [1, 2, 3], done.stderr.decode()
    assert done.returncode == 0, done.stderr.decode()


def test_windows_reads_stdin_in_a_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    """The proactor loop has no ``add_reader``: even a pipe is read by a worker thread there."""
    from lsp_server.server import stdio

    read_end, write_end = os.pipe()
    try:
        with os.fdopen(read_end, "rb", closefd=False) as pipe:
            assert loop_readable(pipe, io.BytesIO()) == read_end
            monkeypatch.setattr(stdio, "LOOP_CAN_READ", False)
            assert loop_readable(pipe, io.BytesIO()) is None
    finally:
        os.close(read_end)
        os.close(write_end)
