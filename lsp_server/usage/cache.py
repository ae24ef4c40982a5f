"""The records of every session file read before, kept on disk so the next run reads only what changed.

Keyed by the file's path, each entry remembers the file's identity (device, inode, size, modification
time), its header, its records and where the read stopped (:class:`~.reading.Resume`). On the next
run a file whose identity is unchanged is not opened at all (one ``stat``); a file that grew is read
from where the last read stopped, after checking that its first 4 KiB and the 64 bytes before that
point are still the same (:func:`~.reading.read_file`); anything else is read whole. So a second run
over an unchanged folder reads no session byte, and a run after Pi appended a turn reads that turn.

The file is one JSON object (``version``, ``limits``, ``files``), written whole to a temporary file
and renamed over the old one, so a crash or a second run writing at the same time leaves one
complete cache or the other, never a mix. A cache that cannot be read (another version, other read
limits, damaged) is ignored with a note and rebuilt. Its default place is
``$XDG_CACHE_HOME/pi-context/usage-v1.json`` (``~/.cache/...`` without the variable); docs/usage.md.
"""

from __future__ import annotations

import base64
import os
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import orjson

from lsp_server.base.gcpause import collector_paused
from lsp_server.session.bounds import DEFAULT_LIMITS, SessionReadLimits
from lsp_server.usage.reading import FileIdentity, FileRead, Resume, read_file
from lsp_server.usage.records import SessionHead, UsageRecord

CACHE_VERSION: Final = 1
CACHE_FILE_NAME: Final = f"usage-v{CACHE_VERSION}.json"


def default_cache_path(env: Mapping[str, str]) -> str:
    """``$XDG_CACHE_HOME/pi-context/usage-v1.json``, else ``~/.cache/pi-context/usage-v1.json``."""
    base = env.get("XDG_CACHE_HOME") or os.path.join(env.get("HOME") or os.path.expanduser("~"), ".cache")
    return os.path.join(base, "pi-context", CACHE_FILE_NAME)


@dataclass
class ScanStats:
    """How each file was had: from the cache untouched, read from where it stopped, or read whole."""

    files: int = 0
    unchanged: int = 0
    appended: int = 0
    loaded: int = 0
    unreadable: int = 0
    bytes_read: int = 0

    def to_json(self) -> dict[str, int]:
        return {
            "files": self.files,
            "unchanged": self.unchanged,
            "appended": self.appended,
            "loaded": self.loaded,
            "unreadable": self.unreadable,
            "bytesRead": self.bytes_read,
        }


@dataclass
class UsageCache:
    """Each file's last read; ``path`` ``None`` keeps it in memory only (the server keeps one per process)."""

    path: str | None = None
    limits: SessionReadLimits = DEFAULT_LIMITS
    reads: dict[str, FileRead] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    dirty: bool = False  # something was read since the cache was loaded or saved

    # --- reading files ---------------------------------------------------------------------------

    def get(self, path: str, stats: ScanStats | None = None) -> FileRead:
        """``path``'s records, reading only what changed since the cache last saw it."""
        stats = stats if stats is not None else ScanStats()
        stats.files += 1
        known = self.reads.get(path)
        try:
            st = os.stat(path)
        except OSError:
            st = None
        if known is not None and st is not None and known.identity == FileIdentity.of(st):
            stats.unchanged += 1
            return known
        resume = known.resume if known is not None else None
        fresh = read_file(path, self.limits, resume=resume, known=known)
        stats.bytes_read += fresh.bytes_read
        self.dirty = True
        if fresh.identity is None:
            stats.unreadable += 1
            self.reads.pop(path, None)
            return fresh
        if fresh.how == "appended":
            stats.appended += 1
        else:
            stats.loaded += 1
        self.reads[path] = fresh
        return fresh

    def scan(self, files: Sequence[str]) -> tuple[dict[str, FileRead], ScanStats]:
        """Every file's records; a cached file that no longer exists is forgotten (and the cache rewritten)."""
        stats = ScanStats()
        found = {path: self.get(path, stats) for path in files}
        gone = [path for path in self.reads if path not in found and not os.path.exists(path)]
        for path in gone:
            del self.reads[path]
            self.dirty = True
        return found, stats

    # --- on disk ---------------------------------------------------------------------------------

    def load(self) -> None:
        """Read the cache file if there is one (a missing file is an empty cache, a bad one a note)."""
        if self.path is None:
            return
        try:
            with open(self.path, "rb") as handle, collector_paused():  # 200,000 rows hold no cycles
                data = orjson.loads(handle.read())
        except FileNotFoundError:
            return
        except (OSError, orjson.JSONDecodeError) as exc:
            self.notes.append(f"{self.path}: the usage cache cannot be read ({exc}); every session is read again")
            return
        try:
            if data.get("version") != CACHE_VERSION or data.get("limits") != _limits_json(self.limits):
                return  # another version or other read limits: rebuilt from the files
            with collector_paused():
                self.reads = {path: _read_from_json(entry) for path, entry in data["files"].items()}
        except (AttributeError, KeyError, TypeError, ValueError, IndexError) as exc:
            self.reads = {}
            self.notes.append(f"{self.path}: the usage cache is damaged ({exc!r}); every session is read again")

    def save(self, keep: Sequence[str] | None = None) -> None:
        """Write the cache (atomically) if anything was read. ``keep``: the files still worth remembering."""
        if self.path is None or (not self.dirty and keep is None and os.path.exists(self.path)):
            return
        reads = self.reads if keep is None else {path: self.reads[path] for path in keep if path in self.reads}
        data = {
            "version": CACHE_VERSION,
            "limits": _limits_json(self.limits),
            "files": {path: _read_to_json(read) for path, read in reads.items() if read.identity is not None},
        }
        folder = os.path.dirname(self.path) or "."
        try:
            os.makedirs(folder, exist_ok=True)
            fd, temporary = tempfile.mkstemp(prefix=".usage-", suffix=".tmp", dir=folder)
            try:
                with os.fdopen(fd, "wb") as handle:
                    handle.write(orjson.dumps(data))
                os.replace(temporary, self.path)
                self.dirty = False
            except BaseException:
                os.unlink(temporary)
                raise
        except OSError as exc:
            self.notes.append(f"{self.path}: the usage cache cannot be written ({exc.strerror or exc})")


def _limits_json(limits: SessionReadLimits) -> list[int]:
    return [limits.max_bytes, limits.max_line_bytes]


def _read_to_json(read: FileRead) -> dict[str, Any]:
    identity = read.identity
    assert identity is not None
    resume = read.resume
    return {
        "identity": [identity.dev, identity.ino, identity.size, identity.mtime_ns],
        "head": read.head.to_row() if read.head is not None else None,
        "records": [record.to_row() for record in read.records],
        "partial": [record.to_row() for record in read.partial],
        "problems": read.problems,
        "error": read.error,
        "resume": None
        if resume is None
        else [resume.offset, resume.next_line, base64.b64encode(resume.mark).decode(), resume.head, resume.head_len],
    }


def _read_from_json(entry: dict[str, Any]) -> FileRead:
    dev, ino, size, mtime_ns = entry["identity"]
    head = entry["head"]
    resume = entry["resume"]
    return FileRead(
        FileIdentity(int(dev), int(ino), int(size), int(mtime_ns)),
        head=SessionHead.from_row(head) if head is not None else None,
        records=[UsageRecord.from_row(row) for row in entry["records"]],
        partial=[UsageRecord.from_row(row) for row in entry["partial"]],
        problems=int(entry["problems"]),
        error=entry["error"],
        resume=None
        if resume is None
        else Resume(int(resume[0]), int(resume[1]), base64.b64decode(resume[2]), str(resume[3]), int(resume[4])),
        how="cached",
    )
