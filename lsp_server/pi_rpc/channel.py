"""Pi's RPC protocol over a pair of byte streams, apart from where the streams come from.

Pi speaks JSON lines: commands in, responses and events out. :class:`PiRpcChannel` is that
conversation: it gives each command an id, matches responses by id, hands every other record to
``on_event`` in arrival order, keeps the tail of Pi's stderr, and fails the pending requests when
the other side ends. Where the bytes travel is a subclass's business:

* :class:`~lsp_server.pi_rpc.process.PiRpcProcess`: Pi as our own child process (its pipes);
* :class:`~lsp_server.pi_rpc.kept.KeptPi`: Pi under a keeper process of ours, over a Unix socket,
  so that a turn outlives the language server (see ``docs/chat.md``).

A subclass connects the streams (``_stdin`` and ``_writer`` for commands, ``_on_stdout`` /
``_on_stdout_end`` / ``_on_stderr_data`` for what comes back), says how it ends (``close``) and
reports the end with :meth:`PiRpcChannel._set_exit`.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from lsp_server.pi_rpc.commands import PiCommands
from lsp_server.pi_rpc.errors import PiCommandError, PiExitedError, PiProtocolError, PiRequestTimeout, describe_exit
from lsp_server.pi_rpc.framing import Frame, FramingProblem, LineSplitter, encode_record

STDERR_TAIL_BYTES: Final = 64 * 1024
ABANDONED_IDS_KEPT: Final = 1024

JsonObject = dict[str, Any]
EventCallback = Callable[[JsonObject], None]
AnswerHook = Callable[[], None]


@dataclass(frozen=True)
class UnmatchedResponse:
    """A ``response`` record that answers no request we are waiting for."""

    record: JsonObject

    @property
    def message(self) -> str:
        rid = self.record.get("id")
        command = self.record.get("command")
        error = self.record.get("error")
        text = f"Pi answered {command!s} with id {rid!r}, which no request is waiting for"
        return f"{text}: {error}" if error else text


ProtocolProblem = FramingProblem | UnmatchedResponse


@dataclass(frozen=True)
class PiExit:
    """How a Pi process ended."""

    returncode: int | None  # negative: killed by that signal; None: could not be reaped in time, or not known
    stderr_tail: str
    expected: bool  # close() had been called

    @property
    def message(self) -> str:
        return describe_exit(self.returncode, self.stderr_tail, expected=self.expected)

    def error(self) -> PiExitedError:
        return PiExitedError(self.returncode, self.stderr_tail, expected=self.expected)


class PiRpcChannel(PiCommands):
    """The protocol half of a running Pi: requests by id, events in order, the end."""

    def __init__(
        self,
        *,
        on_event: EventCallback | None,
        on_problem: Callable[[ProtocolProblem], None] | None,
        on_stderr: Callable[[bytes], None] | None,
        on_exit: Callable[[PiExit], None] | None,
        max_line_bytes: int,
        stderr_tail_bytes: int = STDERR_TAIL_BYTES,
    ) -> None:
        self._loop = asyncio.get_running_loop()
        self._on_event = on_event
        self._on_problem = on_problem
        self._on_stderr = on_stderr
        self._on_exit = on_exit
        self._splitter = LineSplitter(max_line_bytes)
        self._stderr_tail = bytearray()
        self._stderr_tail_bytes = stderr_tail_bytes
        self._ids = itertools.count(1)
        self._id_prefix = "pc-"
        self._pending: dict[str, tuple[str, asyncio.Future[Any], AnswerHook | None]] = {}
        self._abandoned: dict[str, None] = {}
        self._stdin: asyncio.WriteTransport | None = None
        self._writer = WriterProtocol()
        self._exited = asyncio.Event()
        self._exit: PiExit | None = None
        self._closing = False
        self.initial_state: JsonObject | None = None
        # Told of every command Pi refused (before the caller's await raises): the chat learns from
        # ``Unknown command`` which commands this Pi lacks (capabilities.py).
        self.on_refused: Callable[[PiCommandError], None] | None = None

    # -- state ---------------------------------------------------------------------------------------

    @property
    def pid(self) -> int:
        raise NotImplementedError

    @property
    def running(self) -> bool:
        return self._exit is None

    @property
    def exit(self) -> PiExit | None:
        """How Pi ended, once it has (and its output has been read)."""
        return self._exit

    @property
    def stderr_tail(self) -> str:
        return bytes(self._stderr_tail).decode("utf-8", errors="replace")

    async def wait_exit(self) -> PiExit:
        await self._exited.wait()
        assert self._exit is not None
        return self._exit

    async def close(self, *, grace_s: float = 3.0, term_s: float = 3.0) -> PiExit:
        raise NotImplementedError

    # -- commands ------------------------------------------------------------------------------------

    async def request(
        self, command: Mapping[str, Any], *, timeout: float | None = None, at_answer: AnswerHook | None = None
    ) -> Any:
        """Send one command and return its response's ``data`` (None when it has none).

        Raises :class:`PiCommandError` (Pi's ``error`` text), :class:`PiExitedError`,
        :class:`PiRequestTimeout` (the process keeps running; a late answer is dropped) or
        :class:`PiProtocolError`. Ids are ours: a command that brings its own ``id`` is refused.
        ``at_answer`` is called the moment the response is read, before any record Pi wrote after
        it is dispatched: a caller snapshots what it folded from the events so far, at exactly the
        point in Pi's output where the answer stands.
        """
        kind = command.get("type")
        if not isinstance(kind, str) or not kind:
            raise ValueError("a Pi command needs a string 'type'")
        if "id" in command:
            raise ValueError("request() assigns the id; send the command without one")
        self._check_open()
        rid = f"{self._id_prefix}{next(self._ids)}"
        future: asyncio.Future[Any] = self._loop.create_future()
        self._pending[rid] = (kind, future, at_answer)
        try:
            await self._write({"id": rid, **command})
            if timeout is None:
                return await future
            try:
                return await asyncio.wait_for(future, timeout)
            except TimeoutError:
                raise PiRequestTimeout(f"Pi did not answer {kind} within {timeout:g} s") from None
        finally:
            if self._pending.pop(rid, None) is not None:
                self._abandon(rid)

    async def send(self, record: Mapping[str, Any]) -> None:
        """Write one record that gets no response (``extension_ui_response``)."""
        if not isinstance(record.get("type"), str):
            raise ValueError("a Pi record needs a string 'type'")
        self._check_open()
        await self._write(dict(record))

    def _check_open(self) -> None:
        if self._exit is not None:
            raise self._exit.error()
        if self._closing:
            raise PiExitedError(None, self.stderr_tail, expected=True)

    async def _write(self, record: JsonObject) -> None:
        stdin = self._stdin
        if stdin is None or stdin.is_closing() or self._writer.lost:
            raise PiExitedError(None, self.stderr_tail, expected=self._closing)
        try:
            data = encode_record(record)
        except (TypeError, ValueError) as error:
            raise ValueError(f"the command cannot be written as JSON: {error}") from error
        stdin.write(data)
        try:
            await self._writer.drain()
        except PiExitedError:
            raise PiExitedError(None, self.stderr_tail, expected=self._closing) from None

    def _abandon(self, rid: str) -> None:
        self._abandoned[rid] = None
        if len(self._abandoned) > ABANDONED_IDS_KEPT:
            self._abandoned.pop(next(iter(self._abandoned)))

    # -- reading -------------------------------------------------------------------------------------

    def _on_stdout(self, data: bytes) -> None:
        for frame in self._splitter.feed(data):
            self._dispatch(frame)

    def _on_stdout_end(self) -> None:
        for frame in self._splitter.finish():
            self._dispatch(frame)

    def _dispatch(self, frame: Frame) -> None:
        if isinstance(frame, FramingProblem):
            if frame.response_id is not None and frame.response_id in self._pending:
                _, future, _ = self._pending.pop(frame.response_id)
                if not future.done():
                    future.set_exception(PiProtocolError(frame.message))
            self._report(frame)
            return
        if frame.get("type") == "response":
            rid = frame.get("id")
            waiting = self._pending.pop(rid, None) if isinstance(rid, str) else None
            if waiting is None:
                if not (isinstance(rid, str) and self._abandoned.pop(rid, 0) is None):
                    self._report(UnmatchedResponse(frame))
                return
            kind, future, at_answer = waiting
            if future.done():
                return
            if at_answer is not None:
                self._call(lambda _: at_answer(), None)
            if frame.get("success") is True:
                future.set_result(frame.get("data"))
            else:
                error = frame.get("error")
                refusal = PiCommandError(kind, error if isinstance(error, str) else "no reason given")
                if self.on_refused is not None:
                    self._call(self.on_refused, refusal)
                future.set_exception(refusal)
            return
        self._event(frame)

    def _event(self, record: JsonObject) -> None:
        if self._on_event is not None:
            self._call(self._on_event, record)

    def _report(self, problem: ProtocolProblem) -> None:
        if self._on_problem is not None:
            self._call(self._on_problem, problem)

    def _call(self, callback: Callable[[Any], None], value: Any) -> None:
        try:
            callback(value)
        except Exception as error:  # a broken callback must not stop the reading
            self._loop.call_exception_handler(
                {"message": "Pi RPC callback failed", "exception": error, "protocol": self}
            )

    def _on_stderr_data(self, data: bytes) -> None:
        self._stderr_tail += data
        excess = len(self._stderr_tail) - self._stderr_tail_bytes
        if excess > 0:
            del self._stderr_tail[:excess]
        if self._on_stderr is not None:
            self._call(self._on_stderr, data)

    # -- the end -------------------------------------------------------------------------------------

    def _set_exit(self, exit_: PiExit) -> None:
        """Pi has ended: fail what waits, wake ``wait_exit``, tell ``on_exit`` (once)."""
        if self._exit is not None:
            return
        self._exit = exit_
        pending = list(self._pending.values())
        self._pending.clear()
        for _, future, _ in pending:
            if not future.done():
                future.set_exception(exit_.error())
        self._exited.set()
        if self._on_exit is not None:
            self._call(self._on_exit, exit_)

    async def _wait_exited(self, timeout: float) -> bool:
        try:
            await asyncio.wait_for(self._exited.wait(), timeout)
        except TimeoutError:
            return False
        return True


class ReaderProtocol(asyncio.Protocol):
    """Bytes of one pipe to ``on_data``; ``on_end`` once, at EOF or when the pipe is lost."""

    def __init__(self, on_data: Callable[[bytes], None], on_end: Callable[[], None]) -> None:
        self._on_data = on_data
        self._on_end = on_end
        self._ended = False

    def data_received(self, data: bytes) -> None:
        self._on_data(data)

    def eof_received(self) -> bool:
        self._end()
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self._end()

    def _end(self) -> None:
        if not self._ended:
            self._ended = True
            self._on_end()


class WriterProtocol(asyncio.BaseProtocol):
    """Flow control for the command stream: ``drain`` waits while the pipe or socket is full."""

    def __init__(self) -> None:
        self._paused = False
        self._resumed: asyncio.Future[None] | None = None
        self.lost = False

    def pause_writing(self) -> None:
        self._paused = True

    def resume_writing(self) -> None:
        self._paused = False
        if self._resumed is not None and not self._resumed.done():
            self._resumed.set_result(None)
        self._resumed = None

    def connection_lost(self, exc: Exception | None) -> None:
        self.lost = True
        self.resume_writing()

    async def drain(self) -> None:
        if self.lost:
            raise PiExitedError(None, "")
        if not self._paused:
            return
        if self._resumed is None:
            self._resumed = asyncio.get_running_loop().create_future()
        await self._resumed
        if self.lost:
            raise PiExitedError(None, "")
