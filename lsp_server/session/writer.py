"""The only code that writes to a Pi session file: one complete line appended, or nothing at all.

A session file belongs to Pi; pi-context adds exactly what Pi's own ``SessionManager`` would add
(a ``compaction`` or ``branch_summary`` entry), byte for byte as Pi writes it, and only when that
is safe. The rules, and why:

* **One line, one write.** The entry is serialized with Pi's key order (``JSON.stringify``
  formatting) and appended with a single ``os.write`` on an ``O_APPEND`` descriptor, then
  ``fsync``-ed and read back: a reader (Pi, an editor, our own follower) never sees half an entry.
* **Nothing changed under us.** The entry's parent and ids were computed from what we read. If a
  running agent appended since (size, first or last bytes differ) or the file was replaced,
  writing would fork the history silently (our entry would hang off an old leaf while Pi continues
  from its own); we refuse with a message that says so instead.
* **Advisory lock.** ``flock`` on the file serializes pi-context writers (the CLI and the language
  server). Pi 1.6.0 takes no lock on session files (it locks only ``settings.json``, with
  proper-lockfile), which is why the check above exists.
* **Final newline.** A file whose last line lacks its ``\\n`` is repaired as Pi repairs it on
  load (Pi appends ``\\n``): our write is ``\\n`` + line, still one write. If that last line is not
  valid JSON it may be a line an agent is writing right now, or a crash remnant; we refuse rather
  than glue an entry to it.
* **Old formats.** A v1/v2 session is migrated by Pi (new random ids, file rewritten) the next
  time it opens it; ids we computed on our in-memory migration would dangle, so we refuse.
* **Failure leaves the file as it was.** A short write, a failed ``fsync`` or a read-back that does
  not match truncates the file back to its previous size (we hold the lock and nobody else
  appended, which was just checked), so on any failure the file is byte-identical to before.
* **A write is not interrupted halfway.** ``SIGINT``, ``SIGTERM``, ``SIGHUP`` and ``SIGQUIT`` are
  blocked from the write to the read-back (they arrive after it), ``SIGXFSZ`` is ignored (CPython
  does so at start-up: a file-size limit is then ``EFBIG`` or a short write, undone like any
  failed write), and what cannot be blocked (``SIGKILL``, a crash, a power cut) is undone by the
  next load through the note :mod:`lsp_server.session.write_journal` keeps of the write in flight.

Two writes create whole files instead: :func:`write_new_session_file` (a file that does not exist
yet, ``O_EXCL``) and :func:`replace_session_file` (a complete session renamed over a file that holds
only lines of it), which a chat uses to write back the session Pi holds when its file was deleted or
replaced (:mod:`lsp_server.chat.recovery`), while Pi is idle.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import time
import uuid
from collections.abc import Callable, Container, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from lsp_server.base.fsread import node_error_message
from lsp_server.js.dates import iso_string
from lsp_server.js.strings import js_trim, node_utf8
from lsp_server.js.values import UNDEFINED
from lsp_server.session.bounds import DEFAULT_LIMITS, SessionReadLimits, open_session, too_large_message
from lsp_server.session.jsonl import (
    LineProblem,
    NonObject,
    ParsedLines,
    StreamRead,
    header_problem,
    parse_json,
    parse_stream,
)
from lsp_server.session.raw import CURRENT_SESSION_VERSION, Entry
from lsp_server.session.tree import build_index
from lsp_server.session.write_journal import PendingAppend, forget, has_note, record, recover

try:  # POSIX; elsewhere we write without the advisory lock (the size/bytes check still applies)
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

CHECK_BYTES: Final = 4096  # compared at the start and at the end of the file before writing
LOCK_TIMEOUT_S: Final = 5.0
ID_ATTEMPTS: Final = 100


# --- ids and timestamps ----------------------------------------------------------------------------


def new_entry_id(existing: Container[Any], random_uuid: Callable[[], str] | None = None) -> str:
    """Pi's ``generateId``: the first 8 characters of a random UUID, redrawn on collision (100 tries),
    then a whole UUID."""
    draw = random_uuid or (lambda: str(uuid.uuid4()))
    for _ in range(ID_ATTEMPTS):
        candidate = draw()[:8]
        if candidate not in existing:
            return candidate
    return draw()


def iso_timestamp(ms: int) -> str:
    """``new Date(ms).toISOString()``: UTC with milliseconds and ``Z``, as Pi stamps entries."""
    return iso_string(ms)


def now_ms() -> int:
    return time.time_ns() // 1_000_000


# --- entries in Pi's key order -------------------------------------------------------------------


def _defined(pairs: Sequence[tuple[str, Any]]) -> Entry:
    """An object literal as JSON sees it: keys whose value is ``undefined`` are left out."""
    return {key: value for key, value in pairs if value is not UNDEFINED}


def compaction_entry(
    *,
    entry_id: str,
    parent_id: Any,
    timestamp_ms: int,
    summary: str,
    first_kept_entry_id: Any,
    tokens_before: float,
    details: Any = UNDEFINED,
    usage: Any = UNDEFINED,
    from_hook: Any = UNDEFINED,
    system_message: Mapping[str, Any] | None = None,
) -> Entry:
    """What ``SessionManager.appendCompaction`` writes (Pi 1.6.0).

    ``system_message`` is the replayed current system message at the leaf; Pi stores it with its
    timestamp set to the compaction's time. A "keep nothing" compaction (no first kept id) keeps
    its own id, as in Pi. The agent's manual ``/compact`` passes ``from_hook=False``.
    """
    stored_system: Any = UNDEFINED
    if system_message:
        stored_system = {**system_message, "timestamp": timestamp_ms}
    return _defined(
        [
            ("type", "compaction"),
            ("id", entry_id),
            ("parentId", parent_id),
            ("timestamp", iso_timestamp(timestamp_ms)),
            ("summary", summary),
            ("firstKeptEntryId", entry_id if first_kept_entry_id in (None, UNDEFINED) else first_kept_entry_id),
            ("tokensBefore", tokens_before),
            ("details", details),
            ("usage", usage),
            ("fromHook", from_hook),
            ("systemMessage", stored_system),
        ]
    )


def branch_summary_entry(
    *,
    entry_id: str,
    parent_id: Any,
    timestamp_ms: int,
    from_id: Any,
    summary: str,
    details: Any = UNDEFINED,
    usage: Any = UNDEFINED,
    from_hook: Any = UNDEFINED,
) -> Entry:
    """What ``SessionManager.branchWithSummary`` writes; ``from_id`` is the leaf left (``"root"`` if none)."""
    return _defined(
        [
            ("type", "branch_summary"),
            ("id", entry_id),
            ("parentId", parent_id),
            ("timestamp", iso_timestamp(timestamp_ms)),
            ("fromId", from_id),
            ("summary", summary),
            ("details", details),
            ("usage", usage),
            ("fromHook", from_hook),
        ]
    )


def session_info_entry(*, entry_id: str, parent_id: Any, timestamp_ms: int, name: str) -> Entry:
    """What ``SessionManager.appendSessionInfo`` writes: the name with runs of CR/LF as one space, trimmed."""
    return {
        "type": "session_info",
        "id": entry_id,
        "parentId": parent_id,
        "timestamp": iso_timestamp(timestamp_ms),
        "name": sanitize_session_name(name),
    }


def sanitize_session_name(name: str) -> str:
    """Pi's sanitizing of a session name: ``name.replace(/[\\r\\n]+/g, " ").trim()``."""
    return js_trim(re.sub(r"[\r\n]+", " ", name))


def entry_bytes(entry: Entry) -> bytes:
    """The line Pi's ``appendFileSync(file, JSON.stringify(entry) + "\\n")`` puts on disk."""
    from lsp_server.session.entries import entry_json_line  # the models: only when writing

    return node_utf8(entry_json_line(entry))


# --- reading a session for an append -------------------------------------------------------------


@dataclass(frozen=True)
class FileSnapshot:
    """What the file looked like when we read it: identity, size, first and last bytes."""

    device: int
    inode: int
    size: int
    head: bytes
    tail: bytes
    needs_newline: bool  # the last line has no "\n"; Pi would append one before anything else
    broken_last_line: bool  # ... and it is not valid JSON (being written, or a crash remnant)

    @classmethod
    def read(cls, st: os.stat_result, read: StreamRead) -> FileSnapshot:
        """The snapshot of a file read by :func:`~lsp_server.session.jsonl.parse_stream` (``keep=CHECK_BYTES``)."""
        ends_with_newline = read.size > 0 and read.tail.endswith(b"\n")
        return cls._make(st, read.size, read.head, read.tail, ends_with_newline or not read.size, read.last_line)

    @classmethod
    def _make(
        cls, st: os.stat_result, size: int, head: bytes, tail: bytes, complete: bool, last: bytes | None
    ) -> FileSnapshot:
        broken = False
        if not complete:  # a last line over the line limit (``last`` None) could not be checked: broken too
            broken = last is None or (
                bool(last.strip()) and not isinstance(parse_json(last.decode("utf-8", errors="replace")), dict)
            )
        return cls(st.st_dev, st.st_ino, size, head, tail, not complete, broken)


@dataclass
class SessionForAppend:
    """A session read once, with everything an append needs; ``error`` says why it cannot be used."""

    path: str
    header: Entry | None = None
    entries: list[Entry] = field(default_factory=list)  # without the header, file order
    index: dict[Any, Entry] = field(default_factory=dict)
    problems: list[LineProblem] = field(default_factory=list)
    snapshot: FileSnapshot | None = None
    error: str | None = None
    repaired: str | None = None  # what undoing an interrupted write of ours changed before reading
    nonobject_leaf: NonObject | None = None  # Pi's last entry is this line, which is not an object

    @property
    def leaf_id(self) -> Any:
        """Pi's leaf after loading: the id of the last entry (``None`` for an empty session).

        ``None`` too when Pi's last entry is a line holding a number, string, array or ``true``
        (``nonobject_leaf``): Pi's leaf then has no id and its branch holds no entry.
        """
        if self.nonobject_leaf is not None:
            return None
        return self.entries[-1].get("id") if self.entries else None


def load_for_append(path: str, limits: SessionReadLimits = DEFAULT_LIMITS) -> SessionForAppend:
    """Read ``path`` once (never raises): entries, index, and the snapshot the write will check.

    Only a regular file within ``limits`` is read: a FIFO, ``/dev/zero`` or a file over the size
    limit is an error naming the file (and the limit), never a wait or a ``MemoryError``. The file
    is parsed as it is read, in chunks, so it is never held whole in memory. A write of ours that
    was cut off (``kill -9`` mid-line) is undone first; ``repaired`` says so.
    """
    session = SessionForAppend(path)
    session.repaired = _undo_interrupted_write(path)
    opened = open_session(path, limits)
    if isinstance(opened, str):
        session.error = opened
        return session
    handle, _size = opened
    try:
        with handle:
            st = os.fstat(handle.fileno())
            read = parse_stream(handle, limits, keep=CHECK_BYTES)
    except OSError as exc:
        session.error = node_error_message(exc, "read", path)
        return session
    if read.size > limits.max_bytes:
        session.error = too_large_message(path, read.size, limits.max_bytes)
        return session
    parsed = read.parsed
    session.problems = parsed.problems
    session.snapshot = FileSnapshot.read(st, read)
    first = _first_file_entry(parsed)
    if first is None:
        empty = not read.size
        session.error = f"Session file is empty: {path}" if empty else f"Session file is not a valid pi session: {path}"
        return session
    problem = header_problem([first], path)
    if problem is not None:
        session.error = problem
        return session
    session.header = parsed.entries[0]
    version = session.header.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version < CURRENT_SESSION_VERSION:
        shown = "1" if version is None else str(version)
        session.error = (
            f"{path} is a version {shown} session: Pi rewrites it with new entry ids when it opens it. "
            "Open it in Pi once, then try again."
        )
        return session
    session.entries = [e for e in parsed.entries[1:] if e.get("type") != "session"]
    session.index = build_index(session.entries)
    session.nonobject_leaf = _nonobject_leaf(parsed)
    return session


def _first_file_entry(parsed: ParsedLines) -> Any:
    """Pi's first file entry: the first object, unless a kept non-object line comes before it."""
    if parsed.others and parsed.others[0].position == 0:
        return parsed.others[0].value
    return parsed.entries[0] if parsed.entries else None


def _nonobject_leaf(parsed: ParsedLines) -> NonObject | None:
    """The kept non-object line that is Pi's last entry, if one is (a later header line does not count)."""
    if not parsed.others:
        return None
    last_entry = len(parsed.entries) - 1
    while last_entry >= 0 and parsed.entries[last_entry].get("type") == "session":
        last_entry -= 1
    last = parsed.others[-1]
    return last if last.position > last_entry else None


def _undo_interrupted_write(path: str) -> str | None:
    """Truncate away the partial line of one of our appends that died mid-write (see write_journal)."""
    if not has_note(path):
        return None
    try:
        fd = os.open(path, os.O_RDWR | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None  # not writable now: the note stays, a later run may repair
    try:
        try:
            _lock(fd, path, LOCK_TIMEOUT_S)
        except _Refused:
            return None
        return recover(fd, path)
    finally:
        with contextlib.suppress(OSError):
            os.close(fd)


# --- appending -------------------------------------------------------------------------------------

_DEFERRED_SIGNALS: Final = frozenset(
    getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT") if hasattr(signal, name)
)


@contextlib.contextmanager
def _signals_deferred() -> Any:
    """Hold back the signals that end a process until the write, its check and any undo are done."""
    if not hasattr(signal, "pthread_sigmask"):  # pragma: no cover - Windows
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, _DEFERRED_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


@dataclass(frozen=True)
class AppendResult:
    """An entry that is on disk: where its line starts, its bytes, whether a newline was repaired."""

    path: str
    entry: Entry
    offset: int
    line: bytes
    repaired_newline: bool


@dataclass(frozen=True)
class AppendFailure:
    """Why nothing was written; the file is byte-identical to what it was."""

    path: str
    message: str
    changed_under_us: bool = False


class _Refused(Exception):
    def __init__(self, message: str, changed: bool = False) -> None:
        super().__init__(message)
        self.changed = changed


def _lock(fd: int, path: str, timeout_s: float) -> None:
    if fcntl is None:  # pragma: no cover - Windows
        return
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() >= deadline:
                raise _Refused(
                    f"{path} is locked by another pi-context process (waited {timeout_s:g}s); nothing was written"
                ) from None
            time.sleep(0.05)


def _check_unchanged(fd: int, path: str, snapshot: FileSnapshot) -> None:
    st = os.fstat(fd)
    changed = "; nothing was written (so the history is not forked). Reload the session and try again."
    if (st.st_dev, st.st_ino) != (snapshot.device, snapshot.inode):
        raise _Refused(f"{path} was replaced since it was read{changed}", True)
    if st.st_size != snapshot.size:
        grew = st.st_size > snapshot.size
        what = "grew (an agent appended to it)" if grew else "shrank"
        raise _Refused(f"{path} {what} since it was read: {snapshot.size} -> {st.st_size} bytes{changed}", True)
    if os.pread(fd, len(snapshot.head), 0) != snapshot.head:
        raise _Refused(f"{path} was rewritten since it was read{changed}", True)
    if os.pread(fd, len(snapshot.tail), snapshot.size - len(snapshot.tail)) != snapshot.tail:
        raise _Refused(f"{path} was rewritten since it was read{changed}", True)
    if snapshot.broken_last_line:
        raise _Refused(
            f"the last line of {path} has no newline and is not valid JSON (an agent may be writing it, or a "
            "crash cut it off); nothing was written. Let Pi open the session (it repairs the file) and try again."
        )


def _restore(fd: int, size: int) -> str:
    """Truncate back to ``size``; returns a note when even that failed."""
    try:
        os.ftruncate(fd, size)
        os.fsync(fd)
    except OSError as exc:
        return f" (and restoring the previous size failed: {exc.strerror or exc})"
    return ""


def append_entry(
    path: str,
    entry: Entry,
    snapshot: FileSnapshot,
    *,
    lock_timeout_s: float = LOCK_TIMEOUT_S,
    validate: bool = True,
) -> AppendResult | AppendFailure:
    """Append ``entry`` as one line if the file is still exactly as ``snapshot`` saw it.

    ``validate`` checks the entry against its model first (our own entries always are); replaying
    arbitrary entries the way Pi writes them (the conformance session script) turns it off, since
    Pi itself writes whatever it is given.
    """
    if validate:
        from lsp_server.session.entries import EntryShapeError, parse_entry  # the models: only when writing

        shape = parse_entry(entry)
        if isinstance(shape, EntryShapeError):
            return AppendFailure(path, f"refusing to write a malformed entry: {shape}")
    line = entry_bytes(entry)
    data = (b"\n" if snapshot.needs_newline else b"") + line
    try:
        fd = os.open(path, os.O_RDWR | os.O_APPEND | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        return AppendFailure(path, node_error_message(exc, "open", path))
    try:
        try:
            _lock(fd, path, lock_timeout_s)
            _check_unchanged(fd, path, snapshot)
        except _Refused as refused:
            return AppendFailure(path, str(refused), refused.changed)
        except OSError as exc:
            return AppendFailure(path, f"cannot check {path} before writing: {exc.strerror or exc}")
        journal = record(PendingAppend(path, snapshot.device, snapshot.inode, snapshot.size, data))
        try:
            with _signals_deferred():
                return _write_line(fd, path, entry, data, line, snapshot)
        finally:
            forget(journal)
    finally:
        with contextlib.suppress(OSError):
            os.close(fd)  # closing releases the flock


def _write_line(
    fd: int, path: str, entry: Entry, data: bytes, line: bytes, snapshot: FileSnapshot
) -> AppendResult | AppendFailure:
    """One ``os.write`` of ``data``, ``fsync``, read back; any failure truncates back to the old size."""
    try:
        written = os.write(fd, data)
    except OSError as exc:
        note = _restore(fd, snapshot.size) if _size(fd) != snapshot.size else ""
        return AppendFailure(path, f"writing to {path} failed: {exc.strerror or exc}; nothing was written{note}")
    if written != len(data):
        note = _restore(fd, snapshot.size)
        return AppendFailure(
            path, f"short write to {path} ({written} of {len(data)} bytes); the file was restored{note}"
        )
    try:
        os.fsync(fd)
    except OSError as exc:
        note = _restore(fd, snapshot.size)
        return AppendFailure(path, f"fsync of {path} failed: {exc.strerror or exc}; the file was restored{note}")
    try:
        landed = os.pread(fd, len(data), snapshot.size)
    except OSError as exc:
        landed = f"{exc}".encode()
    if landed != data:
        note = _restore(fd, snapshot.size) if _size(fd) == snapshot.size + len(data) else ""
        return AppendFailure(path, f"the line written to {path} did not read back intact{note}")
    return AppendResult(path, entry, snapshot.size + len(data) - len(line), line, snapshot.needs_newline)


def _size(fd: int) -> int:
    try:
        return os.fstat(fd).st_size
    except OSError:
        return -1


def write_new_session_file(path: str, entries: Sequence[Entry]) -> str | None:
    """Create ``path`` holding ``entries`` (header first), as Pi's first flush does (``"wx"``).

    The file must not exist yet; the lines go out in one write and are fsync-ed. Returns an error
    sentence, or ``None`` on success; a failed write removes the partial file.
    """
    data = b"".join(entry_bytes(entry) for entry in entries)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o644)
    except OSError as exc:
        return node_error_message(exc, "open", path)
    try:
        written = os.write(fd, data)
        if written != len(data):
            raise OSError(f"short write ({written} of {len(data)} bytes)")
        os.fsync(fd)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(path)
        return f"writing {path} failed: {exc.strerror or exc}"
    finally:
        with contextlib.suppress(OSError):
            os.close(fd)
    return None


def replace_session_file(path: str, entries: Sequence[Entry]) -> str | None:
    """Put a complete session (header first) at ``path`` in one step, over what is there.

    Only for a chat's session written back from what Pi holds, when everything at ``path`` is part
    of it (see :mod:`lsp_server.chat.recovery`): the lines go to a new file beside it
    (:func:`write_new_session_file`), which is then renamed over ``path``, so a reader sees the old
    file or the new one, never half of either. Returns an error sentence, or ``None``.
    """
    folder, name = os.path.split(path)
    temporary = os.path.join(folder, f".{name}.{uuid.uuid4().hex[:8]}.tmp")
    error = write_new_session_file(temporary, entries)
    if error is not None:
        return error
    try:
        os.replace(temporary, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        return node_error_message(exc, "rename", path)
    return None


def append_session_name(
    path: str,
    name: str,
    limits: SessionReadLimits = DEFAULT_LIMITS,
    clock: Callable[[], int] = now_ms,
) -> AppendResult | AppendFailure:
    """Name a session no Pi holds as Pi's ``/name`` would: a ``session_info`` entry under the current leaf.

    The name is sanitized as Pi sanitizes it and refused when that leaves nothing (Pi's RPC refuses an
    empty name; an empty ``session_info`` would clear the name instead). The rules of :func:`append_entry`
    apply: nothing is written when the file changed since it was read, or when it is not a current session.
    """
    clean = sanitize_session_name(name)
    if not clean:
        return AppendFailure(path, "Session name cannot be empty")
    session = load_for_append(path, limits)
    if session.error is not None or session.snapshot is None:
        return AppendFailure(path, session.error or f"cannot read {path}")
    entry = session_info_entry(
        entry_id=new_entry_id(session.index), parent_id=session.leaf_id, timestamp_ms=clock(), name=clean
    )
    return append_entry(path, entry, session.snapshot)
