"""A session file followed as it grows: only new complete lines are read and parsed.

Pi appends one whole line per entry while the agent works, so a context view that re-read a
100 MB session on every change would fall behind. :class:`SessionFile` remembers the byte offset
after the last complete line and, on :meth:`SessionFile.refresh`, reads from there only; the work
is proportional to what was appended, not to the file.

Two things can break that assumption, and both are checked cheaply before trusting the offset:
the file was *replaced or rewritten* (another inode, a smaller size, or different bytes in the
first 4 KiB or just before the offset: Pi rewrites the whole file when it migrates a v1/v2
session, and forks create new files), and the *last line is incomplete* (the agent is mid-write,
or the file simply lacks its final newline). A replaced file is reloaded in full. A last line
without a newline is parsed the way Pi parses it and shown *provisionally*: the next refresh takes
it back out and reads it again from its first byte, so a line that was cut mid-write is never
kept half-read, and a complete entry is not hidden because its newline is missing.

Everything a user should hear about (skipped lines, a file that is not a session, a broken tree)
is collected as values; nothing here raises on bad input or a vanished file.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, field
from typing import Any, BinaryIO, Final, Literal

from lsp_server.base.findings import Finding, Range, Severity
from lsp_server.base.fsread import node_error_message, open_regular
from lsp_server.base.gcpause import collector_paused
from lsp_server.js.errors import JsTypeError
from lsp_server.js.values import UNDEFINED
from lsp_server.session.bounds import (
    DEFAULT_LIMITS,
    RawLine,
    SessionReadLimits,
    line_too_long_reason,
    too_large_message,
)
from lsp_server.session.jsonl import (
    NOT_A_SESSION,
    V1_ARRAY_REASON,
    LineProblem,
    Migration,
    NonObject,
    ParsedLines,
    decode_line,
    migrated_array_node,
    parse_line,
    read_chunks,
)
from lsp_server.session.novelty import CODE, NoveltyScan
from lsp_server.session.projection import SessionProjection, build_session_projection
from lsp_server.session.raw import Entry
from lsp_server.session.tree import SessionIndex, TreeView, _Undo, build_tree

HEAD_CHECK_BYTES: Final = 4096  # compared on every refresh: the header lives here
MARK_CHECK_BYTES: Final = 64  # compared just before the resume offset

RefreshKind = Literal["unchanged", "appended", "loaded", "reloaded", "missing", "error"]


@dataclass(frozen=True)
class RefreshResult:
    """What a refresh found: nothing new, appended entries, a (re)load, or a missing file."""

    kind: RefreshKind
    new_entries: int = 0  # entries now in the view that were not there before this refresh
    retracted: int = 0  # provisional entries (last line without newline) taken back and read again
    reason: str | None = None  # why the file was reloaded, or the error


@dataclass
class _Provisional:
    """How to take back the state that a last line without a newline added."""

    entries_len: int
    file_entries_len: int
    problems_len: int
    header: Entry | None
    error: str | None
    migration: Migration | None
    migration_state: tuple[int, Any] | None
    nonobject_leaf: NonObject | None
    undos: list[_Undo] = field(default_factory=list)


class SessionFile:
    """One session file: header, entries (file order), index, problems; kept current by ``refresh``.

    ``entries`` never contains the header. Old sessions are migrated in memory as they are read.
    """

    def __init__(self, path: str | os.PathLike[str], limits: SessionReadLimits = DEFAULT_LIMITS) -> None:
        self.path = os.fspath(path)
        self.limits = limits
        self._reset()

    def _reset(self) -> None:
        self.header: Entry | None = None
        self.header_line = 1  # the header's 1-based line
        self._novelty = NoveltyScan()  # what a newer Pi wrote, kept current as the file grows
        self.error: str | None = None
        self.entries: list[Entry] = []
        self.lines: list[int] = []  # 1-based line of each entry
        self.problems: list[LineProblem] = []
        self.index = SessionIndex()
        self.migration: Migration | None = None
        self.migrated_from: float | None = None
        self._file_entries: list[Any] = []  # Pi's fileEntries (header, objects, kept non-objects), for v1 indices
        self.nonobject_leaf: NonObject | None = None  # Pi's last entry is this line, not an object
        self._identity: tuple[int, int] | None = None
        self._offset = 0  # bytes through the last complete line
        self._next_line = 1
        self._size = -1
        self._mtime_ns = -1
        self._head = b""
        self._mark = b""
        self._provisional: _Provisional | None = None

    # --- public view ----------------------------------------------------------------------------

    @property
    def exists(self) -> bool:
        return self._identity is not None

    @property
    def is_session(self) -> bool:
        return self.header is not None and self.error is None

    @property
    def needs_newline(self) -> bool:
        """The file ends without ``\\n`` (Pi appends one when it opens the session)."""
        return self._provisional is not None

    @property
    def offset(self) -> int:
        """Bytes read for good (through the last complete line)."""
        return self._offset

    @property
    def default_leaf(self) -> Any:
        """The leaf Pi continues from, for :func:`~lsp_server.session.tree.build_path`.

        ``UNDEFINED`` (the last entry), or ``None`` (an empty branch) when Pi's last entry is a line
        holding a number, string, array or ``true``: Pi keeps such a line as an entry, its leaf has
        no id, and the conversation it continues from there holds none of the earlier messages.
        """
        return None if self.nonobject_leaf is not None else UNDEFINED

    @property
    def leaf_id(self) -> Any:
        """Pi's leaf id after loading (``None`` before any entry and for a non-object last entry)."""
        return None if self.nonobject_leaf is not None else self.index.leaf_id

    def projection(self, leaf_id: Any = UNDEFINED) -> SessionProjection:
        """The next request's messages from ``leaf_id`` (default: Pi's leaf, see :attr:`default_leaf`)."""
        if leaf_id is UNDEFINED:
            leaf_id = self.default_leaf
        return build_session_projection(self.entries, leaf_id, self.index.by_id)

    def all_problems(self) -> list[LineProblem]:
        """The skipped and repaired lines, the warning for a non-object last entry if there is one, and what no
        known Pi writes (a newer Pi's session: ``session/newer-pi``, session/novelty.py)."""
        leaf_problem = self.leaf_problem()
        found = [*self.problems, leaf_problem] if leaf_problem is not None else list(self.problems)
        # A migrated session (v1, v2: its header now says 3) is old; what it holds is older, not newer.
        novelty = None
        if self.migrated_from is None:
            novelty = self._novelty.update(self.header, self.entries, self.lines, self.header_line)
        if novelty is not None:
            found.append(LineProblem(novelty.first_line, CODE, novelty.message()))
        return found

    def leaf_problem(self) -> LineProblem | None:
        """The warning for a non-object line that is Pi's last entry (it empties Pi's next context)."""
        leaf = self.nonobject_leaf
        if leaf is None:
            return None
        return LineProblem(
            leaf.line,
            "session/nonobject-leaf",
            "Pi takes this line as the session's last entry, so its leaf has no id: the conversation Pi "
            "continues from here is empty (the next request carries none of the earlier messages)",
        )

    def tree(self) -> TreeView:
        return build_tree(self.entries, self.index.labels)

    def findings(self, include_tree: bool = True) -> list[Finding]:
        """Everything worth telling a user about the file, with 0-based line ranges."""
        found = [problem.to_finding(self.path) for problem in self.all_problems()]
        if self.error is not None:
            found.insert(0, Finding(self.path, Range.file_start(), Severity.ERROR, "session/not-a-session", self.error))
        if include_tree:
            for problem in self.tree().problems:
                line = self.lines[problem.index] - 1
                found.append(Finding(self.path, Range.at(line, 0), Severity.WARNING, problem.code, problem.message))
        return found

    # --- reading ----------------------------------------------------------------------------------

    def refresh(self) -> RefreshResult:
        """Bring the view up to date with the file; O(appended bytes) when the file only grew."""
        opened = open_regular(self.path)
        if isinstance(opened, str):
            had_file = self._identity is not None
            if not os.path.exists(self.path):
                self._reset()
                self.error = f"Session file not found: {self.path}"
                return RefreshResult("missing", reason="the file was deleted" if had_file else None)
            self._reset()
            self.error = opened
            return RefreshResult("error", reason=self.error)
        handle, st = opened
        identity = (st.st_dev, st.st_ino)
        try:
            with handle:
                if st.st_size > self.limits.max_bytes:
                    self._reset()
                    self.error = too_large_message(self.path, st.st_size, self.limits.max_bytes)
                    return RefreshResult("error", reason=self.error)
                if self._identity is None:
                    return self._load(handle, st, "loaded", None)
                reason = self._changed_under_us(handle, identity, st.st_size)
                if reason is not None:
                    return self._load(handle, st, "reloaded", reason)
                if st.st_size == self._size and st.st_mtime_ns == self._mtime_ns:
                    return RefreshResult("unchanged")
                return self._append(handle, st)
        except OSError as exc:
            self._reset()
            self.error = node_error_message(exc, "read", self.path)
            return RefreshResult("error", reason=self.error)

    def _changed_under_us(self, handle: BinaryIO, identity: tuple[int, int], size: int) -> str | None:
        if identity != self._identity:
            return "the file was replaced"
        if size < self._offset:
            return "the file shrank"
        handle.seek(0)
        if handle.read(len(self._head)) != self._head:
            return "the start of the file changed"
        handle.seek(self._offset - len(self._mark))
        if handle.read(len(self._mark)) != self._mark:
            return "the file was rewritten"
        return None

    def _load(self, handle: BinaryIO, st: os.stat_result, kind: RefreshKind, reason: str | None) -> RefreshResult:
        limits = self.limits
        self._reset()
        self.limits = limits
        self._identity = (st.st_dev, st.st_ino)
        handle.seek(0)
        self._read_lines(handle)
        self._remember(handle, st)
        return RefreshResult(kind, len(self.entries), reason=reason)

    def _append(self, handle: BinaryIO, st: os.stat_result) -> RefreshResult:
        retracted = len(self.entries)
        self._take_back_provisional()
        before = len(self.entries)
        retracted -= before
        handle.seek(self._offset)
        self._read_lines(handle)
        self._remember(handle, st)
        return RefreshResult("appended", len(self.entries) - before, retracted)

    def _read_lines(self, handle: BinaryIO) -> None:
        """Parse every complete line from the handle's position, then the last one provisionally.

        The lines of each chunk read are parsed and applied together (orjson, the collector
        paused: :func:`~lsp_server.session.jsonl.read_chunks`); a line over the line limit becomes
        a problem, never a buffer.
        """
        budget = self.limits.max_bytes - self._offset
        max_line = self.limits.max_line_bytes
        with collector_paused():
            for step in read_chunks(handle, max_line, budget, self._next_line, before=self._mark):
                self._apply(step.parsed)
                self._offset += step.consumed
                self._next_line = step.next_line
                self._mark = step.mark
                if step.unfinished is not None:
                    self._read_partial(step.unfinished)

    def _remember(self, handle: BinaryIO, st: os.stat_result) -> None:
        self._size = st.st_size
        self._mtime_ns = st.st_mtime_ns
        handle.seek(0)
        self._head = handle.read(min(HEAD_CHECK_BYTES, self._offset))

    def _read_partial(self, raw: RawLine) -> None:
        """A last line without a newline: apply it so it can be taken back on the next refresh."""
        self._provisional = _Provisional(
            len(self.entries),
            len(self._file_entries),
            len(self.problems),
            self.header,
            self.error,
            self.migration,
            self.migration.snapshot() if self.migration else None,
            self.nonobject_leaf,
        )
        parsed = ParsedLines()
        line = self._next_line
        if raw.data is None:
            reason = line_too_long_reason(raw.length, self.limits.max_line_bytes)
            parsed.problems.append(LineProblem(line, "session/line-too-long", reason, Severity.ERROR))
        else:
            parse_line(decode_line(raw.data, line, parsed.problems), line, parsed, partial=True)
        self._apply(parsed, self._provisional.undos)

    def _take_back_provisional(self) -> None:
        state = self._provisional
        if state is None:
            return
        for undo in reversed(state.undos):
            self.index.undo(undo)
        del self.entries[state.entries_len :]
        del self.lines[state.entries_len :]
        del self._file_entries[state.file_entries_len :]
        del self.problems[state.problems_len :]
        self.header, self.error, self.migration = state.header, state.error, state.migration
        self.nonobject_leaf = state.nonobject_leaf
        if self.migration is not None and state.migration_state is not None:
            self.migration.restore(state.migration_state)
        if self.header is None:
            self.migrated_from = None
        self._provisional = None

    def _apply(self, parsed: ParsedLines, undos: list[_Undo] | None = None) -> None:
        """Add parsed lines in file order: the first must be a header; then migrate and index each entry.

        The non-object lines Pi keeps (``parsed.others``) take their place among Pi's file entries:
        one before the header makes the file no session, and the last one can be Pi's leaf (in a v1
        session an array is migrated into a tree node instead, see :meth:`_apply_other`).
        """
        problems_base = len(self.problems)
        self.problems.extend(parsed.problems)
        others = parsed.others
        next_other = 0
        for position, (entry, line) in enumerate(zip(parsed.entries, parsed.lines, strict=True)):
            while next_other < len(others) and others[next_other].position <= position:
                self._apply_other(others[next_other], problems_base, undos)
                next_other += 1
            if self.error is not None:
                return
            if self.header is None:
                if entry.get("type") != "session" or not isinstance(entry.get("id"), str):
                    self.error = NOT_A_SESSION.format(path=self.path)
                    return
                self.header, self.header_line = entry, line
                self.migration = Migration.for_header(entry)
                if self.migration.needed:
                    self.migrated_from = self.migration.from_version
                self._file_entries.append(entry)
                self._migrate_last(line)
                continue
            self._file_entries.append(entry)
            if not self._migrate_last(line):
                return
            if entry.get("type") == "session":
                continue  # a second header line is not a tree entry (Pi skips it too, leaf unchanged)
            self._add_entry(entry, line, undos)
        for other in others[next_other:]:
            self._apply_other(other, problems_base, undos)

    def _add_entry(self, entry: Entry, line: int, undos: list[_Undo] | None) -> None:
        """A tree entry of Pi's: in file order, indexed, and the leaf until another follows."""
        self.entries.append(entry)
        self.lines.append(line)
        self.nonobject_leaf = None
        undo = self.index.add(entry)
        if undos is not None:
            undos.append(undo)

    def _apply_other(self, other: NonObject, problems_base: int, undos: list[_Undo] | None) -> None:
        """A kept non-object line: no header yet makes the file no session; else it is Pi's entry (and leaf).

        Pi's v1 migration gives an array an id and a parent like any entry, so in a v1 session it is
        a node of the tree (:func:`~lsp_server.session.jsonl.migrated_array_node`) that contributes no
        message (its report says so); in a v2 or v3 session it has no id, and as the last entry it is
        a leaf without one. ``problems_base`` is where the problems of ``other``'s batch begin.
        """
        if self.error is not None:
            return
        if self.header is None:
            self.error = NOT_A_SESSION.format(path=self.path)
            return
        self._file_entries.append(other.value)
        if not self._migrate_last(other.line):
            return
        node = migrated_array_node(self._file_entries[-1])
        if node is None:
            self.nonobject_leaf = other
            return
        self._add_entry(node, other.line, undos)
        at = problems_base + other.problem
        self.problems[at] = dataclasses.replace(self.problems[at], reason=V1_ARRAY_REASON)

    def _migrate_last(self, line: int) -> bool:
        """Migrate the file entry just added; Pi's migration failing on it makes the file unreadable to Pi."""
        if self.migration is None:
            return True
        try:
            self.migration.apply(self._file_entries, len(self._file_entries) - 1)
        except JsTypeError as exc:
            self.error = (
                f"Pi cannot open this session: migrating it from version {self.migration.from_version:g} "
                f"fails on line {line}: {exc}"
            )
            return False
        return True


def load_session(path: str | os.PathLike[str], limits: SessionReadLimits = DEFAULT_LIMITS) -> SessionFile:
    """Read a session file once (the same object can then follow it with ``refresh``)."""
    session = SessionFile(path, limits)
    session.refresh()
    return session
