"""The stdio transport: the event loop reads stdin itself when it is a pipe or a socket.

pygls's stdio reader asks a worker thread for every header line and for every body: three or four
hand-offs per message, each waking a thread and then the loop (measured at about 0.13 ms of CPU and
of wall time each on a two-core machine, more when a core has to be woken). On a keystroke that is
half a millisecond before the edit is even read, and the wake-ups are what the slow answers wait on.

:class:`ChunkedReader` serves the header lines and the body from a buffer filled a chunk at a time:

* from a pipe or a socket (what editors give a language server), by the loop itself: the file
  descriptor is put in non-blocking mode and read when epoll says it is readable, with no thread;
* from anything else (a terminal, a file redirected to stdin, a descriptor stdout shares, any stdin on
  Windows, whose proactor loop cannot wait for a descriptor), by one
  read in a worker thread per chunk, as pygls does per line. A terminal is never made non-blocking:
  the flag belongs to the terminal, and the shell would inherit it.

Between two messages the reader lets the loop run once (``asyncio.sleep(0)``), so what a message
started (a check, an answer) gets its turn before the next message is handled, as it did between
pygls's reads.

:func:`serve_stdio` is pygls's own stdio loop (``JsonRPCServer._start_io_async``: its message loop
``pygls.io_.run_async``, its writer, its stop event, its shutdown) with this reader in place of pygls's.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import stat
import threading
from collections.abc import Awaitable, Callable
from concurrent.futures import Executor
from typing import BinaryIO

from pygls.io_ import StdoutWriter, run_async
from pygls.server import JsonRPCServer

from lsp_server.server.early import ReplayingReader

CHUNK_BYTES = 1 << 20  # at most this much per read: a 30 MB didOpen takes 30 reads
# Only a selector loop on POSIX reads a descriptor when it is ready; Windows' proactor loop has no add_reader.
LOOP_CAN_READ = os.name == "posix"

logger = logging.getLogger(__name__)

Fill = Callable[[], Awaitable[bytes]]  # the next chunk; b"" at the end of the stream


class ChunkedReader:
    """pygls's ``AsyncReader`` over a buffer that ``fill`` adds chunks to."""

    def __init__(self, fill: Fill, first: bytes = b"") -> None:
        self._fill = fill
        self._buffer = bytearray(first)
        self._ended = False

    async def _more(self) -> bool:
        """Add the next chunk to the buffer; ``False`` at the end of the stream."""
        if self._ended:
            return False
        chunk = await self._fill()
        if not chunk:
            self._ended = True
            return False
        self._buffer += chunk
        return True

    async def readline(self) -> bytes:
        """The next line with its ``\\n``; at the end of the stream what is left (``b""`` when nothing)."""
        await asyncio.sleep(0)  # what the last message started runs before the next one is read
        searched = 0
        while True:
            end = self._buffer.find(b"\n", searched)
            if end >= 0:
                line = bytes(self._buffer[: end + 1])
                del self._buffer[: end + 1]
                return line
            searched = len(self._buffer)
            if not await self._more():
                line = bytes(self._buffer)
                self._buffer.clear()
                return line

    async def readexactly(self, n: int) -> bytes:
        """The next ``n`` bytes; fewer only at the end of the stream."""
        while len(self._buffer) < n and await self._more():
            pass
        data = bytes(self._buffer[:n])
        del self._buffer[:n]
        return data


def thread_fill(stream: BinaryIO, executor: Executor | None) -> Fill:
    """Chunks read by a worker thread: one blocking ``read1`` each."""

    async def fill() -> bytes:
        read1: Callable[[int], bytes] = stream.read1  # type: ignore[attr-defined]
        return await asyncio.get_running_loop().run_in_executor(executor, read1, CHUNK_BYTES)

    return fill


def loop_fill(fd: int) -> Fill:
    """Chunks read by the loop from a non-blocking descriptor, when epoll says it is readable."""

    async def fill() -> bytes:
        loop = asyncio.get_running_loop()
        while True:
            try:
                return os.read(fd, CHUNK_BYTES)
            except BlockingIOError:
                pass
            readable: asyncio.Future[None] = loop.create_future()
            loop.add_reader(fd, _wake, readable)
            try:
                await readable
            finally:
                loop.remove_reader(fd)

    return fill


def _wake(readable: asyncio.Future[None]) -> None:
    if not readable.done():
        readable.set_result(None)


def loop_readable(stream: BinaryIO, stdout: BinaryIO) -> int | None:
    """The descriptor the loop may read ``stream`` from without a thread, else ``None``.

    A pipe or a socket that stdout is not also on: non-blocking mode is a property of the open file, so
    a shared one would make the writes to stdout fail when the client is slow to read (both ends of one
    pipe look the same from here, so they count as shared too).
    """
    if not LOOP_CAN_READ:
        return None
    try:
        fd = stream.fileno()
        mode = os.fstat(fd)
    except (AttributeError, OSError, ValueError):
        return None
    if not (stat.S_ISFIFO(mode.st_mode) or stat.S_ISSOCK(mode.st_mode)):
        return None
    try:
        out = os.fstat(stdout.fileno())
    except (AttributeError, OSError, ValueError):
        out = None
    if out is not None and (out.st_dev, out.st_ino) == (mode.st_dev, mode.st_ino):
        return None
    return fd


def serve_stdio(server: JsonRPCServer, stdin: ReplayingReader, stdout: BinaryIO) -> None:
    """Serve LSP over ``stdin`` / ``stdout`` until ``exit`` or the end of stdin, as pygls's ``start_io`` does."""
    first, stream = stdin.take_rest()
    fd = loop_readable(stream, stdout)
    blocking = True
    if fd is not None:
        blocking = os.get_blocking(fd)
        os.set_blocking(fd, False)
        reader = ChunkedReader(loop_fill(fd), first)
    else:
        reader = ChunkedReader(thread_fill(stream, server.thread_pool), first)
    server._stop_event = stop_event = threading.Event()  # what pygls's shutdown sets
    server.protocol.set_writer(StdoutWriter(stdout))
    try:
        asyncio.run(
            run_async(
                stop_event=stop_event,
                reader=reader,
                protocol=server.protocol,
                logger=logger,
                error_handler=server.report_server_error,
            )
        )
    except BrokenPipeError:
        logger.error("the connection to the client is lost: shutting down")
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        if fd is not None and blocking:
            with contextlib.suppress(OSError):
                os.set_blocking(fd, True)  # as it was, for whoever shares the pipe
        server.shutdown()  # type: ignore[no-untyped-call]
