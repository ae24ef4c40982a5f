"""Linux inotify over ctypes: one watch per folder, added by our own bounded walk.

``watchfiles`` watches a root recursively in Rust, and two things a repository can hold break it:
it follows a ``skills/disk -> /`` link into the whole disk (``/proc`` included) before it is
ready, and a folder whose name is not valid UTF-8 ends it with ``WatchfilesRustInternalError``
("Unable to decode path"), after which no edit on disk is noticed. Here the folders to watch come
from :class:`~lsp_server.base.walk.WalkBudget` (no loops, bounded depth and count, the
ignored folders skipped), names stay bytes until Python decodes them with ``surrogateescape``
(so any name is a path), and a folder that appears later is walked and watched the same way.

Only what the watcher needs: ``inotify_init1``, ``inotify_add_watch``, ``read`` of the event
records. ``available()`` is False off Linux (the watcher then uses ``watchfiles``).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import os
import select
import struct
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Final, Literal

from lsp_server.base.walk import WalkBudget, WalkNote

IN_MODIFY: Final = 0x00000002
IN_ATTRIB: Final = 0x00000004
IN_CLOSE_WRITE: Final = 0x00000008
IN_MOVED_FROM: Final = 0x00000040
IN_MOVED_TO: Final = 0x00000080
IN_CREATE: Final = 0x00000100
IN_DELETE: Final = 0x00000200
IN_DELETE_SELF: Final = 0x00000400
IN_MOVE_SELF: Final = 0x00000800
IN_Q_OVERFLOW: Final = 0x00004000
IN_IGNORED: Final = 0x00008000
IN_ONLYDIR: Final = 0x01000000
IN_EXCL_UNLINK: Final = 0x04000000
IN_ISDIR: Final = 0x40000000
IN_NONBLOCK: Final = os.O_NONBLOCK
IN_CLOEXEC: Final = getattr(os, "O_CLOEXEC", 0o2000000)

WATCH_MASK: Final = (
    IN_MODIFY
    | IN_ATTRIB
    | IN_CLOSE_WRITE
    | IN_MOVED_FROM
    | IN_MOVED_TO
    | IN_CREATE
    | IN_DELETE
    | IN_DELETE_SELF
    | IN_MOVE_SELF
    | IN_ONLYDIR
    | IN_EXCL_UNLINK
)
MAX_WATCHES: Final = 20_000  # folders watched in all (each costs ~1 KiB of kernel memory)
_HEADER: Final = struct.Struct("iIII")  # wd, mask, cookie, len

Kind = Literal["added", "modified", "deleted"]


def available() -> bool:
    return sys.platform.startswith("linux") and _libc() is not None


_LIBC: ctypes.CDLL | None = None


def _libc() -> ctypes.CDLL | None:
    global _LIBC
    if _LIBC is None:
        name = ctypes.util.find_library("c")
        try:
            _LIBC = ctypes.CDLL(name or "libc.so.6", use_errno=True)
        except OSError:
            return None
    return _LIBC


@dataclass(frozen=True)
class Event:
    kind: Kind
    path: str
    is_dir: bool


@dataclass
class FolderWatch:
    """The inotify instance and the folders it watches (each with its depth below its root)."""

    skip_dir: Callable[[str, str], bool]  # (folder name, root) -> not walked (ignored folders)
    fd: int = -1
    folders: dict[int, tuple[str, str, int]] = field(default_factory=dict)  # wd -> (path, root, depth)
    watched: dict[str, int] = field(default_factory=dict)  # path -> wd
    notes: list[WalkNote] = field(default_factory=list)
    overflowed: bool = False

    def open(self) -> None:
        libc = _libc()
        if libc is None:
            raise OSError(errno.ENOSYS, "inotify is not available")
        fd = libc.inotify_init1(IN_NONBLOCK | IN_CLOEXEC)
        if fd < 0:
            code = ctypes.get_errno()
            raise OSError(code, f"inotify_init1: {os.strerror(code)}")
        self.fd = fd

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def add_tree(self, folder: str, root: str, depth: int = 0) -> list[str]:
        """Watch ``folder`` and the folders below it (bounded); returns the folders newly watched."""
        budget = WalkBudget(max_depth=max(0, 64 - depth))
        added: list[str] = []
        # (folder, its parent, its level, whether it is a symlink: known from the parent's listing)
        stack: list[tuple[str, str | None, int, bool | None]] = [(folder, None, 0, None)]
        while stack:
            path, parent, level, is_link = stack.pop()
            if path in self.watched or not budget.enter(path, parent, level, is_link=is_link):
                continue
            if not self._add(path, root, depth + level):
                continue
            added.append(path)
            try:
                with os.scandir(path) as it:
                    children = [(entry.name, _is_link(entry)) for entry in it if _is_dir(entry)]
            except OSError:
                continue
            for name, link in children:
                if not self.skip_dir(name, root):
                    stack.append((os.path.join(path, name), path, level + 1, link))
        self.notes.extend(budget.notes)
        return added

    def _add(self, path: str, root: str, depth: int) -> bool:
        if len(self.watched) >= MAX_WATCHES:
            self._note(path, f"not watched: the watcher's limit of {MAX_WATCHES:,} folders is reached")
            return False
        libc = _libc()
        assert libc is not None
        wd = libc.inotify_add_watch(self.fd, os.fsencode(path), WATCH_MASK)
        if wd < 0:
            code = ctypes.get_errno()
            if code == errno.ENOSPC:
                self._note(path, "not watched: the system's inotify watch limit (fs.inotify.max_user_watches)")
            return False
        self.folders[wd] = (path, root, depth)
        self.watched[path] = wd
        return True

    def _note(self, path: str, message: str) -> None:
        if not any(note.message == message for note in self.notes):
            self.notes.append(WalkNote(path, "folders", message))

    def wait(self, timeout_s: float) -> bool:
        if self.fd < 0:
            return False
        ready, _, _ = select.select([self.fd], [], [], timeout_s)
        return bool(ready)

    def read(self) -> list[Event]:
        """Every event queued now, with new folders walked and watched (their events follow)."""
        events: list[Event] = []
        while True:
            try:
                data = os.read(self.fd, 64 * 1024)
            except BlockingIOError:
                return events
            except OSError:
                return events
            if not data:
                return events
            for event in self._decode(data):
                events.append(event)

    def _decode(self, data: bytes) -> Iterator[Event]:
        offset = 0
        while offset + _HEADER.size <= len(data):
            wd, mask, _cookie, length = _HEADER.unpack_from(data, offset)
            offset += _HEADER.size
            raw_name = data[offset : offset + length].rstrip(b"\0")
            offset += length
            if mask & IN_Q_OVERFLOW:
                self.overflowed = True
                continue
            watch = self.folders.get(wd)
            if watch is None:
                continue
            folder, root, depth = watch
            if mask & IN_IGNORED:
                self.folders.pop(wd, None)
                if self.watched.get(folder) == wd:
                    del self.watched[folder]
                continue
            if not raw_name:
                if mask & (IN_DELETE_SELF | IN_MOVE_SELF):
                    yield Event("deleted", folder, True)
                continue
            path = os.path.join(folder, os.fsdecode(raw_name))
            is_dir = bool(mask & IN_ISDIR)
            if mask & (IN_CREATE | IN_MOVED_TO):
                if (is_dir or os.path.isdir(path)) and not self.skip_dir(os.path.basename(path), root):
                    self.add_tree(path, root, depth + 1)
                yield Event("added", path, is_dir)
            elif mask & (IN_DELETE | IN_MOVED_FROM):
                self._forget_below(path)
                yield Event("deleted", path, is_dir)
            elif mask & (IN_MODIFY | IN_CLOSE_WRITE | IN_ATTRIB):
                yield Event("modified", path, is_dir)

    def _forget_below(self, path: str) -> None:
        prefix = path.rstrip("/") + "/"
        for folder in [f for f in self.watched if f == path or f.startswith(prefix)]:
            wd = self.watched.pop(folder)
            self.folders.pop(wd, None)


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


def _is_link(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_symlink()
    except OSError:
        return False
