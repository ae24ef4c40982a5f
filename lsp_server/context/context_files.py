"""AGENTS.md / CLAUDE.md discovery, exactly as Pi's ``loadProjectContextFiles`` (pi-behavior §3).

Pi's rule, in short: in each directory the first candidate (``names.CONTEXT_FILE_CANDIDATES``)
that is a regular file wins; the agent dir's file comes first, then the files of cwd and every
ancestor ordered root-most first and cwd last; a path already taken is not taken twice; and in a
linked worktree nested inside its main repo, the main repo's file of the same name as the
worktree's own is dropped. BOMs are stripped; an unreadable candidate prints a warning and the
next candidate is tried.

Besides Pi's list (``ContextFileDiscovery.files``), the result keeps what an editor wants to show:
for every directory visited, which candidates exist, which one won, which were passed over and
why, read errors, invalid UTF-8, and why a chosen file was left out of the prompt.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from lsp_server.base import fsread
from lsp_server.base.paths import canonicalize_path, paths_equal, resolve_path
from lsp_server.context.git_worktree import NestedWorktree, nested_linked_worktree
from lsp_server.context.model import ContextFile
from lsp_server.js.strings import strip_bom
from lsp_server.vocabulary.pi_files import CONTEXT_FILE_CANDIDATES
from lsp_server.vocabulary.pi_releases import CURRENT, PiRules

Reader = Callable[[str], fsread.ReadResult]

# How a candidate file name fared in one directory.
#   chosen      - the directory's context file
#   outranked   - exists as a file but an earlier candidate won
#   not-a-file  - exists but is a directory, FIFO, socket... (Pi skips it)
#   unreadable  - a regular file that could not be read (Pi warns and tries the next one)
CandidateStatus = Literal["chosen", "outranked", "not-a-file", "unreadable"]

# Why a directory's chosen file is not in the prompt.
ExclusionReason = Literal["duplicate", "worktree-shadowed"]

DirectoryScope = Literal["global", "ancestor"]


@dataclass(frozen=True)
class Candidate:
    """A candidate name that exists in a directory (missing names are not listed)."""

    name: str
    path: str
    status: CandidateStatus
    error: str | None = None  # for "unreadable": Node-style message


@dataclass(frozen=True)
class LoadedContextFile:
    """A context file that was read: Pi's path and BOM-stripped text, plus what a UI needs."""

    path: str
    content: str
    size: int  # bytes on disk (or of the open buffer)
    had_bom: bool
    invalid_utf8: fsread.InvalidUtf8 | None

    def to_context_file(self) -> ContextFile:
        return ContextFile(path=self.path, content=self.content)


@dataclass(frozen=True)
class DirectoryContext:
    """One directory Pi looks in, what it holds and what Pi does with it."""

    directory: str
    scope: DirectoryScope
    candidates: tuple[Candidate, ...]
    chosen: LoadedContextFile | None
    excluded: ExclusionReason | None = None

    @property
    def included(self) -> bool:
        return self.chosen is not None and self.excluded is None


@dataclass(frozen=True)
class ContextFileDiscovery:
    """Pi's context files plus the per-directory detail behind them."""

    files: tuple[ContextFile, ...]  # exactly Pi's list, in prompt order
    loaded: tuple[LoadedContextFile, ...]  # the same files with their details, same order
    directories: tuple[DirectoryContext, ...]  # agent dir first, then root-most ... cwd
    warnings: tuple[str, ...]  # Pi's console warnings ("Warning: Could not read ...")
    worktree: NestedWorktree | None  # set when the nested-worktree rule applies to cwd
    shadowed_path: str | None  # the main repo file the rule drops (real path), if any
    enabled: bool = True  # False when discovery is switched off (--no-context-files)


@dataclass(frozen=True)
class DirectoryChoice:
    """Pi's ``loadContextFileFromDir`` for one directory, with every candidate's fate."""

    directory: str
    candidates: tuple[Candidate, ...]
    chosen: LoadedContextFile | None
    warnings: tuple[str, ...]


def read_warning(path: str, error: str) -> str:
    """Pi's warning for an unreadable candidate (Node prints the error as ``Error: <message>``)."""
    return f"Warning: Could not read {path}: Error: {error}"


def choose_context_file(directory: str, reader: Reader = fsread.read_text) -> DirectoryChoice:
    """The context file of one directory: the first candidate that is a readable regular file.

    ``reader`` lets the language server hand in open buffers (the open buffer is the truth for
    an open file); existence and file type always come from disk, as in Pi.
    """
    candidates: list[Candidate] = []
    warnings: list[str] = []
    chosen: LoadedContextFile | None = None
    for name in CONTEXT_FILE_CANDIDATES:
        path = posixpath.join(directory, name)
        if not fsread.exists(path):
            continue
        if chosen is not None:
            if fsread.is_regular_file(path):
                candidates.append(Candidate(name, path, "outranked"))
            else:
                candidates.append(Candidate(name, path, "not-a-file"))
            continue
        if not fsread.is_regular_file(path):
            candidates.append(Candidate(name, path, "not-a-file"))
            continue
        read = reader(path)
        if read.text is None:
            error = read.error or "unknown error"
            candidates.append(Candidate(name, path, "unreadable", error))
            warnings.append(read_warning(path, error))
            continue
        content = strip_bom(read.text)
        chosen = LoadedContextFile(
            path=path,
            content=content,
            size=read.size,
            had_bom=len(content) != len(read.text),
            invalid_utf8=read.invalid_utf8,
        )
        candidates.append(Candidate(name, path, "chosen"))
    return DirectoryChoice(directory, tuple(candidates), chosen, tuple(warnings))


def _shadowed_main_repo_file(worktree: NestedWorktree | None, reader: Reader) -> tuple[str | None, tuple[str, ...]]:
    """The main repo file a nested worktree's own context file shadows (real path), if any."""
    if worktree is None:
        return None, ()
    own = choose_context_file(worktree.worktree_root, reader)
    if own.chosen is None:
        return None, own.warnings
    return posixpath.join(worktree.main_repo_root, posixpath.basename(own.chosen.path)), own.warnings


def discover_context_files(
    cwd: str,
    agent_dir: str,
    *,
    enabled: bool = True,
    reader: Reader = fsread.read_text,
    rules: PiRules = CURRENT,
) -> ContextFileDiscovery:
    """Pi's ``loadProjectContextFiles(cwd, agentDir)`` with the detail an editor needs.

    ``enabled=False`` is Pi's ``--no-context-files``: nothing is read and the list is empty.
    Never raises: unreadable files, loops and special files become candidate states and warnings.
    Before Pi 1.2.0 (``rules``) a worktree's context file is compared with the shadowed one by its own
    real path, so one that links to the main repo's file is dropped too (docs/pi-versions.md).
    """
    if not enabled:
        return ContextFileDiscovery((), (), (), (), None, None, enabled=False)
    resolved_cwd = resolve_path(cwd)
    resolved_agent_dir = resolve_path(agent_dir)
    warnings: list[str] = []
    directories: list[DirectoryContext] = []
    seen: set[str] = set()

    global_choice = choose_context_file(resolved_agent_dir, reader)
    warnings.extend(global_choice.warnings)
    global_files: list[LoadedContextFile] = []
    if global_choice.chosen is not None:
        global_files.append(global_choice.chosen)
        seen.add(global_choice.chosen.path)
    directories.append(DirectoryContext(resolved_agent_dir, "global", global_choice.candidates, global_choice.chosen))

    worktree = nested_linked_worktree(resolved_cwd)
    shadowed, shadow_warnings = _shadowed_main_repo_file(worktree, reader)
    warnings.extend(shadow_warnings)
    if shadowed is None:
        worktree = None

    ancestors: list[LoadedContextFile] = []
    ancestor_dirs: list[DirectoryContext] = []
    current = resolved_cwd
    while True:
        choice = choose_context_file(current, reader)
        warnings.extend(choice.warnings)
        excluded: ExclusionReason | None = None
        if choice.chosen is not None:
            # The directory's real path is compared, not the file's: a worktree AGENTS.md that
            # links to the main repo's file would otherwise resolve to the shadowed path itself.
            own_real = posixpath.join(canonicalize_path(current), posixpath.basename(choice.chosen.path))
            if rules.lacks("worktree-symlinked-context"):
                own_real = canonicalize_path(choice.chosen.path)
            if shadowed is not None and paths_equal(own_real, shadowed):
                excluded = "worktree-shadowed"
            elif choice.chosen.path in seen:
                excluded = "duplicate"
            else:
                ancestors.insert(0, choice.chosen)
                seen.add(choice.chosen.path)
        ancestor_dirs.insert(0, DirectoryContext(current, "ancestor", choice.candidates, choice.chosen, excluded))
        parent = posixpath.dirname(current)
        if parent == current:
            break
        current = parent

    loaded = (*global_files, *ancestors)
    return ContextFileDiscovery(
        files=tuple(item.to_context_file() for item in loaded),
        loaded=loaded,
        directories=(*directories, *ancestor_dirs),
        warnings=tuple(warnings),
        worktree=worktree,
        shadowed_path=shadowed,
    )


def load_project_context_files(cwd: str, agent_dir: str) -> list[ContextFile]:
    """Just Pi's list: the files (path and BOM-stripped text) in prompt order."""
    return list(discover_context_files(cwd, agent_dir).files)
