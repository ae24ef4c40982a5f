"""How far a folder walk goes: depth, folder count, and symlinks that lead back up.

Pi follows symlinked folders when it looks for skills, and so must we, but a repository is
untrusted: a ``skills/disk -> /`` link would send a naive walk over the whole disk (``/proc``
included), a link to its own parent loops, and a tree 1,000 folders deep overflows Python's
recursion. Every walk over user folders (skill discovery, the skill loader, ``check``'s target
search, the server's watcher) carries one :class:`WalkBudget`, which refuses

* a folder whose real path holds the folder being walked (a loop, or a link to ``/``, ``~`` or
  any ancestor): Pi would follow it until the OS says ``ELOOP`` or the path is too long;
* a folder deeper than :data:`MAX_WALK_DEPTH` below the walk's root;
* any folder after :data:`MAX_WALK_DIRS` folders.

``debug eval`` reproduces Pi, so its walks follow loops (``follow_loops``): the kernel ends such a
path after 40 links, below the depth limit, exactly where Pi's walk ends. Each refusal is a
:class:`WalkNote` naming the limit, which the caller turns into a finding or a
diagnostic; docs/limits.md lists the limits.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Final, Literal

MAX_WALK_DEPTH: Final = 64
MAX_WALK_DIRS: Final = 20_000

NoteKind = Literal["loop", "depth", "folders"]


@dataclass(frozen=True)
class WalkNote:
    """A folder the walk did not enter, and why (one sentence that names the limit; the path is apart)."""

    path: str
    kind: NoteKind
    message: str


def _real(path: str) -> str:
    try:
        return os.path.realpath(path)
    except (OSError, ValueError):
        return os.path.abspath(path)


def _within(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


@dataclass
class WalkBudget:
    """One walk's limits and what it refused; :meth:`enter` is asked before each folder."""

    max_depth: int = MAX_WALK_DEPTH
    max_dirs: int = MAX_WALK_DIRS
    follow_loops: bool = False  # Pi's walk (``debug eval``): loops end at the kernel's ELOOP or the depth limit
    dirs: int = 0
    notes: list[WalkNote] = field(default_factory=list)
    _stopped: bool = False

    def enter(self, folder: str, parent: str | None, depth: int, *, is_link: bool | None = None) -> bool:
        """Whether to walk ``folder`` (``depth`` folders below the root, ``parent`` the folder holding it;
        ``is_link``: whether ``folder`` is a symlink, when the caller's listing says so)."""
        if self._stopped:
            return False
        if depth > self.max_depth:
            self.notes.append(
                WalkNote(
                    folder,
                    "depth",
                    f"folder more than {self.max_depth} levels deep (the walk's depth limit); not searched",
                )
            )
            return False
        if not self.follow_loops and parent is not None and (os.path.islink(folder) if is_link is None else is_link):
            target = _real(folder)
            if _within(_real(parent), target):
                self.notes.append(
                    WalkNote(folder, "loop", f"symlink to {target}, a folder that holds it (a loop); not followed")
                )
                return False
        self.dirs += 1
        if self.dirs > self.max_dirs:
            self._stopped = True
            self.notes.append(
                WalkNote(
                    folder,
                    "folders",
                    f"search stopped after {self.max_dirs:,} folders (the walk's folder limit); the rest is skipped",
                )
            )
            return False
        return True
