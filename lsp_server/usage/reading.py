"""Reading one session file's records: the whole file, or only what was appended since the last read.

A file written by Pi 1.x (header ``version: 3``) is read in chunks with the session reader's own
line parser (:func:`lsp_server.session.jsonl.read_chunks`, the one the follower uses): the first kept
line must be a header, every object after it that is not another header is an entry, and each entry
that records a paid request gives a record. Nothing else of the file is kept, so a 500 MB session
costs the records and one chunk of memory. An older file (v1/v2) is loaded with
:func:`lsp_server.session.tail.load_session`, which migrates it in memory the way Pi does (v1 entries
get their ids there); such a file is not extended later (Pi rewrites a file when it migrates it, so
an old file that changes is read again whole).

:class:`Resume` is where the last read stopped: the byte offset after the last complete line, the
line number there, the 64 bytes before the offset and a digest of the file's first 4 KiB. A file
that only grew (same inode, not smaller, the same first bytes and the same bytes before the offset)
is read from the offset: the work is proportional to what Pi appended. Anything else reads the whole
file again. A last line without a newline is parsed (Pi parses it too) but its records are kept apart
(``partial``) and the offset stays before it, so the next read takes it again once it is complete.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from typing import BinaryIO, Final

from lsp_server.base.fsread import node_error_message, open_regular
from lsp_server.base.gcpause import collector_paused
from lsp_server.session.bounds import DEFAULT_LIMITS, TAIL_BYTES, SessionReadLimits, too_large_message
from lsp_server.session.jsonl import (
    NOT_A_SESSION,
    ParsedLines,
    decode_line,
    parse_line,
    read_chunks,
)
from lsp_server.session.raw import CURRENT_SESSION_VERSION
from lsp_server.session.tail import load_session
from lsp_server.usage.records import SessionHead, UsageRecord, record_of

HEAD_BYTES: Final = 4096


def head_digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


@dataclass(frozen=True)
class FileIdentity:
    """What ``stat`` says about a file: enough to know it did not change (same inode, size and mtime)."""

    dev: int
    ino: int
    size: int
    mtime_ns: int

    @classmethod
    def of(cls, st: os.stat_result) -> FileIdentity:
        return cls(st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)

    def same_file(self, other: FileIdentity) -> bool:
        return (self.dev, self.ino) == (other.dev, other.ino)


@dataclass(frozen=True)
class Resume:
    """Where a read stopped: resume from ``offset`` if the file only grew since."""

    offset: int  # bytes through the last complete line
    next_line: int  # the 1-based number of the line at ``offset``
    mark: bytes  # the (up to) 64 bytes before ``offset``
    head: str  # digest of the first min(4096, offset) bytes
    head_len: int


@dataclass
class FileRead:
    """What one read of a session file found."""

    identity: FileIdentity | None
    head: SessionHead | None = None
    records: list[UsageRecord] = field(default_factory=list)  # from complete lines
    partial: list[UsageRecord] = field(default_factory=list)  # from a last line without a newline
    problems: int = 0  # lines skipped or reported
    error: str | None = None  # the file is not a session, or could not be read
    resume: Resume | None = None  # None: the next read starts over (an old version, an error)
    bytes_read: int = 0
    how: str = "loaded"  # "loaded" (whole file) or "appended" (from the resume offset)


class _NeedsMigration(Exception):
    """The header is not version 3: the file is read with the migrating loader instead."""


class _Reader:
    """Applies parsed lines in file order: the header first, then the records of entries."""

    def __init__(self, path: str, out: FileRead, *, have_header: bool) -> None:
        self.path = path
        self.out = out
        self.have_header = have_header

    def apply(self, parsed: ParsedLines, into: list[UsageRecord]) -> None:
        out = self.out
        out.problems += len(parsed.problems)
        first_other = parsed.others[0] if parsed.others else None
        for position, (entry, line) in enumerate(zip(parsed.entries, parsed.lines, strict=True)):
            if out.error is not None:
                return
            if not self.have_header:
                if first_other is not None and first_other.position <= position:
                    out.error = NOT_A_SESSION.format(path=self.path)  # a kept non-object before the header
                    return
                if entry.get("type") != "session" or not isinstance(entry.get("id"), str):
                    out.error = NOT_A_SESSION.format(path=self.path)
                    return
                version = entry.get("version")
                if version != CURRENT_SESSION_VERSION or isinstance(version, bool):
                    raise _NeedsMigration
                out.head = SessionHead.of(entry)
                self.have_header = True
                continue
            if entry.get("type") == "session":
                continue  # a second header is not an entry (Pi skips it)
            record = record_of(entry, line)
            if record is not None:
                into.append(record)
        if not self.have_header and first_other is not None:
            out.error = NOT_A_SESSION.format(path=self.path)


def read_file(
    path: str,
    limits: SessionReadLimits = DEFAULT_LIMITS,
    *,
    resume: Resume | None = None,
    known: FileRead | None = None,
) -> FileRead:
    """The records of ``path``: from ``resume`` when the file only grew since ``known`` was read, else all."""
    opened = open_regular(path)
    if isinstance(opened, str):
        return FileRead(None, error=opened)
    handle, st = opened
    identity = FileIdentity.of(st)
    try:
        with handle:
            if st.st_size > limits.max_bytes:
                return FileRead(identity, error=too_large_message(path, st.st_size, limits.max_bytes))
            if (
                resume is not None
                and known is not None
                and known.identity is not None
                and known.identity.same_file(identity)
                and _only_grew(handle, resume, st.st_size)
            ):
                out = FileRead(identity, head=known.head, records=list(known.records), problems=known.problems)
                out.how = "appended"
                out.bytes_read = resume.head_len + len(resume.mark)  # the checks that it only grew
                handle.seek(resume.offset)
                _read(handle, path, limits, out, start=resume, have_header=True)
                return out
            out = FileRead(identity)
            handle.seek(0)
            try:
                _read(handle, path, limits, out, start=None, have_header=False)
            except _NeedsMigration:
                return _read_migrating(path, limits, identity)
            return out
    except OSError as exc:
        return FileRead(identity, error=node_error_message(exc, "read", path))


def _only_grew(handle: BinaryIO, resume: Resume, size: int) -> bool:
    if size < resume.offset:
        return False
    handle.seek(0)
    if head_digest(handle.read(resume.head_len)) != resume.head:
        return False
    handle.seek(resume.offset - len(resume.mark))
    return handle.read(len(resume.mark)) == resume.mark


def _read(
    handle: BinaryIO, path: str, limits: SessionReadLimits, out: FileRead, *, start: Resume | None, have_header: bool
) -> None:
    offset = start.offset if start is not None else 0
    reader = _Reader(path, out, have_header=have_header)
    next_line = start.next_line if start is not None else 1
    mark = start.mark if start is not None else b""
    head = b""
    with collector_paused():
        for step in read_chunks(handle, limits.max_line_bytes, limits.max_bytes - offset, next_line, before=mark):
            out.bytes_read += len(step.data)
            if len(head) < HEAD_BYTES and offset < HEAD_BYTES:
                head += step.data[: HEAD_BYTES - len(head)]
            reader.apply(step.parsed, out.records)
            if out.error is not None:
                out.records.clear()
                return
            offset += step.consumed
            next_line = step.next_line
            mark = step.mark
            if step.unfinished is not None:
                unfinished = ParsedLines()
                raw = step.unfinished
                if raw.data is None:
                    out.problems += 1  # a last line over the line limit
                else:
                    parse_line(
                        decode_line(raw.data, next_line, unfinished.problems), next_line, unfinished, partial=True
                    )
                    reader.apply(unfinished, out.partial)
    if out.error is None and out.head is None and not reader.have_header:
        out.error = NOT_A_SESSION.format(path=path)
        return
    if start is not None:
        head_len, digest = start.head_len, start.head
        if head_len < HEAD_BYTES and offset > head_len:  # the file was shorter than 4 KiB last time
            handle.seek(0)
            head = handle.read(min(HEAD_BYTES, offset))
            out.bytes_read += len(head)
            head_len, digest = len(head), head_digest(head)
    else:
        head = head[: min(HEAD_BYTES, offset)]
        head_len, digest = len(head), head_digest(head)
    out.resume = Resume(offset, next_line, mark[-TAIL_BYTES:], digest, head_len)


def _read_migrating(path: str, limits: SessionReadLimits, identity: FileIdentity) -> FileRead:
    """An old session: Pi's migration (in memory) gives its entries ids; never extended, always read whole."""
    session = load_session(path, limits)
    out = FileRead(identity, bytes_read=identity.size)
    if session.header is None or session.error is not None:
        out.error = session.error or NOT_A_SESSION.format(path=path)
        return out
    out.head = SessionHead.of(session.header)
    out.problems = len(session.all_problems())
    last = len(session.entries) - 1
    for index, (entry, line) in enumerate(zip(session.entries, session.lines, strict=True)):
        record = record_of(entry, line)
        if record is not None:
            (out.partial if session.needs_newline and index == last else out.records).append(record)
    return out
