"""One Pi agent in RPC mode as a child process: spawn, read, correlate, notice the end, close.

The process::

    pi = await PiRpcProcess.start(installation.argv, cwd=folder, env=env, on_event=chat.on_event)
    state = await pi.get_state()
    await pi.prompt("Explain this repository")       # returns once Pi accepted it
    ...                                              # events arrive at on_event until agent_settled
    await pi.close()

Reading (the protocol half is :class:`~lsp_server.pi_rpc.channel.PiRpcChannel`, shared with Pi
under a keeper). stdout is read for as long as the process lives, by an asyncio pipe protocol (Pi
stalls when nobody reads). :class:`~lsp_server.pi_rpc.framing.LineSplitter` cuts it into records. A
``response`` whose ``id`` we sent resolves that request (its ``data``, or a
:class:`~lsp_server.pi_rpc.errors.PiCommandError` with Pi's ``error``); every other record (session
events, ``extension_ui_request``) goes to ``on_event`` synchronously, in arrival order, as the dict
Pi wrote. Lines that are not records, and responses nobody waits for, go to ``on_problem``.
stderr is Pi's log: its last 64 KiB are kept for error messages and every chunk goes to
``on_stderr``.

The end. A thread waits for the child with ``waitid(WNOWAIT)``: when Pi exits it is still a zombie,
so its process id (which is also its group id) cannot be reused yet; the thread SIGKILLs whatever is
left in the group and every process carrying this child's marker (see :mod:`.reaper`), then reaps
Pi. Reaping never depends on the event loop, so no zombie is left even when the loop has gone. On
the loop, the remaining output is read to EOF, pending requests fail with
:class:`~lsp_server.pi_rpc.errors.PiExitedError` (exit code and the stderr tail), and ``on_exit`` is
called.

Closing (:meth:`PiRpcProcess.close`, idempotent): close stdin (Pi's orderly shutdown: it aborts the
run and exits), wait, SIGTERM the group, wait, SIGKILL the group and the marked processes. If the
owner never closes, the loop shutting down (its tasks are cancelled) or the object being collected
or the interpreter exiting kills the group, so there is no orphan either.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import threading
import uuid
import weakref
from collections.abc import Callable, Mapping, Sequence
from typing import Final

from lsp_server.pi_rpc.channel import (
    STDERR_TAIL_BYTES,
    EventCallback,
    PiExit,
    PiRpcChannel,
    ProtocolProblem,
    ReaderProtocol,
    UnmatchedResponse,
)
from lsp_server.pi_rpc.errors import PiStartError
from lsp_server.pi_rpc.framing import DEFAULT_MAX_LINE_BYTES
from lsp_server.pi_rpc.reaper import (
    MARKER_NAME,
    POSIX,
    descendant_pids,
    kill_leftovers,
    signal_group,
    spawn_options,
)

__all__ = ["PiExit", "PiRpcProcess", "ProtocolProblem", "UnmatchedResponse", "rpc_argv"]

CLOSE_GRACE_S: Final = 3.0  # after stdin EOF, before SIGTERM
TERM_GRACE_S: Final = 3.0  # after SIGTERM, before SIGKILL
KILL_WAIT_S: Final = 10.0  # after SIGKILL: only a process stuck in the kernel takes this long
DRAIN_AFTER_EXIT_S: Final = 2.0  # reading the output Pi wrote before it exited
READY_TIMEOUT_S: Final = 60.0


def rpc_argv(
    argv: Sequence[str],
    *,
    session_file: str | os.PathLike[str] | None = None,
    provider: str | None = None,
    model: str | None = None,
    extra_args: Sequence[str] = (),
) -> list[str]:
    """The full command line: the installation's prefix, ``--mode rpc`` and the session/model options."""
    line = [*argv, "--mode", "rpc"]
    if session_file is not None:
        line += ["--session", os.fspath(session_file)]
    if provider is not None:
        line += ["--provider", provider]
    if model is not None:
        line += ["--model", model]
    return line + list(extra_args)


class PiRpcProcess(PiRpcChannel):
    """A running ``pi --mode rpc`` as our child process; make one with :meth:`start`."""

    def __init__(
        self,
        popen: subprocess.Popen[bytes],
        argv: Sequence[str],
        token: str,
        *,
        on_event: EventCallback | None,
        on_problem: Callable[[ProtocolProblem], None] | None,
        on_stderr: Callable[[bytes], None] | None,
        on_exit: Callable[[PiExit], None] | None,
        max_line_bytes: int,
        stderr_tail_bytes: int,
    ) -> None:
        super().__init__(
            on_event=on_event,
            on_problem=on_problem,
            on_stderr=on_stderr,
            on_exit=on_exit,
            max_line_bytes=max_line_bytes,
            stderr_tail_bytes=stderr_tail_bytes,
        )
        self._popen = popen
        self.argv: tuple[str, ...] = tuple(argv)
        self._token = token
        self._stdout_done = asyncio.Event()
        self._stderr_done = asyncio.Event()
        self._close_task: asyncio.Task[PiExit] | None = None
        self._transports: list[asyncio.BaseTransport] = []
        # Last-resort cleanup that holds no reference to self: on collection or interpreter exit.
        self._finalizer = weakref.finalize(self, _kill_now, popen, token)
        self._guard = self._loop.create_task(self._guard_loop_shutdown(), name=f"pi-rpc-guard-{popen.pid}")

    # -- starting ----------------------------------------------------------------------------------

    @classmethod
    async def start(
        cls,
        argv: Sequence[str],
        *,
        cwd: str | os.PathLike[str],
        env: Mapping[str, str],
        session_file: str | os.PathLike[str] | None = None,
        provider: str | None = None,
        model: str | None = None,
        extra_args: Sequence[str] = (),
        on_event: EventCallback | None = None,
        on_problem: Callable[[ProtocolProblem], None] | None = None,
        on_stderr: Callable[[bytes], None] | None = None,
        on_exit: Callable[[PiExit], None] | None = None,
        max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
        stderr_tail_bytes: int = STDERR_TAIL_BYTES,
        ready_timeout_s: float | None = READY_TIMEOUT_S,
    ) -> PiRpcProcess:
        """Spawn Pi and, unless ``ready_timeout_s`` is None, wait for its first ``get_state``.

        ``argv`` is the prefix from :func:`~lsp_server.pi_rpc.find_pi.locate_pi`; ``env`` is the
        complete environment (the front end's, given down), e.g. with ``PI_CODING_AGENT_DIR``. The
        answer to the first ``get_state`` is kept as :attr:`initial_state`; a Pi that exits or
        refuses before it answers is closed and the error raised.
        """
        line = rpc_argv(argv, session_file=session_file, provider=provider, model=model, extra_args=extra_args)
        token = uuid.uuid4().hex
        child_env = dict(env)
        child_env[MARKER_NAME] = token
        try:
            popen = subprocess.Popen(
                line,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd=os.fspath(cwd),
                env=child_env,
                close_fds=True,
                **spawn_options(),
            )
        except OSError as error:
            raise PiStartError(start_failure(line[0], cwd, error)) from error
        process = cls(
            popen,
            line,
            token,
            on_event=on_event,
            on_problem=on_problem,
            on_stderr=on_stderr,
            on_exit=on_exit,
            max_line_bytes=max_line_bytes,
            stderr_tail_bytes=stderr_tail_bytes,
        )
        try:
            await process._connect()
        except BaseException:
            # No waiting thread yet: end and reap it here (SIGKILL makes the wait short).
            _kill_now(popen, token)
            with contextlib.suppress(subprocess.TimeoutExpired, OSError):
                popen.wait(KILL_WAIT_S)
            process._finalizer.detach()
            process._guard.cancel()
            raise
        if ready_timeout_s is not None:
            try:
                process.initial_state = await process.get_state(timeout=ready_timeout_s)
            except BaseException:
                await asyncio.shield(process.close(grace_s=0.5, term_s=1.0))
                raise
        return process

    async def _connect(self) -> None:
        popen = self._popen
        assert popen.stdin is not None and popen.stdout is not None and popen.stderr is not None
        out, _ = await self._loop.connect_read_pipe(
            lambda: ReaderProtocol(self._on_stdout, self._on_stdout_end), popen.stdout
        )
        err, _ = await self._loop.connect_read_pipe(
            lambda: ReaderProtocol(self._on_stderr_data, self._stderr_done.set), popen.stderr
        )
        stdin, _ = await self._loop.connect_write_pipe(lambda: self._writer, popen.stdin)
        self._stdin = stdin
        self._transports = [out, err, stdin]
        threading.Thread(
            target=wait_then_reap,
            args=(popen, self._token, self._loop, self._on_reaped),
            name=f"pi-rpc-wait-{popen.pid}",
            daemon=True,
        ).start()

    # -- state ---------------------------------------------------------------------------------------

    @property
    def pid(self) -> int:
        return self._popen.pid

    @property
    def owner_token(self) -> str:
        """The value of ``PI_CONTEXT_CHAT_OWNER`` in Pi's environment (inherited by its descendants)."""
        return self._token

    def _on_stdout_end(self) -> None:
        super()._on_stdout_end()
        self._stdout_done.set()

    # -- the end -------------------------------------------------------------------------------------

    def _on_reaped(self, returncode: int | None) -> None:
        self._loop.create_task(self._finish_exit(returncode), name=f"pi-rpc-exit-{self.pid}")

    async def _finish_exit(self, returncode: int | None) -> None:
        if self._exit is not None:
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(
                asyncio.gather(self._stdout_done.wait(), self._stderr_done.wait()), DRAIN_AFTER_EXIT_S
            )
        if self._exit is not None:
            return
        for transport in self._transports:
            transport.close()
        self._finalizer.detach()
        self._set_exit(PiExit(returncode, self.stderr_tail, expected=self._closing))

    async def close(self, *, grace_s: float = CLOSE_GRACE_S, term_s: float = TERM_GRACE_S) -> PiExit:
        """End Pi in order (stdin EOF, then SIGTERM, then SIGKILL); safe to call any number of times."""
        if self._close_task is None:
            self._closing = True
            self._close_task = self._loop.create_task(self._close(grace_s, term_s), name=f"pi-rpc-close-{self.pid}")
        return await asyncio.shield(self._close_task)

    async def _close(self, grace_s: float, term_s: float) -> PiExit:
        if self._exit is None:
            if self._stdin is not None:
                self._stdin.close()
            if not await self._wait_exited(grace_s):
                if POSIX:
                    signal_group(self.pid, signal.SIGTERM)
                else:  # pragma: no cover - no process groups here
                    self._popen.terminate()
                if not await self._wait_exited(term_s):
                    survivors = descendant_pids(self.pid)
                    _kill_now(self._popen, self._token, survivors)
                    if not await self._wait_exited(KILL_WAIT_S):
                        self._set_exit(PiExit(None, self.stderr_tail, expected=True))
        self._guard.cancel()
        assert self._exit is not None
        return self._exit

    async def _guard_loop_shutdown(self) -> None:
        """Lives as long as Pi; when the loop cancels it on shutdown, Pi dies with the loop."""
        try:
            await self._exited.wait()
        except asyncio.CancelledError:
            if self._exit is None and not (self._close_task is not None and self._close_task.done()):
                _kill_now(self._popen, self._token)
            raise


def _kill_now(popen: subprocess.Popen[bytes], token: str, extra: Sequence[int] = ()) -> None:
    """SIGKILL Pi's group and everything marked as its own; the waiting thread reaps Pi."""
    if POSIX:
        kill_leftovers(popen.pid, token, extra)
    else:  # pragma: no cover - no process groups here
        with contextlib.suppress(OSError):
            popen.kill()


def wait_then_reap(
    popen: subprocess.Popen[bytes],
    token: str,
    loop: asyncio.AbstractEventLoop,
    done: Callable[[int | None], None],
) -> None:
    """The waiting thread: notice the exit without reaping, clean up the group, then reap.

    Used by the keeper process too (:mod:`.keeper`), which is Pi's parent there."""
    if POSIX and hasattr(os, "waitid"):
        with contextlib.suppress(ChildProcessError, OSError):
            os.waitid(os.P_PID, popen.pid, os.WEXITED | os.WNOWAIT)
        kill_leftovers(popen.pid, token)
    try:
        returncode: int | None = popen.wait()
    except (ChildProcessError, OSError):
        returncode = popen.returncode
    with contextlib.suppress(RuntimeError):  # the loop is closed: nobody is left to tell
        loop.call_soon_threadsafe(done, returncode)


def start_failure(program: str, cwd: str | os.PathLike[str], error: OSError) -> str:
    if isinstance(error, FileNotFoundError) and error.filename == os.fspath(cwd):
        return f"Pi could not be started: the folder {os.fspath(cwd)} does not exist"
    if isinstance(error, FileNotFoundError):
        return f"Pi could not be started: {program} was not found"
    if isinstance(error, PermissionError):
        return f"Pi could not be started: {program} is not executable"
    return f"Pi could not be started: {error.strerror or error}"
