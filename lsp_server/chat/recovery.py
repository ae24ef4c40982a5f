"""A chat's session file deleted or replaced under it: noticing it, and writing Pi's session back.

Pi keeps its whole session in memory and writes the file only by appending
(``appendFileSync(path, line)``) once the first lines are out. So when the file is deleted under a
live chat, Pi's next entry creates a new file holding that one line and no header (a file no reader
takes for a session), and when the file is replaced (another file renamed over it, or its bytes
rewritten), Pi's next entries land after content Pi never read, their parents missing from it.

The server follows the file (:class:`FileMark`: identity, size, first bytes and the bytes just
before the size it last saw, compared on every change on disk and after each event after which Pi
has written), so it notices both at once. The session is then written back from what Pi holds
(``get_entries``: every entry of every branch, in file order, with the header the server read when
the file appeared), by :func:`write_back`, while Pi is idle and the chat's commands wait, and Pi is
told to open it (``switch_session``). Nothing of the session is lost, and pi-context never writes
to a file Pi is appending to:

* the file is missing: the session is written at its path (a new file, ``O_EXCL``);
* every line at the path is the session's header or an entry Pi holds (the file Pi started after a
  deletion, an older copy of the session put back): the complete session replaces it (written
  next to it, then renamed over it), a superset of what was there;
* anything else (somebody else's file): it is left as it is, and the session is written to a new
  file beside it (``<name>.restored.jsonl``), which the chat continues in.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, BinaryIO, Final, Literal, TypeVar

from lsp_server.base.fsread import open_regular
from lsp_server.session.writer import iso_timestamp, now_ms, replace_session_file, write_new_session_file

HEAD_BYTES: Final = 4096  # compared from the start of the file (the header lives here)
MARK_BYTES: Final = 64  # compared just before the size last seen
MAX_HEADER_BYTES: Final = 1024 * 1024
MAX_COMPARE_BYTES: Final = 512 * 1024 * 1024  # Pi's own read limit; a bigger file is not compared line by line

T = TypeVar("T")
Change = Literal["same", "appended", "appeared", "deleted", "replaced"]
RestoreKind = Literal["written", "rewritten", "beside"]


@dataclass(frozen=True)
class FileMark:
    """What the session file looked like the last time the server saw it."""

    device: int
    inode: int
    size: int
    head: bytes  # the first HEAD_BYTES bytes (fewer in a small file)
    mark: bytes  # the MARK_BYTES bytes before ``size``


def _reading(path: str, read: Callable[[BinaryIO, os.stat_result], T]) -> T | None:
    """``read`` on the regular file at ``path`` (opened without blocking), or ``None`` when there is none."""
    opened = open_regular(path)
    if isinstance(opened, str):
        return None
    handle, st = opened
    with handle:
        return read(handle, st)


def read_mark(path: str) -> FileMark | None:
    """The file's mark now, or ``None`` when there is no regular file at ``path``."""

    def mark_of(handle: BinaryIO, st: os.stat_result) -> FileMark:
        head = handle.read(HEAD_BYTES)
        start = max(0, st.st_size - MARK_BYTES)
        handle.seek(start)
        return FileMark(st.st_dev, st.st_ino, st.st_size, head, handle.read(st.st_size - start))

    return _reading(path, mark_of)


def _bytes_at(path: str, offset: int, length: int) -> bytes | None:
    def at(handle: BinaryIO, _: os.stat_result) -> bytes:
        handle.seek(offset)
        return handle.read(length)

    return _reading(path, at)


def compare(before: FileMark | None, path: str) -> tuple[Change, FileMark | None, str]:
    """How the file changed since ``before``: the change, the new mark, and a reason for a replacement.

    An append keeps the identity, the first bytes and the bytes before the old size; anything else
    that moved is a replacement. (A rewrite that keeps those bytes and the size is not seen: the
    whole file is not compared on every append.)
    """
    now = read_mark(path)
    if now is None:
        return ("deleted" if before is not None else "same"), None, "the file is gone"
    if before is None:
        return "appeared", now, ""
    if (now.device, now.inode) != (before.device, before.inode):
        return "replaced", now, "another file now has its name"
    if now.size < before.size:
        return "replaced", now, f"it shrank from {before.size:,} to {now.size:,} bytes"
    if now.head[: len(before.head)] != before.head:
        return "replaced", now, "its first lines changed"
    start = before.size - len(before.mark)
    if before.mark and _bytes_at(path, start, len(before.mark)) != before.mark:
        return "replaced", now, "lines it had were rewritten"
    return ("appended" if now.size > before.size else "same"), now, ""


def _first_line_of(path: str) -> bytes | None:
    return _reading(path, lambda handle, _: handle.readline(MAX_HEADER_BYTES))


def read_header_line(path: str) -> dict[str, Any] | None:
    """The session header (the first line) of the file at ``path``, if it is one."""
    first = _first_line_of(path)
    if first is None:
        return None
    try:
        value = json.loads(first)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) and value.get("type") == "session" else None


def _first_line(path: str) -> bytes | None:
    """The file's first line with its newline, or None while it has none yet (or the file is unreadable)."""
    first = _first_line_of(path)
    return first if first is not None and (first.endswith(b"\n") or len(first) >= MAX_HEADER_BYTES) else None


def fallback_header(session_id: Any, cwd: str, parent: str | None = None) -> dict[str, Any]:
    """A header in Pi's key order, for a session whose header the server never read."""
    header: dict[str, Any] = {
        "type": "session",
        "version": 3,
        "id": session_id if isinstance(session_id, str) and session_id else "restored",
        "timestamp": iso_timestamp(now_ms()),
        "cwd": cwd,
    }
    if parent is not None:
        header["parentSession"] = parent
    return header


@dataclass(frozen=True)
class Restored:
    """Where the session was written back, and how."""

    path: str
    kind: RestoreKind
    entries: int
    foreign_lines: int = 0  # lines of the file left in place that are not this session's
    unreadable: str | None = None  # why the file in place could not be compared (then it is left as it is)

    def sentence(self, original: str) -> str:
        if self.kind == "written":
            return f"pi-context wrote the session Pi holds ({self.entries} entries) back to {self.path}"
        if self.kind == "rewritten":
            return (
                f"everything in {original} was part of this session, so pi-context wrote the complete session Pi "
                f"holds ({self.entries} entries) over it"
            )
        if self.unreadable is not None:
            return (
                f"{original} could not be compared with this chat's session ({self.unreadable}), so it is left as it "
                f"is; pi-context wrote the session Pi holds ({self.entries} entries) to {self.path}"
            )
        return (
            f"{original} holds {self.foreign_lines} line(s) that are not from this chat, so it is left as it is; "
            f"pi-context wrote the session Pi holds ({self.entries} entries) to {self.path}"
        )


def _lines_of(path: str) -> list[bytes] | str:
    opened = open_regular(path)
    if isinstance(opened, str):
        return opened
    handle, st = opened
    with handle:
        if st.st_size > MAX_COMPARE_BYTES:
            return f"{path} is too large to compare ({st.st_size:,} bytes)"
        return [line for line in handle.read().split(b"\n") if line.strip()]


def _foreign_lines(lines: Sequence[bytes], header: Mapping[str, Any], entries: Sequence[Mapping[str, Any]]) -> int:
    """How many lines are neither the session's header nor an entry Pi holds (equal as JSON values)."""
    by_id = {entry.get("id"): entry for entry in entries}
    foreign = 0
    for line in lines:
        try:
            value = json.loads(line)
        except (ValueError, RecursionError):
            foreign += 1
            continue
        if not isinstance(value, dict):
            foreign += 1
        elif value.get("type") == "session":
            foreign += value != header
        elif by_id.get(value.get("id")) != value:
            foreign += 1
    return foreign


def beside(path: str) -> str:
    """A free name next to ``path``: ``<name>.restored.jsonl``, then ``.restored-2.jsonl``, ..."""
    stem = path[: -len(".jsonl")] if path.endswith(".jsonl") else path
    candidate, number = f"{stem}.restored.jsonl", 1
    while os.path.lexists(candidate):
        number += 1
        candidate = f"{stem}.restored-{number}.jsonl"
    return candidate


def write_back(path: str, header: Mapping[str, Any], entries: Sequence[Mapping[str, Any]]) -> Restored | str:
    """Write the session Pi holds (``header`` + ``entries``) where nothing is lost; an error sentence on failure.

    Pi must be idle and get no command until it has opened the result (``switch_session``).
    """
    lines = [dict(header), *(dict(entry) for entry in entries)]
    if not os.path.lexists(path):
        error = write_new_session_file(path, lines)
        return error if error is not None else Restored(path, "written", len(entries))
    found = _lines_of(path)
    unreadable = found if isinstance(found, str) else None
    foreign = 0 if isinstance(found, str) else _foreign_lines(found, header, entries)
    if unreadable is None and foreign == 0:
        error = replace_session_file(path, lines)
        return error if error is not None else Restored(path, "rewritten", len(entries))
    target = beside(path)
    error = write_new_session_file(target, lines)
    return error if error is not None else Restored(target, "beside", len(entries), foreign, unreadable)


@dataclass(frozen=True)
class Loss:
    """The chat's session file went: deleted, or replaced (with why)."""

    path: str
    change: Literal["deleted", "replaced"]
    reason: str


class SessionGuard:
    """Follows one chat's session file and remembers what is needed to write it back.

    ``check()`` after Pi writes or the disk changes; a :class:`Loss` is answered once, and the
    guard then waits (``lost``) until the session has been written back (``follow``).
    """

    def __init__(self, path: str | None, session_id: str | None = None) -> None:
        self.path: str | None = None
        self.session_id = session_id  # the header's ``id`` Pi writes (get_state's ``sessionId``), if known
        self.mark: FileMark | None = None
        self.header: dict[str, Any] | None = None
        self.lost: Loss | None = None
        self.follow(path)

    def follow(self, path: str | None, session_id: str | None = None) -> None:
        """Start over on ``path`` (a new chat, a fork, the session written back)."""
        self.path, self.lost = path, None
        if session_id is not None:
            self.session_id = session_id
        self.mark = read_mark(path) if path is not None else None
        self.header = read_header_line(path) if self.mark is not None and path is not None else None

    def check(self) -> Loss | None:
        """Compare the file with what was last seen; a loss is reported the first time only."""
        if self.path is None or self.lost is not None:
            return None
        change, mark, reason = compare(self.mark, self.path)
        if change == "appeared":
            # First seen now: Pi's file only if it opens with this session's header. A file put in its
            # place before the first look (within one event burst of Pi's first write) is not taken for it.
            verdict = self._appeared()
            if verdict is None:
                return None  # its first line is still being written: look again at the next change
            if verdict:
                change, reason = "replaced", verdict
        if change in ("deleted", "replaced"):
            self.lost = Loss(self.path, "deleted" if change == "deleted" else "replaced", reason)
            return self.lost
        self.mark = mark
        if self.header is None and mark is not None:
            self.header = read_header_line(self.path)
        return None

    def _appeared(self) -> str | None:
        """Why the file that appeared is not this session's ('' when it is; None: its first line is unfinished)."""
        assert self.path is not None
        first = _first_line(self.path)
        if first is None:
            return None
        header = read_header_line(self.path)
        if header is None:
            return "another file now has its name (its first line is not a session header)"
        if self.session_id is not None and header.get("id") != self.session_id:
            return f"another file now has its name (it holds session {header.get('id')!r}, not {self.session_id!r})"
        return ""
