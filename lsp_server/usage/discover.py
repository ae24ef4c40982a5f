"""Which files a usage report reads: every ``*.jsonl`` under the folders given (Pi's ``sessions/`` by default).

Pi keeps a project's sessions in ``<agentDir>/sessions/--<cwd>--/<time>_<id>.jsonl``; a custom session
folder (``--session-dir``, ``$PI_CODING_AGENT_SESSION_DIR``, ``sessionDir``) holds them flat. So the walk
takes every ``.jsonl`` file below each folder, in byte order of the names (Node's ``readdir`` order,
what Pi's own listing sees), without following symlinked folders (a link to ``/`` or to a parent
would never end), at most :data:`MAX_DEPTH` folders deep and :data:`MAX_FILES` files in all; what the
walk leaves out is said in a note. A path given that is a file is taken as it is.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Final

MAX_DEPTH: Final = 8
MAX_FILES: Final = 200_000


@dataclass
class Discovery:
    """The session files found, in order, and what the walk did not look at."""

    files: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _sorted_entries(folder: str) -> list[os.DirEntry[str]]:
    with os.scandir(folder) as entries:
        return sorted(entries, key=lambda entry: os.fsencode(entry.name))


def discover_sessions(roots: list[str], *, max_depth: int = MAX_DEPTH, max_files: int = MAX_FILES) -> Discovery:
    """Every ``.jsonl`` file under ``roots`` (absolute paths), each once."""
    found = Discovery()
    seen: set[str] = set()

    def add(path: str) -> bool:
        if path in seen:
            return True
        if len(found.files) >= max_files:
            found.notes.append(f"stopped after {max_files:,} session files; the rest of {path}'s folder is not counted")
            return False
        seen.add(path)
        found.files.append(path)
        return True

    for root in roots:
        if os.path.isfile(root):
            if not add(os.path.normpath(root)):
                return found
            continue
        if not os.path.isdir(root):
            found.notes.append(f"{root}: no such folder")
            continue
        stack: list[tuple[str, int]] = [(os.path.normpath(root), 0)]
        while stack:
            folder, depth = stack.pop()
            try:
                entries = _sorted_entries(folder)
            except OSError as exc:
                found.notes.append(f"{folder}: cannot list the folder ({exc.strerror or exc})")
                continue
            below: list[tuple[str, int]] = []
            for entry in entries:
                try:
                    if entry.is_dir(follow_symlinks=False):
                        if depth + 1 > max_depth:
                            found.notes.append(f"{entry.path}: deeper than {max_depth} folders, not read")
                        else:
                            below.append((entry.path, depth + 1))
                    elif entry.name.endswith(".jsonl") and entry.is_file() and not add(entry.path):
                        return found
                except OSError:
                    continue
            stack.extend(reversed(below))
    return found
