"""A note of the append in flight, so a write cut off by ``kill -9`` or a crash is undone next time.

The writer appends a line with one ``os.write``; ordinary failures (a short write, ``ENOSPC``,
``EFBIG``, a failed ``fsync``) are undone on the spot by truncating back. What it cannot undo is
its own death in the middle of a write of more than a page: the kernel may have copied part of
the line when ``SIGKILL`` (or the OOM killer, or a power cut) arrives, leaving a last line with no
newline that is not JSON. Pi skips such a line, but its next ``appendFileSync`` would be glued to
it and lost with it, and our writer refuses to append after it.

So before writing, the writer records here what it is about to write: the file's identity, the
offset the line will start at, and the bytes. After the write (done or undone) the note is
removed. The next load of that session (:func:`recover`) finds a leftover note and compares the
file with it:

* the file holds exactly a prefix of our bytes at the recorded offset and nothing after: the write
  was cut off, so the prefix is truncated away (the file is again what it was before that run);
* it holds all of our bytes: the write completed and only the note survived; nothing to do;
* anything else (replaced, rewritten, someone appended after): the file is not ours to touch; the
  note is dropped and the file left as it is.

Only bytes we recorded as ours are ever removed. The notes live in pi-context's state folder
(``$PI_CONTEXT_STATE_DIR``, else ``$XDG_STATE_HOME/pi-context``, else ``~/.local/state/pi-context``),
not beside the session, so a read-only sessions folder or Pi's session listing never sees them.
When the note cannot be written (no home, a full disk) the append goes ahead without it: the note
only helps undo a crash, and a crash without it leaves the same partial line the next run reports.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import os
from dataclasses import dataclass
from typing import Final

JOURNAL_FOLDER: Final = "pending-appends"


def state_dir() -> str:
    """pi-context's own state folder (not the agent's)."""
    explicit = os.environ.get("PI_CONTEXT_STATE_DIR")
    if explicit:
        return explicit
    xdg = os.environ.get("XDG_STATE_HOME")
    base = xdg if xdg and os.path.isabs(xdg) else os.path.join(os.path.expanduser("~"), ".local", "state")
    return os.path.join(base, "pi-context")


def note_path(session_path: str) -> str:
    """The note for one session file, named by a hash of its real path."""
    real = os.path.realpath(session_path)
    digest = hashlib.sha256(os.fsencode(real)).hexdigest()[:32]
    return os.path.join(state_dir(), JOURNAL_FOLDER, f"{digest}.json")


@dataclass(frozen=True)
class PendingAppend:
    """What the writer is about to append: where, to which file, which bytes."""

    path: str
    device: int
    inode: int
    offset: int
    data: bytes

    def to_json(self) -> str:
        return json.dumps(
            {
                "path": os.path.realpath(self.path),
                "device": self.device,
                "inode": self.inode,
                "offset": self.offset,
                "data": base64.b64encode(self.data).decode("ascii"),
            }
        )

    @classmethod
    def from_json(cls, text: str) -> PendingAppend | None:
        try:
            value = json.loads(text)
            return cls(
                str(value["path"]),
                int(value["device"]),
                int(value["inode"]),
                int(value["offset"]),
                base64.b64decode(value["data"], validate=True),
            )
        except (ValueError, KeyError, TypeError):
            return None


def record(pending: PendingAppend) -> str | None:
    """Write the note durably (temporary file, ``fsync``, rename); its path, or ``None`` if it could not be."""
    target = note_path(pending.path)
    temporary = f"{target}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(target), mode=0o700, exist_ok=True)
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_CLOEXEC", 0), 0o600)
        try:
            payload = pending.to_json().encode("ascii")
            if os.write(fd, payload) != len(payload):
                raise OSError("short write")
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temporary, target)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        return None
    return target


def forget(note: str | None) -> None:
    if note is not None:
        with contextlib.suppress(OSError):
            os.unlink(note)


def _read_note(session_path: str) -> tuple[str, PendingAppend | None] | None:
    note = note_path(session_path)
    try:
        with open(note, encoding="ascii", errors="replace") as handle:
            text = handle.read(64 * 1024 * 1024)
    except OSError:
        return None
    return note, PendingAppend.from_json(text)


def recover(fd: int, session_path: str) -> str | None:
    """Undo a cut-off append recorded for ``session_path`` (``fd`` open read-write, locked by the caller).

    Returns a sentence for the user when bytes were removed, else ``None``. Never raises for the
    file's content; an ``OSError`` from truncating is returned as a sentence too.
    """
    found = _read_note(session_path)
    if found is None:
        return None
    note, pending = found
    keep_note = False
    try:
        if pending is None:
            return None
        st = os.fstat(fd)
        if (st.st_dev, st.st_ino) != (pending.device, pending.inode):
            return None
        extra = st.st_size - pending.offset
        if extra <= 0 or extra >= len(pending.data):
            return None  # nothing of ours landed, or all of it did
        if os.pread(fd, extra, pending.offset) != pending.data[:extra]:
            return None  # not our bytes: leave the file alone
        try:
            os.ftruncate(fd, pending.offset)
            os.fsync(fd)
        except OSError as exc:
            keep_note = True  # a later run may be allowed to
            return (
                f"{session_path} ends with {extra} bytes of an interrupted pi-context write, which could not be "
                f"removed: {exc.strerror or exc}"
            )
        return (
            f"removed the incomplete last line ({extra} of {len(pending.data)} bytes) that an interrupted "
            f"pi-context write left in {session_path}; the file is as it was before that write"
        )
    except OSError:
        return None
    finally:
        if not keep_note:
            forget(note)


def has_note(session_path: str) -> bool:
    """Cheap test before opening the session read-write: is there a note for it at all?"""
    try:
        return os.path.exists(note_path(session_path))
    except (OSError, ValueError):
        return False
