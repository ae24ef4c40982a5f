"""The keeper: a small process of ours that holds one Pi so that a turn outlives the language server.

``python -m lsp_server.pi_rpc.keeper`` reads its configuration (one JSON line) on stdin, forks
itself away from the server (the server's child exits at once, so the keeper belongs to no editor
process), starts ``pi --mode rpc`` with pipes it owns, listens on a Unix socket in the private
keepers' folder (:mod:`.keeper_files`), answers ``{"ok": true, ...}`` (or ``{"ok": false, "error":
...}``) on stdout and closes it.

One client at a time (a language server) connects to the socket. The keeper relays lines both
ways, unchanged: the client writes Pi's commands, and reads Pi's responses and events exactly as
Pi wrote them, so the server speaks to it as it would to Pi (:class:`~lsp_server.pi_rpc.kept.KeptPi`).
A few records of the keeper's own are mixed in at line boundaries, with types Pi never uses:

* to the client: ``keeper/hello`` (the record, and how many records of the run are replayed after
  it), ``keeper/busy`` (another client is attached: the connection is closed), ``keeper/released``
  (the answer to ``keeper/release``), ``keeper/exit`` (Pi has exited: its code and last stderr);
* from the client: ``keeper/stop`` (end Pi now, in order: stdin closed, SIGTERM, SIGKILL) and
  ``keeper/release`` (the client is going away).

When the client goes (``keeper/release``, or its connection ends: the server exited or was killed):

* if Pi is idle, the keeper ends it at once, as a server without a keeper would;
* if a run, a prompt or a compaction is going on, Pi keeps working. What it writes is folded into a
  :class:`~lsp_server.pi_rpc.run_log.RunLog` (bounded by ``maxReplayBytes``); the session file
  has the rest. The next client gets the log replayed after ``keeper/hello``, then Pi live. Once the
  run has settled with nobody attached, the keeper waits ``graceS`` seconds for a client, then
  ends Pi and itself. A run that goes on detached for longer than ``turnLimitS`` is aborted.

Pi dies with its keeper: Pi's stdin is the keeper's pipe, and Pi ends (its orderly shutdown, which
also ends its tool processes) when that closes, which is what the kernel does when the keeper is
killed. Responses are delivered only to the client that sent the command (by id): an answer to a
server that has gone is dropped, never handed to the next one.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import re
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from lsp_server.pi_rpc.channel import ReaderProtocol, WriterProtocol
from lsp_server.pi_rpc.framing import sniff_response_id
from lsp_server.pi_rpc.keeper_files import (
    KeeperRecord,
    KeeperState,
    check_private,
    remove_files,
    write_record,
)
from lsp_server.pi_rpc.process import start_failure, wait_then_reap
from lsp_server.pi_rpc.reaper import MARKER_NAME, POSIX, descendant_pids, kill_leftovers, signal_group, spawn_options
from lsp_server.pi_rpc.run_log import RecordKey, RunLog

FIRST_CLIENT_S: Final = 30.0  # a keeper nobody ever connects to ends its Pi
CLOSE_GRACE_S: Final = 3.0  # after Pi's stdin is closed, before SIGTERM
TERM_GRACE_S: Final = 3.0  # after SIGTERM, before SIGKILL
ABORT_WAIT_S: Final = 15.0  # after the keeper's own abort (turn limit), before it ends Pi
DRAIN_AFTER_EXIT_S: Final = 2.0
STDERR_TAIL_BYTES: Final = 64 * 1024
MAX_LINE_BYTES: Final = 64 * 1024 * 1024
MAX_CLIENT_BACKLOG: Final = 64 * 1024 * 1024  # unread bytes for a client before it is dropped
DEFAULT_MAX_REPLAY_BYTES: Final = 16 * 1024 * 1024
PARSE_LIMIT: Final = 4 * 1024 * 1024  # event lines parsed whole to fold them (larger: the type only)
OWN_ID_PREFIX: Final = "keeper-"
BUSY_COMMANDS: Final = frozenset({"prompt", "compact"})  # Pi works until their response, and maybe after
SESSION_COMMANDS: Final = frozenset({"fork", "new_session", "switch_session", "clone"})  # the session file changes

NOT_READY: Final = {"ok": False, "kind": "start", "error": "the keeper ended before it was ready"}

_TYPE = re.compile(rb'^\{"type":"([A-Za-z_/]{1,64})"')
_FOLDED_BY_DETAIL: Final = frozenset(
    {"tool_execution_start", "tool_execution_update", "tool_execution_end", "extension_ui_request", "compaction_end"}
)


@dataclass(frozen=True)
class KeeperConfig:
    """What the server tells a keeper to run (camelCase JSON on the keeper's stdin)."""

    keeper_id: str
    folder: str
    argv: list[str]  # the whole command line: the installation's prefix, --mode rpc, --session...
    cwd: str
    env: dict[str, str]
    grace_s: float
    turn_limit_s: float
    installation: dict[str, Any]  # argv (prefix), piVersion, nodeVersion, source
    session: str | None = None
    max_replay_bytes: int = DEFAULT_MAX_REPLAY_BYTES
    first_client_s: float = FIRST_CLIENT_S

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> KeeperConfig:
        return cls(
            keeper_id=str(data["keeperId"]),
            folder=str(data["folder"]),
            argv=[str(part) for part in data["argv"]],
            cwd=str(data["cwd"]),
            env={str(k): str(v) for k, v in dict(data["env"]).items()},
            grace_s=float(data["graceS"]),
            turn_limit_s=float(data["turnLimitS"]),
            installation=dict(data.get("installation") or {}),
            session=data.get("session") if isinstance(data.get("session"), str) else None,
            max_replay_bytes=int(data.get("maxReplayBytes", DEFAULT_MAX_REPLAY_BYTES)),
            first_client_s=float(data.get("firstClientS", FIRST_CLIENT_S)),
        )


def record_line(record: dict[str, Any]) -> bytes:
    return json.dumps(record, ensure_ascii=True, separators=(",", ":")).encode("ascii") + b"\n"


class RawLines:
    """Pi's stdout cut at ``\\n`` into whole lines (kept as bytes); an over-long line passes through in pieces."""

    def __init__(self, max_line_bytes: int = MAX_LINE_BYTES) -> None:
        self.max_line_bytes = max_line_bytes
        self._buffer = bytearray()
        self._passing = False  # inside an over-long line

    def feed(self, data: bytes) -> list[tuple[bool, bytes]]:
        """``(whole, bytes)`` pieces: a whole line with its newline, or a piece of an over-long one."""
        out: list[tuple[bool, bytes]] = []
        start, size = 0, len(data)
        while start < size:
            end = data.find(b"\n", start)
            if self._passing:
                if end < 0:
                    out.append((False, data[start:]))
                    return out
                out.append((False, data[start : end + 1]))
                self._passing = False
                start = end + 1
                continue
            if end < 0:
                rest = data[start:]
                if len(self._buffer) + len(rest) > self.max_line_bytes:
                    out.append((False, bytes(self._buffer) + rest))
                    self._buffer.clear()
                    self._passing = True
                else:
                    self._buffer += rest
                return out
            if self._buffer:
                self._buffer += data[start : end + 1]
                out.append((True, bytes(self._buffer)))
                self._buffer.clear()
            else:
                out.append((True, data[start : end + 1]))
            start = end + 1
        return out

    def finish(self) -> list[tuple[bool, bytes]]:
        if self._buffer:
            line = bytes(self._buffer) + b"\n"
            self._buffer.clear()
            return [(True, line)]
        return []


def sniff_type(line: bytes) -> str:
    match = _TYPE.match(line)
    return match.group(1).decode("ascii") if match else ""


class _Client(asyncio.Protocol):
    """One connection to the keeper's socket."""

    def __init__(self, keeper: Keeper) -> None:
        self.keeper = keeper
        self.transport: asyncio.Transport | None = None
        self.lines = RawLines()
        self.attached = False
        self.pending: dict[str, str] = {}  # this client's command ids waiting for Pi's answer -> command type
        self.closed = False
        self.corked: list[bytes] | None = None  # writes held until uncork()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        self.keeper.connected(self)

    def data_received(self, data: bytes) -> None:
        for whole, piece in self.lines.feed(data):
            if whole and not self.closed:
                self.keeper.from_client(self, piece)

    def eof_received(self) -> bool:
        self.keeper.client_gone(self)
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        self.keeper.client_gone(self)

    def write(self, data: bytes) -> None:
        if self.corked is not None:
            self.corked.append(data)
            return
        transport = self.transport
        if transport is None or self.closed or transport.is_closing():
            return
        transport.write(data)
        if transport.get_write_buffer_size() > MAX_CLIENT_BACKLOG:
            self.close()  # a client that does not read is gone; Pi must not wait for it

    def cork(self) -> None:
        if self.corked is None:
            self.corked = []

    def uncork(self) -> None:
        pieces, self.corked = self.corked, None
        if pieces:
            self.write(b"".join(pieces))

    def close(self) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self.transport.close()


class Keeper:
    """Holds one Pi, serves one client at a time (see the module's docstring)."""

    def __init__(self, config: KeeperConfig, report: Callable[[dict[str, Any]], None]) -> None:
        self.config = config
        self.folder = Path(config.folder)
        self._report = report
        self.loop = asyncio.get_running_loop()
        self.token = uuid.uuid4().hex
        self.popen: subprocess.Popen[bytes] | None = None
        self.stdin: asyncio.WriteTransport | None = None
        self.stdin_flow = WriterProtocol()
        self.stdout_lines = RawLines()
        self.stdout_done = asyncio.Event()
        self.stderr_done = asyncio.Event()
        self.stderr_tail = bytearray()
        self.server: asyncio.AbstractServer | None = None
        self.client: _Client | None = None
        self.log: RunLog[bytes] = RunLog(config.max_replay_bytes)
        self.running = False  # between agent_start and agent_settled
        self.compacting = False
        self.busy_ids: set[str] = set()  # prompt/compact commands Pi has not answered yet
        self.own_ids = itertools.count(1)
        self.own_pending: dict[str, str] = {}
        self.session = config.session
        self.state: KeeperState = "starting"
        self.ever_attached = False
        self.detached_at: float | None = None
        self.started_at = time.time()
        self.timer: asyncio.TimerHandle | None = None  # grace, first client or abort fallback
        self.limit_timer: asyncio.TimerHandle | None = None  # the detached turn limit
        self.ending = False
        self.pi_exit: dict[str, Any] | None = None
        self.notify: _Client | None = None  # a released client that still hears how Pi ended
        self.done = asyncio.Event()

    # -- start ---------------------------------------------------------------------------------------

    async def start(self) -> None:
        config = self.config
        env = dict(config.env)
        env[MARKER_NAME] = self.token
        try:
            self.popen = subprocess.Popen(
                config.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd=config.cwd,
                env=env,
                close_fds=True,
                **spawn_options(),
            )
        except OSError as error:
            self._report({"ok": False, "kind": "start", "error": start_failure(config.argv[0], config.cwd, error)})
            self.done.set()
            return
        popen = self.popen
        assert popen.stdin is not None and popen.stdout is not None and popen.stderr is not None
        await self.loop.connect_read_pipe(lambda: ReaderProtocol(self.from_pi, self.pi_stdout_end), popen.stdout)
        await self.loop.connect_read_pipe(lambda: ReaderProtocol(self.pi_stderr, self.stderr_done.set), popen.stderr)
        self.stdin, _ = await self.loop.connect_write_pipe(lambda: self.stdin_flow, popen.stdin)
        threading.Thread(
            target=wait_then_reap,
            args=(popen, self.token, self.loop, self.pi_reaped),
            name="keeper-wait",
            daemon=True,
        ).start()
        socket_path = self.folder / f"{config.keeper_id}.sock"
        try:
            check_private(self.folder)
            old_umask = os.umask(0o177)
            try:
                self.server = await self.loop.create_unix_server(lambda: _Client(self), os.fspath(socket_path))
            finally:
                os.umask(old_umask)
            os.chmod(socket_path, 0o600)
        except Exception as error:
            message = f"the keeper cannot listen on {socket_path}: {error}"
            self._report({"ok": False, "kind": "socket", "error": message})
            self.end_pi()
            return
        self.write_record()
        ready = {"ok": True, "keeperPid": os.getpid(), "piPid": popen.pid, "socket": os.fspath(socket_path)}
        self._report({**ready, "token": self.token})
        self.own_request("get_state")
        self.timer = self.loop.call_later(config.first_client_s, self.nobody_came)

    def record(self) -> KeeperRecord:
        installation = self.config.installation
        return KeeperRecord(
            keeper_id=self.config.keeper_id,
            keeper_pid=os.getpid(),
            pi_pid=self.popen.pid if self.popen is not None else 0,
            owner_token=self.token,
            cwd=self.config.cwd,
            session=self.session,
            started_at=self.started_at,
            state=self.state,
            busy=self.busy,
            grace_s=self.config.grace_s,
            turn_limit_s=self.config.turn_limit_s,
            argv=[str(part) for part in installation.get("argv", [])],
            pi_version=str(installation.get("piVersion", "")),
            node_version=installation.get("nodeVersion") if isinstance(installation.get("nodeVersion"), str) else None,
            source=str(installation.get("source", "")),
            detached_at=self.detached_at,
        )

    def write_record(self) -> None:
        if self.pi_exit is not None:
            return  # its files are gone with Pi: nobody may take it up
        with contextlib.suppress(OSError):
            write_record(self.folder, self.record())

    @property
    def busy(self) -> bool:
        return self.running or self.compacting or bool(self.busy_ids)

    # -- Pi's output ---------------------------------------------------------------------------------

    def from_pi(self, data: bytes) -> None:
        client = self.client
        if client is not None:
            client.cork()  # one write for the lines of one read, not one per line
        try:
            for whole, piece in self.stdout_lines.feed(data):
                if whole:
                    self.pi_line(piece)
                else:
                    self.pi_piece(piece)
        finally:
            if client is not None:
                client.uncork()

    def pi_stdout_end(self) -> None:
        for _, piece in self.stdout_lines.finish():
            self.pi_line(piece)
        self.stdout_done.set()

    def pi_piece(self, piece: bytes) -> None:
        """A piece of an over-long line: relayed as it comes, folded by its type only."""
        if self.client is not None:
            self.client.write(piece)
        kind = sniff_type(piece)
        if kind:
            self.fold(RecordKey(kind), None, 0)

    def pi_line(self, line: bytes) -> None:
        rid = sniff_response_id(line)
        if rid is not None or line.startswith(b'{"type":"response"'):
            self.pi_response(rid, line)
            return
        kind = sniff_type(line)
        record: dict[str, Any] | None = None
        if (not kind or kind in _FOLDED_BY_DETAIL) and len(line) <= PARSE_LIMIT:
            with contextlib.suppress(ValueError, UnicodeDecodeError, RecursionError):
                parsed = json.loads(line)
                record = parsed if isinstance(parsed, dict) else None
        if record is not None and record.get("type") == "response":
            self.pi_response(record.get("id") if isinstance(record.get("id"), str) else None, line)
            return
        key = RecordKey.of(record) if record is not None else RecordKey(kind)
        self.fold(key, line, len(line))
        if self.client is not None:
            self.client.write(line)

    def fold(self, key: RecordKey, line: bytes | None, size: int) -> None:
        before = self.busy
        kind = key.type
        if kind == "agent_start":
            self.running = True
        elif kind == "agent_settled":
            self.running = False
        elif kind == "compaction_start":
            self.compacting = True
        elif kind == "compaction_end":
            self.compacting = False
        if line is not None:
            self.log.add(key, line, size)
        elif kind in ("message_end", "agent_settled"):
            self.log.add(key, b"", 0)  # an over-long record: it still clears what it ends
        if before != self.busy:
            self.busy_changed()

    def pi_response(self, rid: str | None, line: bytes) -> None:
        if rid is not None and rid.startswith(OWN_ID_PREFIX):
            self.own_response(rid, line)
            return
        before = self.busy
        if rid is not None and rid in self.busy_ids:
            self.busy_ids.discard(rid)
            if self.started(line):
                self.running = True  # agent_start follows; agent_settled ends it
        client = self.client
        if client is not None and rid is not None and rid in client.pending:
            kind = client.pending.pop(rid)
            client.write(line)
            if kind in SESSION_COMMANDS:
                self.own_request("get_state")
        elif client is not None and rid is None:
            client.write(line)  # Pi could not read a command at all: the client should hear it
        if before != self.busy:
            self.busy_changed()

    @staticmethod
    def started(line: bytes) -> bool:
        if len(line) > PARSE_LIMIT:
            return False
        try:
            response = json.loads(line)
        except (ValueError, RecursionError):
            return False
        data = response.get("data") if isinstance(response, dict) else None
        return isinstance(data, dict) and data.get("disposition") == "started"

    def own_request(self, kind: str) -> None:
        rid = f"{OWN_ID_PREFIX}{next(self.own_ids)}"
        self.own_pending[rid] = kind
        self.to_pi(record_line({"id": rid, "type": kind}))

    def own_response(self, rid: str, line: bytes) -> None:
        kind = self.own_pending.pop(rid, None)
        if kind != "get_state":
            return
        with contextlib.suppress(ValueError, RecursionError):
            response = json.loads(line)
            data = response.get("data") if isinstance(response, dict) else None
            session = data.get("sessionFile") if isinstance(data, dict) else None
            if isinstance(session, str) and session and session != self.session:
                self.session = session
                self.write_record()

    def pi_stderr(self, data: bytes) -> None:
        self.stderr_tail += data
        excess = len(self.stderr_tail) - STDERR_TAIL_BYTES
        if excess > 0:
            del self.stderr_tail[:excess]

    def to_pi(self, line: bytes) -> None:
        stdin = self.stdin
        if stdin is None or stdin.is_closing() or self.stdin_flow.lost or self.ending:
            return
        stdin.write(line if line.endswith(b"\n") else line + b"\n")

    # -- clients -------------------------------------------------------------------------------------

    def connected(self, client: _Client) -> None:
        if not _same_user(client.transport):
            client.close()
            return
        if self.client is not None:
            client.write(record_line({"type": "keeper/busy", "message": "another window is attached to this chat"}))
            client.close()
            return
        if self.pi_exit is not None:
            client.write(record_line({"type": "keeper/hello", "keeper": self.record().to_json(), "replay": 0}))
            client.write(record_line(self.pi_exit))
            client.close()
            self.done.set()
            return
        if self.ending:
            client.write(record_line({"type": "keeper/busy", "message": "this chat's Pi is ending"}))
            client.close()
            return
        self.client = client
        client.attached = True
        self.ever_attached = True
        self.cancel_timers()
        self.state = "attached"
        self.detached_at = None
        replay = self.log.items()
        hello = {
            "type": "keeper/hello",
            "keeper": self.record().to_json(),
            "replay": len(replay),
            "truncated": self.log.truncated,
        }
        client.write(record_line(hello))
        for line in replay:
            client.write(line)
        self.write_record()

    def from_client(self, client: _Client, line: bytes) -> None:
        if client is not self.client:
            return
        try:
            record = json.loads(line)
        except (ValueError, RecursionError):
            return  # not a command; Pi would refuse it as well, and nobody waits for an answer
        if not isinstance(record, dict):
            return
        kind = record.get("type")
        if kind == "keeper/stop":
            self.end_pi()
            return
        if kind == "keeper/release":
            self.release(client)
            return
        if not isinstance(kind, str) or kind.startswith("keeper/"):
            return
        rid = record.get("id")
        if isinstance(rid, str):
            if rid.startswith(OWN_ID_PREFIX):
                return  # ids of this form are the keeper's own
            client.pending[rid] = kind
            if kind in BUSY_COMMANDS:
                before = self.busy
                self.busy_ids.add(rid)
                if not before:
                    self.busy_changed()
        if kind == "extension_ui_response" and isinstance(record.get("id"), str):
            self.log.answered(record["id"])
        self.to_pi(line)

    def release(self, client: _Client) -> None:
        kept = self.busy and not self.ending
        if kept:
            self.detach(client)  # the record says "detached" before the client hears it
            client.write(record_line({"type": "keeper/released", "kept": True}))
            client.close()
            return
        client.write(record_line({"type": "keeper/released", "kept": False}))
        self.client = None  # the exit record still goes to it: keep the connection until Pi ends
        self.end_pi(notify=client)

    def client_gone(self, client: _Client) -> None:
        if client is self.client:
            self.detach(client)
            if not self.busy:
                self.end_pi()

    def detach(self, client: _Client) -> None:
        if client is not self.client:
            return
        self.client = None
        client.attached = False
        if self.pi_exit is not None or self.ending:
            return
        self.state = "detached"
        self.detached_at = time.time()
        self.write_record()
        self.own_request("get_state")  # the session file may have changed (a fork): the record says which
        if self.busy:
            self.limit_timer = self.loop.call_later(self.config.turn_limit_s, self.turn_limit)
        else:
            self.start_grace()

    def busy_changed(self) -> None:
        self.write_record()
        if self.client is not None or self.ending or not self.ever_attached:
            return
        if self.busy:
            if self.timer is not None:
                self.timer.cancel()
                self.timer = None
            if self.limit_timer is None:
                self.limit_timer = self.loop.call_later(self.config.turn_limit_s, self.turn_limit)
        else:
            self.start_grace()

    def start_grace(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
        if self.limit_timer is not None:
            self.limit_timer.cancel()
            self.limit_timer = None
        self.timer = self.loop.call_later(self.config.grace_s, self.grace_over)

    def grace_over(self) -> None:
        self.timer = None
        if self.client is None and not self.busy:
            self.end_pi()

    def nobody_came(self) -> None:
        self.timer = None
        if not self.ever_attached and self.client is None:
            self.end_pi()

    def turn_limit(self) -> None:
        """Detached for too long in one run: abort it (the session keeps what was done), then the grace."""
        self.limit_timer = None
        if self.client is not None or not self.busy:
            return
        self.own_request("abort")
        self.timer = self.loop.call_later(ABORT_WAIT_S, self.abort_failed)

    def abort_failed(self) -> None:
        self.timer = None
        if self.client is None and self.busy:
            self.end_pi()

    def cancel_timers(self) -> None:
        for timer in (self.timer, self.limit_timer):
            if timer is not None:
                timer.cancel()
        self.timer = self.limit_timer = None

    # -- the end -------------------------------------------------------------------------------------

    def end_pi(self, notify: _Client | None = None) -> None:
        """End Pi in order: its stdin closed (it aborts the run and exits), then SIGTERM, then SIGKILL."""
        if notify is not None:
            self.notify = notify
        if self.ending:
            return
        self.ending = True
        self.cancel_timers()
        self.state = "ending"
        with contextlib.suppress(OSError):
            write_record(self.folder, self.record())
        if self.server is not None:
            self.server.close()  # nobody attaches to a Pi that is ending
        self.loop.create_task(self._end_pi())

    async def _end_pi(self) -> None:
        if self.popen is None:
            self.done.set()
            return
        if self.stdin is not None:
            self.stdin.close()
        if await self._wait(CLOSE_GRACE_S):
            return
        signal_group(self.popen.pid, signal.SIGTERM)
        if await self._wait(TERM_GRACE_S):
            return
        kill_leftovers(self.popen.pid, self.token, descendant_pids(self.popen.pid))

    async def _wait(self, timeout: float) -> bool:
        try:
            await asyncio.wait_for(asyncio.shield(self.done.wait()), timeout)
        except TimeoutError:
            return self.pi_exit is not None
        return True

    def pi_reaped(self, returncode: int | None) -> None:
        self.loop.create_task(self._pi_exited(returncode))

    async def _pi_exited(self, returncode: int | None) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.gather(self.stdout_done.wait(), self.stderr_done.wait()), DRAIN_AFTER_EXIT_S)
        self.pi_exit = {
            "type": "keeper/exit",
            "returncode": returncode,
            "stderrTail": bytes(self.stderr_tail).decode("utf-8", errors="replace"),
        }
        self.cancel_timers()
        with contextlib.suppress(OSError):  # nobody may take this Pi up any more
            os.unlink(self.folder / f"{self.config.keeper_id}.json")
        target = self.client or self.notify
        if target is not None or self.ever_attached or self.ending:
            remove_files(self.folder, self.config.keeper_id)  # gone before the client hears the exit
        if target is not None:
            target.write(record_line(self.pi_exit))
            target.close()
            self.done.set()
        elif self.ever_attached or self.ending:
            self.done.set()
        else:
            # Pi died before anyone attached (a bad option, a broken install): the socket stays open
            # a little so that the server connects and hears why (connected() delivers it).
            self.loop.call_later(self.config.first_client_s, self.done.set)


def _same_user(transport: asyncio.BaseTransport | None) -> bool:
    """On Linux, the peer's uid from SO_PEERCRED must be ours (the folder's mode already says so)."""
    if transport is None or not sys.platform.startswith("linux") or not hasattr(socket, "SO_PEERCRED"):
        return True
    sock = transport.get_extra_info("socket")
    if sock is None:
        return True
    try:
        creds = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    except OSError:
        return False
    _, uid, _ = struct.unpack("3i", creds)
    return bool(uid == os.getuid())


async def run_keeper(config: KeeperConfig, report: Callable[[dict[str, Any]], None]) -> int:
    keeper = Keeper(config, report)
    loop = asyncio.get_running_loop()
    if POSIX:
        loop.add_signal_handler(signal.SIGTERM, keeper.end_pi)
        loop.add_signal_handler(signal.SIGINT, keeper.end_pi)
        loop.add_signal_handler(signal.SIGHUP, lambda: None)  # no terminal to hang up: nothing to do
    try:
        await keeper.start()
        await keeper.done.wait()
    finally:
        remove_files(keeper.folder, config.keeper_id)
        if keeper.popen is not None and keeper.popen.poll() is None and keeper.pi_exit is None:
            kill_leftovers(keeper.popen.pid, keeper.token)
    return 0


def main() -> int:
    """Read the configuration, fork away from the server, run the keeper in the child."""
    line = sys.stdin.buffer.readline()
    try:
        config = KeeperConfig.from_json(json.loads(line))
    except (ValueError, KeyError, TypeError) as error:
        sys.stdout.write(json.dumps({"ok": False, "kind": "config", "error": f"bad keeper configuration: {error}"}))
        sys.stdout.write("\n")
        return 2
    read_end, write_end = os.pipe()
    child = os.fork()
    if child:
        os.close(write_end)
        with os.fdopen(read_end, "rb") as reader:
            answer = reader.readline()
        sys.stdout.buffer.write(answer or record_line(NOT_READY))
        sys.stdout.flush()
        os._exit(0)
    os.close(read_end)
    os.setsid()
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(devnull, 1)
    os.close(devnull)
    reporter = os.fdopen(write_end, "wb")

    def report(answer: dict[str, Any]) -> None:
        if not reporter.closed:
            reporter.write(record_line(answer))
            reporter.close()

    try:
        return asyncio.run(run_keeper(config, report))
    finally:
        report(NOT_READY)


if __name__ == "__main__":
    sys.exit(main())
