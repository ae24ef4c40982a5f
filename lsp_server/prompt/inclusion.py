"""Whether a file's text is in Pi's prompt, when, and why: the one answer every sentence about it comes from.

A finding that says "it is sent with every request", a hover that says "Pi takes this file" and the
code lens that says "project_context #2 of 3" must never disagree with ``pi-context prompt``. So
none of them decides for itself: each asks :class:`Inclusions`, which answers from the very
resolution that builds the prompt (:func:`~lsp_server.context.context_files.discover_context_files`
for the project's cwd and agent dir, and Pi's per-folder rule
:func:`~lsp_server.context.context_files.choose_context_file` for a folder off that chain).

Pi 1.6.0's rule for context files (``loadProjectContextFiles``; checked with the oracle, and with
links, in ``tests/prompt/test_inclusion.py``):

* one file per folder: the first of ``AGENTS.override.md``, ``AGENTS.md``, ``AGENTS.MD``,
  ``CLAUDE.md``, ``CLAUDE.MD`` that exists (links followed) and is a readable regular file. A
  ``CLAUDE.md`` beside an ``AGENTS.md`` is never read, whether it is a copy or a link to it;
  the names are compared as spelled (on a case-insensitive disk ``AGENTS.md`` and ``AGENTS.MD``
  are one file, and Pi takes it under the first spelling);
* the folders are the agent dir and the cwd with all its parents, nothing else: an
  ``AGENTS.md`` below the cwd (a package, a skill's folder) is sent only when Pi is started in
  that folder or below it;
* a path already taken is not taken again, but paths are compared as written: a folder's
  ``AGENTS.md`` that links to its parent's file is sent twice when Pi starts there.

A skill's name and description are in the skills listing of every request (unless
``disable-model-invocation`` hides it); the rest of SKILL.md is read by the model only when the
skill is used. SYSTEM.md and APPEND_SYSTEM.md are the start of every request where Pi reads them.

The clauses (``Pi sends it with every request``, ...) are the words findings put in their
``{when}`` slot; :meth:`ContextInclusion.reason` is the code lens's "not loaded: ..." text.
"""

from __future__ import annotations

import os
import posixpath
from dataclasses import dataclass, field
from typing import Literal

from lsp_server.base import fsread
from lsp_server.base.paths import is_path_within, resolve_path
from lsp_server.context.context_files import (
    ContextFileDiscovery,
    DirectoryContext,
    LoadedContextFile,
    choose_context_file,
    discover_context_files,
)
from lsp_server.vocabulary.pi_files import APPEND_SYSTEM_PROMPT_FILE, PROJECT_CONFIG_DIR, SKILL_FILE_NAME

InclusionKind = Literal[
    "every-request",  # in Pi's list of context files for this cwd
    "started-there",  # its folder's file, in a folder that is not the cwd or one of its parents (sent from there)
    "shadowed",  # another candidate of the same folder is taken instead
    "same-file",  # the folder's file under another name (a link to it, or a case alias)
    "worktree-shadowed",  # the main repo's file, replaced by a nested worktree's own
    "not-a-file",  # a directory, FIFO, dangling link ... with a candidate name
    "unreadable",  # a regular file Pi cannot read (it tries the next name)
    "absent",  # nothing on disk under this path yet (an unsaved buffer)
    "switched-off",  # context files are switched off (Pi's --no-context-files)
]

EVERY_REQUEST = "Pi sends it with every request"
SKILL_LISTING = "Pi sends it with every request (the skill's name and description are in the skills listing)"
SKILL_HIDDEN = (
    "Pi sends it only when the skill is invoked as /skill:{name} (disable-model-invocation keeps the skill "
    "out of the listing)"
)
SKILL_USE = "Pi sends it only when the skill is used"

# How many folders above a context file are looked at for the SKILL.md of a skill folder holding it.
MAX_SKILL_FOLDER_DEPTH = 64


def probe_reader(path: str) -> fsread.ReadResult:
    """Whether the prompt's reader would read ``path``: decides the per-folder choice without the text.

    A placement needs which candidate wins, and the winner is the first one that is a regular file
    and can be read; its text does not matter. So the file is opened and one byte read (a file that
    opens but cannot be read, such as ``/proc/self/mem``, fails there, as Pi's read does), with
    :func:`fsread.read_text`'s size limit: a 30 MB AGENTS.md costs one ``open`` and one ``read``.
    """
    opened = fsread.open_regular(path)
    if isinstance(opened, str):
        return fsread.ReadResult(path, None, opened)
    handle, stat = opened
    with handle:
        if stat.st_size > fsread.MAX_READ_BYTES:
            error = f"file is too large to read ({stat.st_size} bytes, limit {fsread.MAX_READ_BYTES})"
            return fsread.ReadResult(path, None, error, size=stat.st_size)
        try:
            handle.read(1)
        except OSError as exc:
            return fsread.ReadResult(path, None, fsread.node_error_message(exc, "read", path), size=stat.st_size)
    return fsread.ReadResult(path, "", None, stat.st_size)


@dataclass(frozen=True)
class ContextInclusion:
    """One context file's place: in the prompt for this cwd, sent from elsewhere, or never, and why."""

    path: str
    kind: InclusionKind
    cwd: str
    winner: str | None = None  # the folder's file when it is not this one
    position: int | None = None  # every-request: 1-based among Pi's context files
    count: int | None = None
    skill_folder: str | None = None  # started-there: the skill folder (with a SKILL.md) that holds it
    also_as: str | None = None  # every-request: another path of Pi's list that is this same file
    error: str | None = None  # unreadable: the read error

    @property
    def sent(self) -> bool:
        """In the prompt Pi builds for this cwd."""
        return self.kind == "every-request"

    @property
    def folder_file(self) -> bool:
        """The file Pi takes for its folder: its text is what Pi sends when started there (cost rules apply)."""
        return self.kind in ("every-request", "started-there", "worktree-shadowed")

    @property
    def folder(self) -> str:
        return posixpath.dirname(self.path)

    def where(self, path: str) -> str:
        """``path`` as a sentence names it: relative to the cwd when below it, else absolute."""
        if is_path_within(self.cwd, path) and path != self.cwd:
            return posixpath.relpath(path, self.cwd)
        return path

    def clause(self) -> str:
        """What Pi does with this file's text, as the ``{when}`` of a finding (no final period)."""
        if self.kind == "every-request":
            if self.also_as is not None:
                return f"{EVERY_REQUEST}, twice: it is the same file as {self.where(self.also_as)}, which Pi also sends"
            return EVERY_REQUEST
        if self.kind == "started-there":
            text = (
                f"Pi sends it with every request only when started in {self.where(self.folder)} or below "
                "(it is not in the cwd or a parent of it)"
            )
            if self.skill_folder is not None:
                text += "; using the skill does not send it"
            return text
        if self.kind == "shadowed":
            return f"Pi does not send it: {posixpath.basename(self.winner or '')} in the same folder is used instead"
        return f"Pi does not send it: {self.reason()}"

    def reason(self) -> str:
        """Why it is not in this cwd's prompt (the code lens's "not loaded: ..."); the clause for one that is."""
        winner = posixpath.basename(self.winner) if self.winner is not None else "another file"
        if self.kind == "every-request":
            return EVERY_REQUEST
        if self.kind == "started-there":
            return (
                "Pi reads context files only from the cwd, its parent folders and the agent dir; it is sent when Pi "
                f"starts in {self.where(self.folder)} or below"
            )
        if self.kind == "shadowed":
            return f"shadowed by {winner}"
        if self.kind == "same-file":
            return f"it is the same file as {winner}, which Pi takes for this folder"
        if self.kind == "worktree-shadowed":
            return f"shadowed by the worktree's own {posixpath.basename(self.path)}"
        if self.kind == "not-a-file":
            return "not a regular file"
        if self.kind == "unreadable":
            return f"Pi cannot read it ({self.error or 'unknown error'})"
        if self.kind == "absent":
            return "the file does not exist on disk yet"
        return "context files are switched off"


@dataclass
class Inclusions:
    """The answers for one project (cwd, agent dir): built once per check, each folder looked at once.

    ``discovery`` is the prompt's own (a project snapshot's ``resources.context``) when the caller
    has one; otherwise it is made here with :func:`probe_reader`, which decides the same files.
    """

    cwd: str
    agent_dir: str
    enabled: bool = True
    discovery: ContextFileDiscovery | None = None
    _folders: dict[str, DirectoryContext] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.cwd = resolve_path(self.cwd)
        self.agent_dir = resolve_path(self.agent_dir)

    @classmethod
    def own_folder(cls, folder: str) -> Inclusions:
        """Without a project: ``folder`` stands for the cwd (and the agent dir), as if Pi started there."""
        return cls(folder, folder)

    def _discovery(self) -> ContextFileDiscovery:
        if self.discovery is None:
            self.discovery = discover_context_files(self.cwd, self.agent_dir, enabled=self.enabled, reader=probe_reader)
        if not self._folders:
            for directory in self.discovery.directories:
                self._folders.setdefault(directory.directory, directory)
        return self.discovery

    def _folder(self, folder: str) -> DirectoryContext:
        """Pi's choice in a folder: from the prompt's discovery when it visited it, else made now."""
        self._discovery()
        entry = self._folders.get(folder)
        if entry is None:
            choice = choose_context_file(folder, probe_reader)
            entry = self._folders[folder] = DirectoryContext(folder, "ancestor", choice.candidates, choice.chosen)
        return entry

    def context(self, path: str) -> ContextInclusion:
        """Where the context file ``path`` (an AGENTS.md, CLAUDE.md ... by name) stands for this project."""
        path = resolve_path(path)
        discovery = self._discovery()
        if not discovery.enabled:
            return ContextInclusion(path, "switched-off", self.cwd)
        loaded = [item.path for item in discovery.loaded]
        if path in loaded:
            return ContextInclusion(
                path,
                "every-request",
                self.cwd,
                position=loaded.index(path) + 1,
                count=len(loaded),
                also_as=_same_file_as(path, discovery.loaded),
            )
        folder = posixpath.dirname(path)
        entry = self._folder(folder)
        candidate = next((c for c in entry.candidates if c.path == path), None)
        chosen = entry.chosen.path if entry.chosen is not None else None
        if candidate is None:
            return ContextInclusion(path, "absent", self.cwd, winner=chosen)
        if candidate.status == "not-a-file":
            return ContextInclusion(path, "not-a-file", self.cwd, winner=chosen)
        if candidate.status == "unreadable":
            return ContextInclusion(path, "unreadable", self.cwd, winner=chosen, error=candidate.error)
        if candidate.status == "outranked" and chosen is not None:
            kind: InclusionKind = "same-file" if _same_file(path, chosen) else "shadowed"
            return ContextInclusion(path, kind, self.cwd, winner=chosen)
        if entry.excluded == "worktree-shadowed":
            return ContextInclusion(path, "worktree-shadowed", self.cwd)
        return ContextInclusion(path, "started-there", self.cwd, skill_folder=self._skill_folder(folder))

    def _skill_folder(self, folder: str) -> str | None:
        """The nearest folder from ``folder`` up to (not including) the cwd that holds a SKILL.md."""
        current = folder
        for _ in range(MAX_SKILL_FOLDER_DEPTH):
            if fsread.is_regular_file(posixpath.join(current, SKILL_FILE_NAME)):
                return current
            parent = posixpath.dirname(current)
            if parent == current or not is_path_within(self.cwd, parent) or parent == self.cwd:
                return None
            current = parent
        return None

    def system_prompt(self, path: str) -> str:
        """The ``{when}`` clause of a SYSTEM.md / APPEND_SYSTEM.md (trust decides; it is not known here)."""
        path = resolve_path(path)
        folder = posixpath.dirname(path)
        name = posixpath.basename(path)
        if folder == self.agent_dir:
            return f"{EVERY_REQUEST} unless a trusted project has its own {PROJECT_CONFIG_DIR}/{name}"
        what = "the addendum" if name == APPEND_SYSTEM_PROMPT_FILE else "the preamble"
        if folder == posixpath.join(self.cwd, PROJECT_CONFIG_DIR):
            return f"{EVERY_REQUEST} ({what}) when the project is trusted"
        project = posixpath.dirname(folder)
        return (
            f"Pi sends it with every request ({what}) only when started in {_relative(project, self.cwd)} "
            "and the project is trusted"
        )


def skill_clause(*, in_listing: bool, hidden: bool = False, name: str | None = None) -> str:
    """The ``{when}`` of text in a SKILL.md: the name/description lines, or the rest of the file."""
    if in_listing and not hidden:
        return SKILL_LISTING
    if hidden:
        return SKILL_HIDDEN.format(name=name or "<name>")
    return SKILL_USE


def _relative(path: str, cwd: str) -> str:
    if path == cwd:
        return "."
    return posixpath.relpath(path, cwd) if is_path_within(cwd, path) else path


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except (OSError, ValueError):
        return False


def _same_file_as(path: str, loaded: tuple[LoadedContextFile, ...]) -> str | None:
    """Another path of Pi's list that is the same file as ``path`` (Pi compares paths, not files)."""
    for item in loaded:
        if item.path != path and _same_file(item.path, path):
            return item.path
    return None
