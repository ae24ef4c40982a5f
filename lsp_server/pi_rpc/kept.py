"""Pi under a keeper, seen from the language server: the same protocol as a child Pi, over a Unix socket.

:class:`KeptPi` is a :class:`~lsp_server.pi_rpc.channel.PiRpcChannel` like
:class:`~lsp_server.pi_rpc.process.PiRpcProcess`, so a chat cannot tell them apart: requests by
id, events in order, ``close()``. The difference is who owns Pi's pipes: a keeper process of ours
(:mod:`.keeper`), which the server starts (:meth:`KeptPi.start`) and which survives the server. So
a chat can end in two ways:

* :meth:`KeptPi.close` (``pi/chat/stop``, a folder removed): the keeper ends Pi in order and says how
  it exited;
* :meth:`KeptPi.release` (the server shuts down): the keeper ends an idle Pi at once, and keeps a
  busy one running until its run has settled and a grace period has passed. The server's death
  (``kill -9``) is a release too: the keeper sees its connection end.

A later server finds the keeper's record (:mod:`.keeper_files`) and :meth:`KeptPi.attach` es: the
keeper replays what the client must see of the run in progress (a
:class:`~lsp_server.pi_rpc.run_log.RunLog`), then relays Pi live.

Request ids carry a prefix of their own per connection (``pc-<hex>-<n>``), so an answer Pi gives
to a server that has gone can never be taken for an answer to the next one.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sys
import threading
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import lsp_server
from lsp_server.pi_rpc.channel import EventCallback, PiExit, PiRpcChannel, ProtocolProblem, WriterProtocol
from lsp_server.pi_rpc.errors import PiRpcError, PiStartError
from lsp_server.pi_rpc.framing import DEFAULT_MAX_LINE_BYTES, Frame, encode_record
from lsp_server.pi_rpc.keeper import CLOSE_GRACE_S, DEFAULT_MAX_REPLAY_BYTES, TERM_GRACE_S
from lsp_server.pi_rpc.keeper_files import KEEPER_MARKER, KeeperRecord, remove_files
from lsp_server.pi_rpc.process import READY_TIMEOUT_S, rpc_argv
from lsp_server.pi_rpc.reaper import marked_pids, signal_group, signal_pids

KEEPER_MODULE: Final = "lsp_server.pi_rpc.keeper"
SPAWN_TIMEOUT_S: Final = 30.0  # a Python start and Pi's spawn; never more than a few hundred ms here
HELLO_TIMEOUT_S: Final = 10.0
BUSY_WAIT_S: Final = 3.0  # a window being reloaded may still be letting go of the keeper
RELEASE_TIMEOUT_S: Final = 5.0
STOP_WAIT_S: Final = CLOSE_GRACE_S + TERM_GRACE_S + 10.0  # the keeper's own escalation, and then some
ORPHAN_WAIT_S: Final = 3.0  # after a keeper died: Pi's orderly shutdown on stdin EOF


class KeeperUnavailable(PiRpcError):
    """No keeper could be started (the folder, Python): the chat can run Pi directly instead."""


class KeeperBusy(PiRpcError):
    """Another server (another window) is attached to this keeper."""


class KeeperGone(PiRpcError):
    """The keeper's record is there but nobody answers on its socket."""


@dataclass(frozen=True)
class KeepOptions:
    """How a server keeps its chats' Pi processes: where, and for how long without a window."""

    folder: Path
    grace_s: float  # after a run settled with no window attached
    turn_limit_s: float  # the longest a run goes on with no window attached
    python: str = sys.executable
    max_replay_bytes: int = DEFAULT_MAX_REPLAY_BYTES


def keeper_env(base: Mapping[str, str], keeper_id: str) -> dict[str, str]:
    """The keeper's own environment: the server's, with this package importable and the keeper's marker."""
    env = dict(base)
    root = str(Path(lsp_server.__file__).resolve().parent.parent)
    paths = [root, *(p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p and p != root)]
    env["PYTHONPATH"] = os.pathsep.join(paths)
    env[KEEPER_MARKER] = keeper_id
    return env


class KeptPi(PiRpcChannel):
    """Pi behind a keeper; make one with :meth:`start` (a new Pi) or :meth:`attach` (a kept one)."""

    def __init__(
        self,
        folder: Path,
        *,
        on_event: EventCallback | None,
        on_problem: Callable[[ProtocolProblem], None] | None,
        on_stderr: Callable[[bytes], None] | None,
        on_exit: Callable[[PiExit], None] | None,
        max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
    ) -> None:
        super().__init__(
            on_event=on_event,
            on_problem=on_problem,
            on_stderr=on_stderr,
            on_exit=on_exit,
            max_line_bytes=max_line_bytes,
        )
        self._id_prefix = f"pc-{uuid.uuid4().hex[:6]}-"
        self.folder = folder
        self.record: KeeperRecord | None = None
        self.replayed = 0  # records of the run in progress the keeper replayed on attach
        self.truncated = False  # the replay had lost its oldest pieces to the bound
        self.reattached = False
        self.attached_at = 0.0
        self._hello: asyncio.Future[None] = self._loop.create_future()
        self._replay_left = 0
        self._replayed: asyncio.Future[None] = self._loop.create_future()  # every replayed record dispatched
        self._released: asyncio.Future[bool] | None = None
        self._transport: asyncio.Transport | None = None
        self._close_task: asyncio.Task[PiExit] | None = None
        self._let_go = False  # released while Pi keeps running: this connection's end is no exit

    # -- starting and attaching ----------------------------------------------------------------------

    @classmethod
    async def start(
        cls,
        argv: Sequence[str],
        options: KeepOptions,
        *,
        cwd: str | os.PathLike[str],
        env: Mapping[str, str],
        installation: Mapping[str, Any] | None = None,
        session_file: str | os.PathLike[str] | None = None,
        provider: str | None = None,
        model: str | None = None,
        extra_args: Sequence[str] = (),
        on_event: EventCallback | None = None,
        on_problem: Callable[[ProtocolProblem], None] | None = None,
        on_stderr: Callable[[bytes], None] | None = None,
        on_exit: Callable[[PiExit], None] | None = None,
        ready_timeout_s: float | None = READY_TIMEOUT_S,
    ) -> KeptPi:
        """Start a keeper running Pi, attach to it, and (unless ``ready_timeout_s`` is None) ask ``get_state``."""
        line = rpc_argv(argv, session_file=session_file, provider=provider, model=model, extra_args=extra_args)
        keeper_id = uuid.uuid4().hex[:16]
        config = {
            "keeperId": keeper_id,
            "folder": os.fspath(options.folder),
            "argv": line,
            "cwd": os.fspath(cwd),
            "env": dict(env),
            "graceS": options.grace_s,
            "turnLimitS": options.turn_limit_s,
            "installation": dict(installation or {"argv": list(argv)}),
            "session": os.fspath(session_file) if session_file is not None else None,
            "maxReplayBytes": options.max_replay_bytes,
        }
        answer = await _spawn_keeper(options.python, config, keeper_env(env, keeper_id))
        if answer.get("ok") is not True:
            message = str(answer.get("error") or "the keeper did not start")
            if answer.get("kind") == "start":
                raise PiStartError(message)
            raise KeeperUnavailable(message)
        # Told of an exit only once connected: a chat that never started has nothing to report.
        process = cls(options.folder, on_event=on_event, on_problem=on_problem, on_stderr=on_stderr, on_exit=None)
        try:
            await process._connect(Path(str(answer["socket"])))
        except BaseException:
            _kill_keeper(int(answer.get("keeperPid") or 0), str(answer.get("token") or ""))
            raise
        process._on_exit = on_exit
        await process._ready(ready_timeout_s)
        return process

    @classmethod
    async def attach(
        cls,
        folder: Path,
        record: KeeperRecord,
        *,
        on_event: EventCallback | None = None,
        on_problem: Callable[[ProtocolProblem], None] | None = None,
        on_stderr: Callable[[bytes], None] | None = None,
        on_exit: Callable[[PiExit], None] | None = None,
        ready_timeout_s: float | None = READY_TIMEOUT_S,
        busy_wait_s: float = BUSY_WAIT_S,
    ) -> KeptPi:
        """Take over a kept Pi: the replay of its run arrives at ``on_event`` first, then Pi live.

        Raises :class:`KeeperBusy` when another server stays attached for ``busy_wait_s``, and
        :class:`KeeperGone` when nothing answers on the socket (its files are removed then).
        """
        deadline = time.monotonic() + busy_wait_s
        while True:
            # An attempt the keeper refuses (busy) ends its connection: that end is no exit of Pi's, so the
            # chat is told of exits only from the attempt that got in.
            process = cls(folder, on_event=on_event, on_problem=on_problem, on_stderr=on_stderr, on_exit=None)
            try:
                await process._connect(record.socket_path(folder))
                break
            except KeeperBusy:
                if time.monotonic() >= deadline:
                    raise
                await asyncio.sleep(0.1)
            except (ConnectionRefusedError, FileNotFoundError) as error:
                remove_files(folder, record.keeper_id)
                raise KeeperGone(f"the chat's keeper is gone ({error.strerror or error})") from None
            except TimeoutError:
                raise KeeperGone(
                    f"the chat's keeper did not answer within {HELLO_TIMEOUT_S:g} s (it keeps Pi; try again)"
                ) from None
        process._on_exit = on_exit
        process.reattached = True
        await process._ready(ready_timeout_s)
        return process

    async def _connect(self, path: Path) -> None:
        transport, protocol = await self._loop.create_unix_connection(lambda: _SocketProtocol(self), os.fspath(path))
        self._transport = transport
        self._stdin = transport
        self._writer = protocol
        try:
            await asyncio.wait_for(asyncio.shield(self._hello), HELLO_TIMEOUT_S)
            await asyncio.wait_for(asyncio.shield(self._replayed), HELLO_TIMEOUT_S)
        except BaseException:
            # Our own giving up (a refusal, a slow hello or replay) is no death of the keeper: it decides what
            # becomes of Pi (a busy one is kept for the next server, an idle one ends), nothing is killed here.
            self._let_go = True
            transport.close()
            raise
        self.attached_at = time.monotonic()
        if self.exit is not None:  # Pi had already exited (a bad option): the keeper said how
            raise self.exit.error()

    async def _ready(self, ready_timeout_s: float | None) -> None:
        if ready_timeout_s is None:
            return
        try:
            self.initial_state = await self.get_state(timeout=ready_timeout_s)
        except BaseException:
            await asyncio.shield(self.close())
            raise

    # -- state ---------------------------------------------------------------------------------------

    @property
    def pid(self) -> int:
        return self.record.pi_pid if self.record is not None else 0

    @property
    def keeper_pid(self) -> int:
        return self.record.keeper_pid if self.record is not None else 0

    @property
    def owner_token(self) -> str:
        return self.record.owner_token if self.record is not None else ""

    # -- the keeper's own records --------------------------------------------------------------------

    def _dispatch(self, frame: Frame) -> None:
        if isinstance(frame, dict):
            kind = frame.get("type")
            if isinstance(kind, str) and kind.startswith("keeper/"):
                self._keeper_record(kind, frame)
                return
        super()._dispatch(frame)

    def _keeper_record(self, kind: str, record: dict[str, Any]) -> None:
        if kind == "keeper/hello":
            data = record.get("keeper")
            self.record = KeeperRecord.from_json(data) if isinstance(data, dict) else None
            self.replayed = self._replay_left = int(record.get("replay") or 0)
            self.truncated = bool(record.get("truncated"))
            if self._replay_left == 0 and not self._replayed.done():
                self._replayed.set_result(None)
            if not self._hello.done():
                self._hello.set_result(None)
        elif kind == "keeper/busy":
            if not self._hello.done():
                self._hello.set_exception(KeeperBusy(str(record.get("message") or "the chat is attached elsewhere")))
        elif kind == "keeper/released":
            kept = record.get("kept") is True
            self._let_go = kept  # now, before the connection's end is read: that end is no exit then
            if self._released is not None and not self._released.done():
                self._released.set_result(kept)
        elif kind == "keeper/exit":
            code = record.get("returncode")
            tail = record.get("stderrTail")
            if isinstance(tail, str):
                self._stderr_tail = bytearray(tail.encode()[-self._stderr_tail_bytes :])
            returncode = code if isinstance(code, int) and not isinstance(code, bool) else None
            self._finish(PiExit(returncode, self.stderr_tail, expected=self._closing))

    def _event(self, record: dict[str, Any]) -> None:
        super()._event(record)
        if self._replay_left > 0:
            self._replay_left -= 1
            if self._replay_left == 0 and not self._replayed.done():
                self._replayed.set_result(None)

    def _connection_ended(self) -> None:
        """The socket closed: after an exit record, a release that kept Pi, or the keeper's death."""
        if not self._hello.done():
            self._hello.set_exception(KeeperGone("the chat's keeper closed the connection"))
        if not self._replayed.done():
            self._replayed.set_result(None)
        if self._released is not None and not self._released.done():
            self._released.set_result(False)
        if self.exit is not None:
            return
        if self._let_go:
            self._finish(PiExit(None, "", expected=True), tell=False)
            return
        self._stderr_tail += b"\nthe keeper holding Pi ended"
        self._finish(PiExit(None, self.stderr_tail, expected=self._closing))
        if self.record is not None:
            _end_orphan(self.record.owner_token)

    def _finish(self, exit_: PiExit, *, tell: bool = True) -> None:
        if self._transport is not None:
            self._transport.close()
        if not self._hello.done():
            self._hello.set_result(None)
        if not self._replayed.done():
            self._replayed.set_result(None)
        if tell:
            self._set_exit(exit_)
        elif self._exit is None:
            on_exit, self._on_exit = self._on_exit, None
            self._set_exit(exit_)
            self._on_exit = on_exit

    # -- the end -------------------------------------------------------------------------------------

    async def close(self, *, grace_s: float = CLOSE_GRACE_S, term_s: float = TERM_GRACE_S) -> PiExit:
        """End Pi (the keeper does it in order) and wait until it has; safe to call any number of times."""
        if self._close_task is None:
            self._closing = True
            self._close_task = self._loop.create_task(self._close(), name=f"kept-pi-close-{self.pid}")
        return await asyncio.shield(self._close_task)

    async def _close(self) -> PiExit:
        if self._exit is None:
            with contextlib.suppress(OSError, RuntimeError):
                self._send_keeper({"type": "keeper/stop"})
            if not await self._wait_exited(STOP_WAIT_S):
                if self.record is not None:
                    _kill_keeper(self.record.keeper_pid, self.record.owner_token)
                self._finish(PiExit(None, self.stderr_tail, expected=True))
        assert self._exit is not None
        return self._exit

    async def release(self) -> bool:
        """The server is going: the keeper keeps a busy Pi (answers True) and ends an idle one (False)."""
        if self._exit is not None or self._close_task is not None:
            return False
        self._released = self._loop.create_future()
        try:
            self._send_keeper({"type": "keeper/release"})
            kept = await asyncio.wait_for(asyncio.shield(self._released), RELEASE_TIMEOUT_S)
        except (OSError, RuntimeError, TimeoutError):
            kept = False
        if kept:
            self._finish(PiExit(None, "", expected=True), tell=False)
            return True
        await self.close()
        return False

    def _send_keeper(self, record: dict[str, Any]) -> None:
        transport = self._transport
        if transport is None or transport.is_closing():
            raise RuntimeError("the keeper's connection is closed")
        transport.write(encode_record(record))


class _SocketProtocol(WriterProtocol, asyncio.Protocol):
    """The keeper's socket: bytes to the channel's reader, and flow control for what we write."""

    def __init__(self, owner: KeptPi) -> None:
        super().__init__()
        self._owner = owner
        self._ended = False

    def data_received(self, data: bytes) -> None:
        self._owner._on_stdout(data)

    def eof_received(self) -> bool:
        self._end()
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        self._end()

    def _end(self) -> None:
        if not self._ended:
            self._ended = True
            self._owner._on_stdout_end()
            self._owner._connection_ended()


async def _spawn_keeper(python: str, config: dict[str, Any], env: Mapping[str, str]) -> dict[str, Any]:
    """Run ``python -m lsp_server.pi_rpc.keeper``; it forks the keeper and answers one JSON line."""
    try:
        launcher = await asyncio.create_subprocess_exec(
            python,
            "-m",
            KEEPER_MODULE,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
            cwd="/",
            env=dict(env),
            start_new_session=True,
        )
    except OSError as error:
        raise KeeperUnavailable(f"the keeper could not be started with {python}: {error.strerror or error}") from error
    try:
        out, _ = await asyncio.wait_for(launcher.communicate(encode_record(config)), SPAWN_TIMEOUT_S)
    except TimeoutError:
        with contextlib.suppress(ProcessLookupError):
            launcher.kill()
        await launcher.wait()
        raise KeeperUnavailable(f"the keeper did not answer within {SPAWN_TIMEOUT_S:g} s") from None
    try:
        answer = json.loads(out.splitlines()[0]) if out.strip() else None
    except ValueError:
        answer = None
    if not isinstance(answer, dict):
        raise KeeperUnavailable(f"the keeper answered {out[:200]!r} (exit code {launcher.returncode})")
    return answer


def _kill_keeper(keeper_pid: int, token: str) -> None:
    """SIGKILL a keeper that does not answer; its Pi then ends on stdin EOF, or by its marker."""
    if keeper_pid > 1:
        signal_group(keeper_pid, signal.SIGKILL)
    if token:
        _end_orphan(token)


def _end_orphan(token: str) -> None:
    """A Pi whose keeper died ends by itself (stdin EOF); whatever still carries its marker a little later is killed."""

    def sweep() -> None:
        deadline = time.monotonic() + ORPHAN_WAIT_S
        while marked_pids(token) and time.monotonic() < deadline:
            time.sleep(0.1)
        for _ in range(3):
            left = marked_pids(token)
            if not left:
                return
            signal_pids(left, signal.SIGKILL)

    threading.Thread(target=sweep, name="kept-pi-sweep", daemon=True).start()
