"""What happens in a workspace, as typed events: the parts that follow the files subscribe to them.

The editor's buffers (opened, changed, saved, closed), the disk (a batch from the watcher), the
workspace folders, pi-context's settings, the end of ``initialized`` (ready) and ``pi.reloadWorkspace``
(reloaded). The open projects, the followed session files and the chats subscribe
(:meth:`Events.subscribe`) and look at the event's type; a subscriber that fails is logged and the
others still run.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class BufferOpened:
    """The editor opened a file: its buffer is now the file's text."""

    path: str

    @property
    def paths(self) -> tuple[str, ...]:
        return (self.path,)


@dataclass(frozen=True)
class BufferChanged:
    """An open buffer changed (not saved yet)."""

    path: str

    @property
    def paths(self) -> tuple[str, ...]:
        return (self.path,)


@dataclass(frozen=True)
class BufferSaved:
    path: str

    @property
    def paths(self) -> tuple[str, ...]:
        return (self.path,)


@dataclass(frozen=True)
class BufferClosed:
    """The editor closed a file: the disk is its text again (unsaved edits are gone)."""

    path: str

    @property
    def paths(self) -> tuple[str, ...]:
        return (self.path,)


@dataclass(frozen=True)
class DiskChanged:
    """Files changed on disk (a watcher batch, or a file the workspace itself wrote, such as Pi's trust store)."""

    paths: tuple[str, ...]


@dataclass(frozen=True)
class FoldersChanged:
    """The workspace folders changed; ``roots`` are the folders now."""

    roots: tuple[str, ...]

    @property
    def paths(self) -> tuple[str, ...]:
        return self.roots


@dataclass(frozen=True)
class SettingsChanged:
    """pi-context's settings changed (``keys``: the fields that did)."""

    keys: frozenset[str]

    @property
    def paths(self) -> tuple[str, ...]:
        return ()


@dataclass(frozen=True)
class Ready:
    """``initialized`` has loaded the settings: the folders' first prompts are built from now on."""

    roots: tuple[str, ...]

    @property
    def paths(self) -> tuple[str, ...]:
        return self.roots


@dataclass(frozen=True)
class Reloaded:
    """``pi.reloadWorkspace``: everything is read again."""

    roots: tuple[str, ...]

    @property
    def paths(self) -> tuple[str, ...]:
        return self.roots


Event = (
    BufferOpened
    | BufferChanged
    | BufferSaved
    | BufferClosed
    | DiskChanged
    | FoldersChanged
    | SettingsChanged
    | Ready
    | Reloaded
)
FILE_WRITES = (BufferSaved, DiskChanged, BufferClosed)  # what changes the text Pi reads from disk
Listener = Callable[[Event], None]


class Events:
    """The workspace's subscribers, told each event in the order they subscribed."""

    def __init__(self, on_failure: Callable[[str, BaseException], None]) -> None:
        self._listeners: list[tuple[str, Listener]] = []
        self._on_failure = on_failure

    def subscribe(self, what: str, listener: Listener) -> None:
        """``what`` names the subscriber in the log when it fails."""
        self._listeners.append((what, listener))

    def emit(self, event: Event) -> None:
        """Tell every subscriber; never raises."""
        for what, listener in list(self._listeners):
            try:
                listener(event)
            except Exception as exc:
                self._on_failure(f"{what} ({type(event).__name__})", exc)
