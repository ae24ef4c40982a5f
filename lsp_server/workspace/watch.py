"""Watching the disk for the files Pi reads, including the ones no editor has open.

An agent rewriting AGENTS.md, a ``git checkout``, a skill folder created or deleted: none of
these go through the editor, yet each changes what Pi sends. One ``watchfiles`` watcher (inotify
on Linux) covers every workspace folder plus extra roots such as Pi's agent dir. Its events are

* filtered to the files that matter (``is_relevant``), skipping ``.git``, ``node_modules``,
  ``.venv`` and friends below each root;
* coalesced per path into one final state (``coalesce``): a file written three times and then
  deleted inside the window is one ``deleted``; the final state is read from the disk, so the
  order of the raw events (a set) does not matter;
* completed: a folder that appears is walked for the files in it, whose own events inotify
  may have missed (``expand_new_folders``);
* debounced: a batch is delivered once nothing changed for ``debounce_ms`` (capped, so a file
  appended to without pause still gets through).

The watcher runs in a daemon thread and calls ``on_batch`` there; the server hops to its event
loop before touching any state. Dropping events for files open in the editor (the buffer wins) is
the server's job, done on the loop with ``WatchBatch.without``.
"""

from __future__ import annotations

import logging
import os
import re
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import watchfiles

from lsp_server.base.walk import MAX_WALK_DEPTH, WalkNote
from lsp_server.vocabulary.pi_files import (
    APPEND_SYSTEM_PROMPT_FILE,
    PROJECT_CONFIG_DIR,
    SETTINGS_FILE,
    SKILL_FILE_NAME,
    SYSTEM_PROMPT_FILE,
)
from lsp_server.workspace import inotify

logger = logging.getLogger(__name__)

# Directory names never descended into (below a root; a root may itself live inside one).
IGNORED_DIRS = frozenset(
    {".git", ".hg", ".svn", "node_modules", ".venv", "venv", "__pycache__", ".mypy_cache", ".ruff_cache", ".tox"}
)
MAX_NEW_FOLDER_DIRS = 5000  # folders looked into when a new folder appears (its files' events may be lost)
TRUST_STORE_FILE = "trust.json"  # <agentDir>/trust.json: Pi's per-project trust decisions
SKILLS_DIR_NAME = "skills"

_CONTEXT_FILE = re.compile(r"^(?:AGENTS|CLAUDE)[^/]*\.(?:md|MD)$")
_FIXED_NAMES = frozenset({SYSTEM_PROMPT_FILE, APPEND_SYSTEM_PROMPT_FILE, SKILL_FILE_NAME})


def is_relevant(path: str, root: str | None = None, agent_dirs: Iterable[str] = ()) -> bool:
    """Whether a change to ``path`` can change what Pi loads.

    ``root`` is the watched root containing the path: ignored directories count only below it.
    Paths inside a ``skills`` folder pass even without an extension, since a folder renamed or
    deleted there arrives as one event for the folder itself.
    """
    relative = os.path.relpath(path, root) if root else path
    parts = [part for part in relative.replace("\\", "/").split("/") if part not in ("", ".")]
    if not parts or parts[0] == "..":
        return False
    if any(part in IGNORED_DIRS for part in parts[:-1]) or parts[-1] in IGNORED_DIRS:
        return False
    name = parts[-1]
    if name in _FIXED_NAMES or _CONTEXT_FILE.match(name) or name.endswith(".jsonl"):
        return True
    parent = os.path.dirname(path)
    if name == SETTINGS_FILE and (os.path.basename(parent) == PROJECT_CONFIG_DIR or parent in agent_dirs):
        return True
    if name == TRUST_STORE_FILE and parent in agent_dirs:
        return True
    in_skills = SKILLS_DIR_NAME in parts[:-1] or (root is not None and os.path.basename(root) == SKILLS_DIR_NAME)
    return in_skills and (name.endswith(".md") or "." not in name)


class ContextFileFilter:
    """A ``watchfiles`` filter built on ``is_relevant`` for a set of roots."""

    def __init__(self, roots: Sequence[str], agent_dirs: Iterable[str] = ()) -> None:
        # Longest first, so a nested root (a folder inside another) claims its own paths.
        self._roots = sorted((os.path.normpath(root) for root in roots), key=len, reverse=True)
        self._agent_dirs = frozenset(os.path.normpath(d) for d in agent_dirs)

    def root_of(self, path: str) -> str | None:
        for root in self._roots:
            if path == root or path.startswith(root.rstrip(os.sep) + os.sep):
                return root
        return None

    def relevant(self, path: str) -> bool:
        root = self.root_of(path)
        return root is not None and is_relevant(path, root, self._agent_dirs)

    def __call__(self, change: watchfiles.Change, path: str) -> bool:
        if self.relevant(path):
            return True
        # A new folder may already hold files whose own events were lost (see expand_new_folders).
        return change == watchfiles.Change.added and self._may_hold_files(path) and os.path.isdir(path)

    def _may_hold_files(self, path: str) -> bool:
        root = self.root_of(path)
        if root is None:
            return False
        parts = os.path.relpath(path, root).split(os.sep)
        return not any(part in IGNORED_DIRS for part in parts)


@dataclass(frozen=True)
class WatchBatch:
    """One debounced set of changes: each path in exactly one of the three sets."""

    added: frozenset[str] = field(default_factory=frozenset)
    modified: frozenset[str] = field(default_factory=frozenset)
    deleted: frozenset[str] = field(default_factory=frozenset)

    def __bool__(self) -> bool:
        return bool(self.added or self.modified or self.deleted)

    def paths(self) -> list[str]:
        return sorted(self.added | self.modified | self.deleted)

    def without(self, skip: Callable[[str], bool]) -> WatchBatch:
        """The batch minus the paths ``skip`` accepts (e.g. files open in the editor)."""
        return WatchBatch(
            frozenset(p for p in self.added if not skip(p)),
            frozenset(p for p in self.modified if not skip(p)),
            frozenset(p for p in self.deleted if not skip(p)),
        )

    def to_json(self) -> dict[str, list[str]]:
        return {"added": sorted(self.added), "modified": sorted(self.modified), "deleted": sorted(self.deleted)}


def coalesce(
    raw: Iterable[tuple[watchfiles.Change, str]], exists: Callable[[str], bool] = os.path.lexists
) -> WatchBatch:
    """Reduce raw events to one final state per path, read from the disk now.

    Present now: ``added`` if the batch saw it appear and never disappear, else ``modified``
    (a delete-then-recreate, as editors save, is a modification). Absent now: ``deleted``.
    """
    seen: dict[str, set[watchfiles.Change]] = {}
    for change, path in raw:
        seen.setdefault(os.path.normpath(path), set()).add(change)
    added: set[str] = set()
    modified: set[str] = set()
    deleted: set[str] = set()
    for path, changes in seen.items():
        if not exists(path):
            deleted.add(path)
        elif watchfiles.Change.added in changes and watchfiles.Change.deleted not in changes:
            added.add(path)
        else:
            modified.add(path)
    return WatchBatch(frozenset(added), frozenset(modified), frozenset(deleted))


def expand_new_folders(batch: WatchBatch, relevant: Callable[[str], bool]) -> WatchBatch:
    """Replace each added folder by the relevant files inside it.

    inotify watches a new folder only once it has been told about it, so files written into a
    folder right after creating it (``mkdir -p .pi/skills/x && echo > .pi/skills/x/SKILL.md``, a
    ``git checkout``, a folder moved in) may never produce events of their own. Walking each new
    folder finds them; a file reported both ways is reported once.
    """
    folders = [path for path in batch.added if os.path.isdir(path)]
    if not folders:
        return batch
    found: set[str] = set()
    for folder in folders:
        found.update(p for p in _files_below(folder) if relevant(p) and _representable(p))
    kept = {path for path in batch.added if path not in folders or relevant(path)}
    return WatchBatch(frozenset(kept | (found - batch.modified)), batch.modified, batch.deleted)


_CHANGES: dict[inotify.Kind, watchfiles.Change] = {
    "added": watchfiles.Change.added,
    "modified": watchfiles.Change.modified,
    "deleted": watchfiles.Change.deleted,
}


def _representable(path: str) -> bool:
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _files_below(folder: str) -> Iterator[str]:
    """Files below a new folder: links not followed, ignored folders skipped, depth and count bounded."""
    stack = [(folder, 0)]
    seen = 0
    while stack and seen < MAX_NEW_FOLDER_DIRS:
        current, depth = stack.pop()
        seen += 1
        try:
            with os.scandir(current) as it:
                entries = list(it)
        except OSError:
            continue
        for entry in entries:
            try:
                if entry.is_dir(follow_symlinks=False):
                    if entry.name not in IGNORED_DIRS and depth < MAX_WALK_DEPTH:
                        stack.append((entry.path, depth + 1))
                elif entry.is_file():
                    yield entry.path
            except OSError:
                continue


class WorkspaceWatcher:
    """A background thread delivering ``WatchBatch``es for a fixed set of roots.

    Roots that do not exist are skipped (the agent dir often does not). To change roots or the
    debounce, stop this watcher and start a new one: restarting is cheap (tens of ms).
    """

    # How often the watch loop wakes without changes; the first wake-up marks the watcher ready.
    _TICK_MS = 250

    def __init__(
        self,
        roots: Sequence[str],
        on_batch: Callable[[WatchBatch], None],
        *,
        agent_dirs: Iterable[str] = (),
        debounce_ms: int = 150,
        on_error: Callable[[BaseException], None] | None = None,
        force_polling: bool | None = None,
    ) -> None:
        unique = dict.fromkeys(os.path.normpath(os.path.abspath(root)) for root in roots)
        self.roots = [root for root in unique if os.path.isdir(root)]
        self.skipped_roots = [root for root in unique if root not in self.roots]
        self.debounce_ms = debounce_ms
        self._filter = ContextFileFilter(self.roots, agent_dirs)
        self._on_batch = on_batch
        self._on_error = on_error
        self._force_polling = force_polling
        self._stop = threading.Event()
        self._ready = threading.Event()
        self._thread: threading.Thread | None = None
        self.batches_delivered = 0
        self.notes: list[WalkNote] = []  # folders the watcher's walk did not enter (loops, limits)

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    @property
    def ready(self) -> bool:
        return self._ready.is_set()

    def start(self) -> None:
        if self._thread is not None:
            return
        if not self.roots:
            self._ready.set()
            return
        self._thread = threading.Thread(target=self._run, name="pi-context-watch", daemon=True)
        self._thread.start()

    def wait_ready(self, timeout: float | None = None) -> bool:
        """Block until the OS watches are in place (events after this are not missed)."""
        return self._ready.wait(timeout)

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout)

    def _run(self) -> None:
        if self._force_polling is None and inotify.available():
            self._run_inotify()
        else:
            self._run_watchfiles()

    def _run_inotify(self) -> None:
        """Our own inotify watches (see ``server/inotify.py``): bounded walks, any folder name."""
        step_s = max(self.debounce_ms, 10) / 1000
        limit_s = max(1.6, 10 * step_s)
        watch = inotify.FolderWatch(self._skip_dir)
        try:
            watch.open()
            for root in self.roots:
                watch.add_tree(root, root)
            self._report_notes(watch)
            self._ready.set()
            while not self._stop.is_set():
                if not watch.wait(self._TICK_MS / 1000):
                    continue
                raw: set[tuple[watchfiles.Change, str]] = set()
                started = time.monotonic()
                while True:
                    raw.update(self._changes(watch.read()))
                    if time.monotonic() - started > limit_s or not watch.wait(step_s) or self._stop.is_set():
                        break
                self._report_notes(watch)
                if watch.overflowed:
                    watch.overflowed = False
                    logger.warning("file watcher: the kernel's event queue overflowed; some changes may be missed")
                self._emit(raw)
        except Exception as exc:  # the watcher must never take the server down
            self._stopped_by(exc)
        finally:
            watch.close()
            self._ready.set()

    def _emit(self, raw: Iterable[tuple[watchfiles.Change, str]]) -> None:
        """One debounced set of raw changes from either backend, coalesced, to the server."""
        batch = expand_new_folders(coalesce(raw), self._filter.relevant)
        if batch:
            self.batches_delivered += 1
            self._deliver(batch)

    def _stopped_by(self, exc: Exception) -> None:
        logger.exception("file watcher stopped")
        if self._on_error is not None:
            self._on_error(exc)

    def _skip_dir(self, name: str, root: str) -> bool:
        return name in IGNORED_DIRS

    def _changes(self, events: list[inotify.Event]) -> Iterator[tuple[watchfiles.Change, str]]:
        for event in events:
            change = _CHANGES[event.kind]
            if not _representable(event.path):
                continue  # a name that is not UTF-8 cannot be a URI the editor opens; its files are not Pi's
            if self._filter(change, event.path):
                yield change, event.path

    def _report_notes(self, watch: inotify.FolderWatch) -> None:
        for note in watch.notes:
            logger.warning("file watcher: %s: %s", note.path, note.message)
            self.notes.append(note)
        watch.notes.clear()

    def _run_watchfiles(self) -> None:
        step = max(self.debounce_ms, 10)
        options: dict[str, Any] = {
            "watch_filter": self._filter,
            "stop_event": self._stop,
            "step": step,
            "debounce": max(1600, 10 * step),
            "rust_timeout": self._TICK_MS,
            "yield_on_timeout": True,
            "raise_interrupt": False,
            "ignore_permission_denied": True,
        }
        if self._force_polling is not None:
            options["force_polling"] = self._force_polling
        try:
            for raw in watchfiles.watch(*self.roots, **options):
                self._ready.set()
                if raw:
                    self._emit(raw)
        except Exception as exc:  # the watcher must never take the server down
            self._stopped_by(exc)
        finally:
            self._ready.set()

    def _deliver(self, batch: WatchBatch) -> None:
        try:
            self._on_batch(batch)
        except Exception as exc:  # a failing consumer loses this batch, not the watcher
            logger.exception("file watcher callback failed")
            if self._on_error is not None:
                self._on_error(exc)
