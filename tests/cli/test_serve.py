"""``pi-context serve``: stdio by default, TCP on request, help without a command."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from lsprotocol import types
from pygls.lsp.client import LanguageClient

from lsp_server.cli.serve import parse_address

WAIT_S = 30.0


def test_module_without_arguments_prints_help() -> None:
    done = subprocess.run([sys.executable, "-m", "lsp_server"], capture_output=True, text=True, timeout=WAIT_S)
    assert done.returncode == 2
    assert "usage: pi-context" in done.stderr
    assert "serve" in done.stderr


def test_serve_is_listed_with_its_transports() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "lsp_server", "serve", "--help"], capture_output=True, text=True, timeout=WAIT_S
    )
    assert done.returncode == 0
    assert "--tcp HOST:PORT" in done.stdout and "--stdio" in done.stdout


@pytest.mark.parametrize(("text", "expected"), [("127.0.0.1:2087", ("127.0.0.1", 2087)), ("[::1]:9000", ("::1", 9000))])
def test_tcp_address_is_host_colon_port(text: str, expected: tuple[str, int]) -> None:
    assert parse_address(text) == expected


@pytest.mark.parametrize("text", ["2087", "host:", ":2087", "host:port", "host:70000"])
def test_bad_tcp_address_is_a_usage_error(text: str) -> None:
    with pytest.raises(ValueError):
        parse_address(text)
    done = subprocess.run(
        [sys.executable, "-m", "lsp_server", "serve", "--tcp", text], capture_output=True, text=True, timeout=WAIT_S
    )
    assert done.returncode == 2
    assert "pi-context serve:" in done.stderr


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


async def connect(client: LanguageClient, port: int) -> None:
    """Retry until the server listens (it prints its address just before its own event loop binds it)."""
    deadline = time.monotonic() + WAIT_S
    while True:
        try:
            await client.start_tcp("127.0.0.1", port)
            return
        except OSError:
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.05)


async def test_tcp_transport_initializes_and_exits_cleanly(tmp_path: Path) -> None:
    port = free_port()
    env = {**os.environ, "HOME": str(tmp_path), "PI_CODING_AGENT_DIR": str(tmp_path)}
    process = await asyncio.create_subprocess_exec(
        *[sys.executable, "-m", "lsp_server", "serve", "--tcp", f"127.0.0.1:{port}"],
        *["--log-file", str(tmp_path / "server.log")],
        env=env,
    )
    client = LanguageClient("test", "0")
    try:
        await connect(client, port)
        result = await asyncio.wait_for(
            client.initialize_async(types.InitializeParams(capabilities=types.ClientCapabilities())), WAIT_S
        )
        assert result.server_info is not None and result.server_info.name == "pi-context"
        client.initialized(types.InitializedParams())
        await asyncio.wait_for(client.shutdown_async(None), WAIT_S)
        client.exit(None)
        assert await asyncio.wait_for(process.wait(), WAIT_S) == 0
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
        await client.stop()


async def test_tcp_port_0_listens_on_a_free_port_and_prints_it(tmp_path: Path) -> None:
    env = {**os.environ, "HOME": str(tmp_path), "PI_CODING_AGENT_DIR": str(tmp_path)}
    process = await asyncio.create_subprocess_exec(
        *[sys.executable, "-m", "lsp_server", "serve", "--tcp", "127.0.0.1:0"],
        *["--log-file", str(tmp_path / "server.log")],
        env=env,
        stderr=asyncio.subprocess.PIPE,
    )
    client = LanguageClient("test", "0")
    try:
        assert process.stderr is not None
        line = (await asyncio.wait_for(process.stderr.readline(), WAIT_S)).decode()
        assert line.startswith("pi-context: listening on 127.0.0.1:")
        port = int(line.rsplit(":", 1)[1])
        assert port > 0
        await connect(client, port)
        result = await asyncio.wait_for(
            client.initialize_async(types.InitializeParams(capabilities=types.ClientCapabilities())), WAIT_S
        )
        assert result.server_info is not None
        await asyncio.wait_for(client.shutdown_async(None), WAIT_S)
        client.exit(None)
        assert await asyncio.wait_for(process.wait(), WAIT_S) == 0
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
        await client.stop()


def test_a_taken_port_or_an_address_not_on_this_machine_is_one_line_not_a_traceback() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        for address in (f"127.0.0.1:{port}", "192.0.2.1:2087"):  # 192.0.2.0/24: documentation, never local
            done = subprocess.run(
                [sys.executable, "-m", "lsp_server", "serve", "--tcp", address],
                capture_output=True,
                text=True,
                timeout=WAIT_S,
            )
            assert done.returncode == 1, address
            assert done.stderr.startswith(f"pi-context serve: cannot listen on {address}: "), done.stderr
            assert len(done.stderr.splitlines()) == 1 and "listening" not in done.stderr


def test_serve_help_says_the_tcp_server_takes_one_client() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "lsp_server", "serve", "--help"], capture_output=True, text=True, timeout=WAIT_S
    )
    assert "one client" in " ".join(done.stdout.split())


def test_expected_conditions_leave_no_warning_or_traceback_in_the_log(tmp_path: Path) -> None:
    """VS Code cancels requests it no longer needs, often after the answer left, and a request refused on purpose
    is answered with its reason: neither is a warning or a traceback in the server's log."""
    import json as _json

    def frame(message: dict[str, object]) -> bytes:
        body = _json.dumps(message).encode()
        return f"Content-Length: {len(body)}\r\n\r\n".encode() + body

    env = {**os.environ, "HOME": str(tmp_path)}
    process = subprocess.Popen(
        [sys.executable, "-m", "lsp_server", "serve", "--log-level", "info"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        cwd=tmp_path,
    )
    assert process.stdin is not None
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}, "rootUri": None}},
        {"jsonrpc": "2.0", "method": "initialized", "params": {}},
        {"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": 1}},  # answered already
        {"jsonrpc": "2.0", "id": 3, "method": "pi/sessionTree", "params": {"session": str(tmp_path / "none.jsonl")}},
        {"jsonrpc": "2.0", "id": 2, "method": "shutdown"},
        {"jsonrpc": "2.0", "method": "exit"},
    ]
    _, stderr = process.communicate(b"".join(frame(m) for m in messages), timeout=WAIT_S)
    assert process.returncode == 0
    assert b"Cancel notification for unknown message id" not in stderr
    assert b"Traceback" not in stderr and b"ERROR" not in stderr


async def test_what_the_client_gets_as_a_log_message_is_not_written_to_stderr_too(tmp_path: Path) -> None:
    """The editor shows stderr and window/logMessage in one channel: each message once (issue 19's doubled lines)."""
    (tmp_path / "ws").mkdir()
    client = LanguageClient("test", "1")
    said: asyncio.Queue[str] = asyncio.Queue()
    client.feature("window/logMessage")(lambda params: said.put_nowait(params.message))
    env = {**os.environ, "HOME": str(tmp_path)}
    await client.start_io(
        sys.executable, "-m", "lsp_server", "serve", "--log-level", "info", env=env, cwd=str(tmp_path)
    )
    uri = (tmp_path / "ws").as_uri()
    await client.initialize_async(types.InitializeParams(capabilities=types.ClientCapabilities(), root_uri=uri))
    client.initialized(types.InitializedParams())
    async with asyncio.timeout(WAIT_S):
        while "folder(s), watching" not in await said.get():
            pass
    await client.shutdown_async(None)
    client.exit(None)
    server = client._server
    assert server is not None and server.stderr is not None
    stderr = await asyncio.wait_for(server.stderr.read(), WAIT_S)
    await client.stop()
    assert b"folder(s), watching" not in stderr  # the start line went to the client only, once
