"""Reading the user's files the way Node does, without ever raising on bad input.

Pi reads context files, SYSTEM.md and skills with ``readFileSync(path, "utf-8")``: invalid
UTF-8 becomes U+FFFD and the read goes on. We decode the same way (so the prompt we rebuild is
the prompt Pi builds) and also remember where the bad bytes were, so a finding can point at
them. Everything that can fail on a real disk (permissions, a directory where a file was
expected, a symlink loop, a file that vanished, a huge file) comes back as a value, not an
exception.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, BinaryIO, cast

from lsp_server.base.native import native_module
from lsp_server.js.strings import node_dir_sort_key

# Files above this size are not read at all (a finding says so). Pi would try; a language
# server holding a 500 MB "AGENTS.md" in memory on every keystroke would not survive.
MAX_READ_BYTES = 64 * 1024 * 1024


@dataclass(frozen=True)
class InvalidUtf8:
    """First undecodable byte sequence: 0-based line, column (code points) and byte offset."""

    line: int
    column: int
    byte_offset: int
    count: int  # how many replacement characters decoding produced


@dataclass(frozen=True)
class ReadResult:
    path: str
    text: str | None  # None when the file could not be read
    error: str | None = None  # Node-style message, e.g. "EACCES: permission denied, open '<path>'"
    size: int = 0
    invalid_utf8: InvalidUtf8 | None = None

    @property
    def ok(self) -> bool:
        return self.text is not None


_ERRNO_NAMES = {
    errno.ENOENT: ("ENOENT", "no such file or directory"),
    errno.EACCES: ("EACCES", "permission denied"),
    errno.EISDIR: ("EISDIR", "illegal operation on a directory"),
    errno.ELOOP: ("ELOOP", "too many symbolic links encountered"),
    errno.ENOTDIR: ("ENOTDIR", "not a directory"),
    errno.EPERM: ("EPERM", "operation not permitted"),
}


def node_error_message(exc: OSError, syscall: str, path: str) -> str:
    """``EACCES: permission denied, open '/x'``: the shape of Node's fs error messages."""
    code, text = _ERRNO_NAMES.get(
        exc.errno or 0, (errno.errorcode.get(exc.errno or 0, "EIO"), (exc.strerror or "i/o error").lower())
    )
    return f"{code}: {text}, {syscall} '{path}'"


def decode_like_node(data: bytes) -> tuple[str, InvalidUtf8 | None]:
    """UTF-8 decode with U+FFFD replacement (WHATWG / Node semantics) and locate the first error."""
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError as exc:
        first = exc.start
    text = data.decode("utf-8", errors="replace")
    prefix = data[:first].decode("utf-8", errors="replace")
    line = prefix.count("\n")
    column = len(prefix) - (prefix.rfind("\n") + 1)
    valid = data.decode("utf-8", errors="ignore")
    count = text.count("\ufffd") - valid.count("\ufffd")
    return text, InvalidUtf8(line=line, column=column, byte_offset=first, count=count)


def read_text(path: str | os.PathLike[str], max_bytes: int = MAX_READ_BYTES) -> ReadResult:
    """Read a file as Node's ``readFileSync(path, "utf-8")`` would, reporting failures as values.

    The system calls run in C where the package was built with it (``base/_native.c``: the same
    steps in one call, a third less time per skill file); :func:`read_text_python` otherwise.
    """
    p = os.fspath(path)
    native = _native_read()
    if native is None or not isinstance(p, str):
        return read_text_python(p, max_bytes)
    outcome, value, size = native(p, max_bytes)
    if outcome == _READ:
        data: bytes = value
        if len(data) > max_bytes:
            return ReadResult(p, None, f"file is too large to read (over {max_bytes} bytes)", size=len(data))
        text, invalid = decode_like_node(data)
        return ReadResult(p, text, size=len(data), invalid_utf8=invalid)
    if outcome == _STAT_FAILED:
        return ReadResult(p, None, node_error_message(OSError(value, os.strerror(value)), "stat", p))
    if outcome == _DIRECTORY:
        return ReadResult(p, None, node_error_message(IsADirectoryError(errno.EISDIR, ""), "read", p))
    if outcome == _NOT_REGULAR:
        return ReadResult(p, None, f"not a regular file: '{p}'")
    if outcome == _TOO_LARGE:
        return ReadResult(p, None, f"file is too large to read ({size} bytes, limit {max_bytes})", size=size)
    failure = OSError(value, os.strerror(value)) if outcome == _OPEN_FAILED else _not_regular_error()
    return ReadResult(p, None, node_error_message(failure, "open", p), size=size)


# read_regular's outcomes (base/_native.c)
_READ, _STAT_FAILED, _DIRECTORY, _NOT_REGULAR, _TOO_LARGE, _OPEN_FAILED = range(6)


def _not_regular_error() -> OSError:
    return OSError(errno.EINVAL, "not a regular file")


@cache
def _native_read() -> Callable[[str, int], tuple[int, Any, int]] | None:
    """``read_regular`` of ``_native.c``, or ``None`` when the package was built without it or
    ``PI_CONTEXT_NATIVE=0`` (the tests run both)."""
    module = native_module("lsp_server.base._native")
    return None if module is None else cast(Callable[[str, int], tuple[int, Any, int]], module.read_regular)


def read_text_python(p: str, max_bytes: int = MAX_READ_BYTES) -> ReadResult:
    """:func:`read_text` in Python: the same steps and answers as the C version."""
    try:
        st = os.stat(p)
    except OSError as exc:
        return ReadResult(p, None, node_error_message(exc, "stat", p))
    if stat.S_ISDIR(st.st_mode):
        return ReadResult(p, None, node_error_message(IsADirectoryError(errno.EISDIR, ""), "read", p))
    if not stat.S_ISREG(st.st_mode):
        # A FIFO would block the reader forever and a device could be endless: refuse both.
        return ReadResult(p, None, f"not a regular file: '{p}'")
    if st.st_size > max_bytes:
        return ReadResult(
            p, None, f"file is too large to read ({st.st_size} bytes, limit {max_bytes})", size=st.st_size
        )
    try:
        data = _read_bytes(p, st.st_size, max_bytes)
    except OSError as exc:
        return ReadResult(p, None, node_error_message(exc, "open", p), size=st.st_size)
    if len(data) > max_bytes:
        return ReadResult(p, None, f"file is too large to read (over {max_bytes} bytes)", size=len(data))
    text, invalid = decode_like_node(data)
    return ReadResult(p, text, size=len(data), invalid_utf8=invalid)


def _read_bytes(path: str, expected: int, max_bytes: int) -> bytes:
    """At most ``max_bytes + 1`` bytes of ``path``, read with plain ``os.read`` calls.

    Sized by the ``stat`` just taken (plus one byte to see a file that grew), not by ``max_bytes``:
    a buffered ``read(max_bytes + 1)`` sets up a 64 MiB buffer for every small skill file.
    ``O_NONBLOCK``: a FIFO put in the file's place since the ``stat`` does not block the open; on the
    regular file it is checked to be, the flag changes nothing (open(2)), so it stays.
    """
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise _not_regular_error()
        limit = max_bytes + 1
        chunks: list[bytes] = []
        total = 0
        while total < limit:
            chunk = os.read(fd, min(max(expected + 1 - total, 1 << 16), limit - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
    finally:
        os.close(fd)
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def not_regular_message(path: str, mode: int) -> str:
    """Why a path that is not a regular file is not read: it names what the path is."""
    kinds = (
        (stat.S_ISFIFO, "a FIFO (named pipe)"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISDIR, "a directory"),
    )
    kind = next((name for test, name in kinds if test(mode)), "a special file")
    return f"{path}: is {kind}, not a regular file; only regular files are read"


def open_regular(path: str | os.PathLike[str]) -> tuple[BinaryIO, os.stat_result] | str:
    """Open ``path`` for reading only if it is a regular file, else say why not (never blocks).

    ``open()`` on a FIFO waits for a writer and ``/dev/zero`` never ends, so the file is opened
    with ``O_NONBLOCK`` (which returns at once for a FIFO) and checked with ``fstat`` on the very
    descriptor that will be read: no window between the check and the read.
    """
    p = os.fspath(path)
    try:
        fd = os.open(p, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        return node_error_message(exc, "open", p)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            os.close(fd)
            return not_regular_message(p, st.st_mode)
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb"), st
    except OSError as exc:
        os.close(fd)
        return node_error_message(exc, "read", p)


def is_regular_file(path: str | os.PathLike[str]) -> bool:
    """``statSync(path).isFile()`` with symlinks followed; False on any error (loops included)."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def is_directory(path: str | os.PathLike[str]) -> bool:
    try:
        return stat.S_ISDIR(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def exists(path: str | os.PathLike[str]) -> bool:
    """``existsSync``: follows symlinks, so a broken link or a loop does not exist."""
    try:
        os.stat(path)
        return True
    except (OSError, ValueError):
        return False


def list_dir_sorted(path: str | os.PathLike[str]) -> list[os.DirEntry[str]]:
    """Directory entries in Node's ``readdirSync`` order (UTF-8 byte order); [] when unreadable."""
    try:
        with os.scandir(path) as it:
            entries = list(it)
    except OSError:
        return []
    entries.sort(key=lambda e: node_dir_sort_key(e.name))
    return entries


def real_path(path: str | os.PathLike[str]) -> str:
    """``realpathSync`` when it succeeds, else the absolute path (loops and dangling links)."""
    try:
        return os.path.realpath(path, strict=True)
    except (OSError, ValueError):
        return os.path.abspath(path)


def resolve(path: str, base: str | Path) -> str:
    """Node's ``path.resolve(base, path)``: absolute, normalized, no symlink resolution."""
    return os.path.normpath(os.path.join(os.fspath(base), path))
