"""How much of a session file is read: the size limit, the line limit, and a line reader that keeps them.

Session files come from agents and extensions, so they are untrusted input: a FIFO named
``x.jsonl`` would block a reader forever, ``/dev/zero`` never ends, and a 2 GB sparse file is one
2 GB "line" of NUL bytes. Every session read goes through :func:`open_session` (regular files
only, the size checked against :attr:`SessionReadLimits.max_bytes`) and reads lines with
:func:`iter_lines`, which never holds more than :attr:`SessionReadLimits.max_line_bytes` of one
line. Pi itself reads the whole file into one JavaScript string, which Node caps near 512 MiB,
so the default size limit is where Pi stops too; docs/limits.md lists both limits.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import BinaryIO, Final

from lsp_server.base.fsread import open_regular

SESSION_MAX_BYTES: Final = 512 * 1024 * 1024
SESSION_MAX_LINE_BYTES: Final = 64 * 1024 * 1024
READ_CHUNK_BYTES: Final = 4 * 1024 * 1024
TAIL_BYTES: Final = 64

SIZE_SETTING: Final = "piContext.limits.sessionMaxBytes / --session-max-bytes"


@dataclass(frozen=True)
class SessionReadLimits:
    """The limits of one session read (the setting ``piContext.limits.sessionMaxBytes``, the flag)."""

    max_bytes: int = SESSION_MAX_BYTES
    max_line_bytes: int = SESSION_MAX_LINE_BYTES


DEFAULT_LIMITS: Final = SessionReadLimits()


def too_large_message(path: str, size: int, limit: int) -> str:
    """The error for a session over the size limit: it names the size, the limit and how to raise it."""
    return f"{path}: session file is {size:,} bytes, over the {limit:,}-byte limit ({SIZE_SETTING})"


def line_too_long_reason(length: int, limit: int) -> str:
    return f"line is over the {limit:,}-byte line limit ({length:,} bytes or more); it is skipped"


def open_session(path: str, limits: SessionReadLimits = DEFAULT_LIMITS) -> tuple[BinaryIO, int] | str:
    """An open regular session file and its size, or the one-line reason it is not read."""
    opened = open_regular(path)
    if isinstance(opened, str):
        return opened
    handle, st = opened
    if st.st_size > limits.max_bytes:
        handle.close()
        return too_large_message(path, st.st_size, limits.max_bytes)
    return handle, st.st_size


@dataclass(frozen=True)
class RawLine:
    """One physical line without its ``\\n``; ``data`` is ``None`` when it was over the line limit."""

    data: bytes | None
    length: int  # bytes of the line (at least this many when it was cut off)
    complete: bool  # ended with a newline
    tail: bytes = b""  # the line's last bytes (up to TAIL_BYTES), kept even when the line was dropped


def iter_lines(handle: BinaryIO, max_line_bytes: int, budget: int) -> Iterator[RawLine]:
    """The lines of ``handle`` from its position, reading at most ``budget`` bytes in chunks.

    A line longer than ``max_line_bytes`` is yielded once with ``data=None`` and its bytes are
    dropped as they are read, so memory stays at one chunk plus one line whatever the file holds.
    """
    pending = bytearray()
    skipping = False
    skipped = 0
    tail = b""
    left = budget
    while left > 0:
        chunk = handle.read(min(READ_CHUNK_BYTES, left))
        if not chunk:
            break
        left -= len(chunk)
        start = 0
        while True:
            newline = chunk.find(b"\n", start)
            end = len(chunk) if newline < 0 else newline
            if skipping:
                skipped += end - start
                tail = (tail + chunk[max(start, end - TAIL_BYTES) : end])[-TAIL_BYTES:]
            else:
                pending += chunk[start:end]
                if len(pending) > max_line_bytes:
                    skipping, skipped, tail = True, len(pending), bytes(pending[-TAIL_BYTES:])
                    pending.clear()
            if newline < 0:
                break
            if skipping:
                yield RawLine(None, skipped, True, tail)
                skipping = False
            else:
                data = bytes(pending)
                yield RawLine(data, len(data), True, data[-TAIL_BYTES:])
                pending.clear()
            start = newline + 1
    if skipping:
        yield RawLine(None, skipped, False, tail)
    elif pending:
        data = bytes(pending)
        yield RawLine(data, len(data), False, data[-TAIL_BYTES:])
