"""Workspace checks: find skills and context files, run the rules, add Pi's cross-file collisions.

The CLI (``pi-context check``) checks whole trees; the language server re-checks one file per
edit. Both go through :class:`SkillIndex`, which keeps each skill's last check and a map from
(load group, name) to the skills using that name, so re-checking one edited SKILL.md costs one
parse plus a look-up among the skills sharing its old and new names: it does not grow with the
number of skills in the workspace.

A *load group* is the set of skills Pi would load together: a project's ``.pi/skills`` (first)
and ``.agents/skills`` (second), or any other folder the user points us at (as ``--skill`` would).
Within a group Pi's walk order decides which of two same-named skills wins (the first), so the
index orders skills by (rank of their skills folder, path components in Node's sort order).
"""

from __future__ import annotations

import bisect
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from lsp_server.base.findings import Finding, Range, Severity
from lsp_server.base.fsread import open_regular
from lsp_server.base.paths import real_path, real_paths_remembered
from lsp_server.base.walk import WalkBudget, WalkNote
from lsp_server.js.strings import node_dir_sort_key
from lsp_server.prompt.inclusion import Inclusions
from lsp_server.rules.context_rules import (
    check_context_file,
    check_context_folder,
    check_context_text,
    inclusion_findings,
)
from lsp_server.rules.registry import Emitter
from lsp_server.rules.scope import CheckScope, explain_fixtures, relative_below
from lsp_server.rules.skill_rules import SkillCheck, check_skill_file, check_skill_text, collision_finding
from lsp_server.rules.system_prompt_rules import (
    SYSTEM_PROMPT_NAMES,
    check_system_prompt_file,
    check_system_prompt_text,
    is_system_prompt_file,
)
from lsp_server.vocabulary.limits import Thresholds
from lsp_server.vocabulary.pi_files import (
    AGENTS_SKILLS_DIR,
    CONTEXT_FILE_CANDIDATES,
    PROJECT_CONFIG_DIR,
    SKILL_FILE_NAME,
)
from lsp_server.vocabulary.profiles import DEFAULT_PROFILE, ProfileId, check_profile

# Never descended into: VCS data, dependencies, and tool caches that can be huge.
SKIP_DIRS = frozenset(
    {
        ".git",
        "node_modules",
        ".hg",
        ".svn",
        "__pycache__",
        ".mypy_cache",
        ".ruff_cache",
        ".tox",
        ".nox",
        ".venv",
        "venv",
    }
)


@dataclass(frozen=True)
class SkillPlacement:
    """Where a skill sits for the collision rule: its load group and its order within it."""

    group: str
    order: tuple[Any, ...]
    loose_candidate: bool = False  # a loose .md file Pi would consider in this skills folder


def _skills_root(path: str) -> tuple[str, str, int] | None:
    """(project dir, skills folder, rank) when ``path`` is inside ``<p>/.pi/skills`` or ``<p>/.agents/skills``."""
    parts = os.path.abspath(path).split(os.sep)
    for index in range(len(parts) - 2, 0, -1):
        if parts[index + 1] != "skills":
            continue
        if parts[index] == PROJECT_CONFIG_DIR:
            rank = 0
        elif parts[index] == AGENTS_SKILLS_DIR[0]:
            rank = 1
        else:
            continue
        project = os.sep.join(parts[:index]) or os.sep
        return project, os.sep.join(parts[: index + 2]), rank
    return None


def placement_for(path: str, fallback_root: str | None = None) -> SkillPlacement:
    """The load group and order of a skill file (a pure function of its path)."""
    found = _skills_root(path)
    if found is not None:
        project, root, rank = found
    else:
        root = os.path.abspath(fallback_root) if fallback_root else os.path.dirname(os.path.dirname(path))
        project, rank = root, 2
    rel = os.path.relpath(os.path.abspath(path), root)
    order = (rank, tuple(node_dir_sort_key(part) for part in rel.split(os.sep)))
    return SkillPlacement(project, order)


@dataclass
class _IndexEntry:
    check: SkillCheck
    placement: SkillPlacement


@dataclass
class SkillIndex:
    """Skills by path, and by (group, name) for collisions; updates touch one name's skills only."""

    profile: ProfileId = DEFAULT_PROFILE
    entries: dict[str, _IndexEntry] = field(default_factory=dict)
    by_name: dict[tuple[str, str], list[tuple[tuple[Any, ...], str]]] = field(default_factory=dict)

    def update(self, check: SkillCheck, placement: SkillPlacement) -> set[str]:
        """Store a file's new check; returns the paths whose collision findings may have changed."""
        affected = self.remove(check.path)
        self.entries[check.path] = _IndexEntry(check, placement)
        if check.loaded and check.name is not None:
            key = (placement.group, check.name)
            bucket = self.by_name.setdefault(key, [])
            bisect.insort(bucket, (placement.order, check.path))
            affected.update(path for _, path in bucket)
        affected.add(check.path)
        return affected

    def remove(self, path: str) -> set[str]:
        entry = self.entries.pop(path, None)
        if entry is None or entry.check.name is None or not entry.check.loaded:
            return set()
        key = (entry.placement.group, entry.check.name)
        bucket = self.by_name.get(key, [])
        item = (entry.placement.order, path)
        index = bisect.bisect_left(bucket, item)
        if index < len(bucket) and bucket[index] == item:
            bucket.pop(index)
        if not bucket:
            self.by_name.pop(key, None)
        return {p for _, p in bucket}

    def collision_findings(self, path: str) -> list[Finding]:
        entry = self.entries.get(path)
        if entry is None or entry.check.name is None or not entry.check.loaded:
            return []
        bucket = self.by_name.get((entry.placement.group, entry.check.name), [])
        if not bucket or bucket[0][1] == path:
            return []
        finding = collision_finding(entry.check, bucket[0][1], self.profile)
        return [finding] if finding is not None else []

    def findings(self, path: str) -> list[Finding]:
        entry = self.entries.get(path)
        if entry is None:
            return []
        return [*entry.check.findings, *self.collision_findings(path)]


@dataclass(frozen=True)
class Targets:
    skills: list[tuple[str, SkillPlacement]]
    context_files: list[str]
    context_folders: list[str]  # folders holding more than one candidate or a candidate directory
    system_prompt_files: list[str] = field(default_factory=list)  # SYSTEM.md / APPEND_SYSTEM.md where Pi reads them
    walk_notes: list[WalkNote] = field(default_factory=list)  # folders the bounded walk did not enter
    not_files: list[str] = field(default_factory=list)  # a SKILL.md that is a directory
    not_checked: dict[str, str] = field(default_factory=dict)  # a named file that is none of these, and why


def _is_context_name(name: str) -> bool:
    return name in CONTEXT_FILE_CANDIDATES


def find_targets(paths: Sequence[str], scope: CheckScope | None = None) -> Targets:
    """Every SKILL.md, loose skill candidate and context file below ``paths`` (symlink-loop safe).

    ``scope``'s exclude patterns leave paths below a folder of ``paths`` out (an excluded folder is
    not entered); a file named in ``paths`` itself is always a target. Real paths are remembered during
    the walk (one ``lstat`` per folder and file, not per path part).
    """
    with real_paths_remembered():
        return _find_targets(paths, scope)


def _find_targets(paths: Sequence[str], scope: CheckScope | None) -> Targets:
    excluding = scope is not None and bool(scope.exclude)
    skills: list[tuple[str, SkillPlacement]] = []
    context_files: list[str] = []
    system_files: list[str] = []
    folders: list[str] = []
    seen_files: set[str] = set()
    visited: set[str] = set()
    budget = WalkBudget()
    not_files: list[str] = []
    not_checked: dict[str, str] = {}

    def add_skill(path: str, root: str, loose: bool = False) -> None:
        real = real_path(path)
        if real in seen_files:
            return
        seen_files.add(real)
        placement = placement_for(path, root)
        skills.append((path, SkillPlacement(placement.group, placement.order, loose)))

    def walk(directory: str, root: str, depth: int = 0) -> None:
        try:
            real = real_path(directory)
        except (OSError, ValueError):
            return
        if not budget.enter(directory, None if depth == 0 else os.path.dirname(directory), depth):
            return
        if real in visited:
            return
        visited.add(real)
        try:
            with os.scandir(directory) as it:
                entries = sorted(it, key=lambda e: node_dir_sort_key(e.name))
        except OSError:
            return
        names = {e.name for e in entries}
        candidate_count = sum(1 for n in names if _is_context_name(n))
        if candidate_count > 1 or any(_is_context_name(e.name) and _is_dir(e) for e in entries):
            folders.append(directory)
        skills_root = _skills_root(os.path.join(directory, "x"))
        for entry in entries:
            path = os.path.join(directory, entry.name)
            if excluding and scope is not None and scope.excluded(os.path.relpath(path, root).replace(os.sep, "/")):
                continue
            is_dir = _is_dir(entry)
            if entry.name == SKILL_FILE_NAME and not is_dir:
                add_skill(path, root)
            elif entry.name == SKILL_FILE_NAME:
                not_files.append(path)
            elif _is_context_name(entry.name) and not is_dir:
                context_files.append(path)
            elif entry.name in SYSTEM_PROMPT_NAMES and not is_dir and is_system_prompt_file(path):
                system_files.append(path)
            elif entry.name.endswith(".md") and not is_dir and skills_root is not None:
                loose_here = _loose_candidate(directory, skills_root, names)
                if loose_here:
                    add_skill(path, root, loose=True)
            if is_dir and entry.name not in SKIP_DIRS:
                walk(path, root, depth + 1)

    for raw in paths:
        path = os.path.abspath(raw)
        if os.path.isdir(path):
            walk(path, path)
        elif os.path.lexists(path):
            name = os.path.basename(path)
            if _is_context_name(name):
                context_files.append(path)
            elif name in SYSTEM_PROMPT_NAMES:
                system_files.append(path)  # named on the command line: checked wherever it is
            elif name == SKILL_FILE_NAME:
                add_skill(path, os.path.dirname(os.path.dirname(path)))
            elif _has_frontmatter(path):  # as Pi's --skill FILE would read it: a skill if it has a description
                add_skill(path, os.path.dirname(os.path.dirname(path)), loose=True)
            else:
                not_checked[path] = "not a SKILL.md, context or system prompt file, and no frontmatter (not a skill)"
    return Targets(skills, context_files, folders, system_files, budget.notes, not_files, not_checked)


def _has_frontmatter(path: str) -> bool:
    """The file starts with ``---`` (after a BOM): Pi's frontmatter, so it may be a skill."""
    opened = open_regular(path)
    if isinstance(opened, str):
        return True  # unreadable: checking it reports why
    handle, _ = opened
    with handle:
        try:
            start = handle.read(8)
        except OSError:
            return True
    return start.removeprefix(b"\xef\xbb\xbf").startswith(b"---")


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


def _loose_candidate(directory: str, skills_root: tuple[str, str, int], names: set[str]) -> bool:
    """Pi's auto-discovery: loose .md files count at the root of .pi/skills, below it in .agents/skills."""
    if SKILL_FILE_NAME in names:
        return False
    _, root, rank = skills_root
    at_root = os.path.abspath(directory) == root
    return at_root if rank == 0 else not at_root


@dataclass(frozen=True)
class CheckReport:
    findings: list[Finding]
    skills_checked: int  # SKILL.md files and loose .md candidates, together
    context_files_checked: int
    loose_candidates: int = 0  # of ``skills_checked``: loose .md files Pi would consider in a skills folder
    system_prompt_files_checked: int = 0
    loose_loaded: int = 0  # of ``loose_candidates``: those Pi loads as skills (they have a description)
    not_checked: Mapping[str, str] = field(default_factory=dict)  # named files that are none of these, and why

    def has_errors(self) -> bool:

        return any(f.severity == Severity.ERROR for f in self.findings)


def sort_findings(findings: Iterable[Finding]) -> list[Finding]:
    return sorted(findings, key=lambda f: (f.path, f.range.start.line, f.range.start.column, f.code, f.message))


def check_workspace(
    paths: Sequence[str],
    profile: ProfileId = DEFAULT_PROFILE,
    *,
    thresholds: Thresholds | None = None,
    inclusions: Inclusions | None = None,
    scope: CheckScope | None = None,
) -> CheckReport:
    """Check every skill and context file below ``paths`` under ``profile``.

    ``inclusions`` is the project the check speaks of (its cwd and agent dir): whether a context
    file is sent with every request, and every sentence that says so, come from it. Without it,
    each context file's own folder stands for the cwd. ``scope``: paths left out, and the fixture
    folders whose findings are explained and lowered (:mod:`lsp_server.rules.scope`).
    """
    profile = check_profile(profile)
    scope = scope or CheckScope()
    targets = find_targets(paths, scope)
    index = SkillIndex(profile)
    for path, placement in targets.skills:
        index.update(check_skill_file(path, profile, thresholds=thresholds), placement)
    findings: list[Finding] = []
    for path, _ in targets.skills:
        findings.extend(index.findings(path))
    linked = linked_copies(targets.context_files)
    for path in targets.context_files:
        if path in linked:  # another checked path is the same file: its findings are counted once, there
            place = (inclusions or Inclusions.own_folder(os.path.dirname(path))).context(path)
            findings.extend(inclusion_findings(place, profile))
            continue
        findings.extend(check_context_file(path, profile, thresholds=thresholds, inclusions=inclusions))
    for path in targets.system_prompt_files:
        findings.extend(check_system_prompt_file(path, profile, inclusions=inclusions))
    reported = {(f.path, f.code) for f in findings}
    for folder in targets.context_folders:
        found = check_context_folder(folder, profile, inclusions=inclusions)
        findings.extend(f for f in found if (f.path, f.code) not in reported)
    findings.extend(walk_findings(targets.walk_notes, profile))
    for path in targets.not_files:
        em = Emitter(path, profile)
        em.emit("skill/not-a-file", Range.file_start(), {"what": "a directory"})
        findings.extend(em.findings)
    folders = [path for path in paths if os.path.isdir(path)]
    return CheckReport(
        sort_findings(explain_fixtures(findings, folders, scope)),
        len(targets.skills),
        len(targets.context_files),
        sum(1 for _, placement in targets.skills if placement.loose_candidate),
        len(targets.system_prompt_files),
        sum(1 for path, placement in targets.skills if placement.loose_candidate and index.entries[path].check.loaded),
        targets.not_checked,
    )


def linked_copies(paths: Sequence[str]) -> set[str]:
    """The paths whose file is also checked under another path (a link): all but one per file.

    The one kept is a path that is not itself a link (the link's target), else the first: a
    file's content findings are reported once, however many names it has.
    """
    groups: dict[str, list[str]] = {}
    for path in paths:
        groups.setdefault(os.path.realpath(path), []).append(path)
    extra: set[str] = set()
    for group in groups.values():
        if len(group) > 1:
            keep = next((path for path in group if not os.path.islink(path)), group[0])
            extra.update(path for path in group if path != keep)
    return extra


def walk_findings(notes: Iterable[WalkNote], profile: ProfileId) -> list[Finding]:
    """A ``skill/walk-limit`` finding on each folder the bounded walk did not enter."""
    found: list[Finding] = []
    for note in notes:
        em = Emitter(note.path, profile)
        em.emit("skill/walk-limit", Range.file_start(), {"message": note.message})
        found.extend(em.findings)
    return found


# ---------------------------------------------------------------------------------------------
# The language server's per-file checker: profile, limits and scope as plain values


@dataclass(frozen=True)
class CheckOptions:
    """What a check takes from pi-context's settings: the rule profile, the size limits, the scope.

    Plain values, so the checks know nothing of how settings are parsed (``PiContextSettings.check_options()``
    builds them from ``piContext``; the CLI from its flags).
    """

    profile: ProfileId = DEFAULT_PROFILE
    limits: Thresholds = field(default_factory=Thresholds)
    scope: CheckScope = field(default_factory=CheckScope)


@dataclass(frozen=True)
class FileAnalysis:
    """One file's check before it meets the skill index: a context file's findings, or a skill's check."""

    path: str
    findings: tuple[Finding, ...]
    skill: SkillCheck | None = None
    gone: bool = False  # a skill file that no longer exists: drop it from the index


class WorkspaceChecker:
    """Checks one file at a time for the language server, keeping the skill index between calls."""

    name = "pi-context"

    def __init__(self) -> None:
        self.indexes: dict[ProfileId, SkillIndex] = {}
        self.roots: list[str] = []  # workspace folders, for skills outside .pi/.agents skills folders
        self.walk_notes: list[WalkNote] = []  # what the last workspace walk did not enter (the server logs it)

    def root_for(self, path: str) -> str | None:
        """The innermost workspace folder holding ``path``."""
        absolute = os.path.abspath(path)
        matches = [r for r in self.roots if absolute.startswith(r.rstrip(os.sep) + os.sep)]
        return max(matches, key=len) if matches else None

    def _index(self, profile: ProfileId) -> SkillIndex:
        index = self.indexes.get(profile)
        if index is None:
            index = self.indexes[profile] = SkillIndex(profile)
        return index

    def excluded(self, path: str, options: CheckOptions) -> bool:
        """``piContext.check.exclude`` leaves the file out (matched below its workspace folder)."""
        if not options.scope.exclude:
            return False
        relative = relative_below(path, self.roots)
        if relative is None:
            return False
        scope = options.scope
        parts = relative.split("/")
        return any(scope.excluded("/".join(parts[: index + 1])) for index in range(len(parts)))

    def wants(self, path: str, options: CheckOptions) -> bool:
        if self.excluded(path, options):
            return False
        name = os.path.basename(path)
        if name == SKILL_FILE_NAME or _is_context_name(name) or is_system_prompt_file(path):
            return True
        return name.endswith(".md") and _skills_root(path) is not None

    def check(self, path: str, text: str | None, options: CheckOptions) -> Sequence[Finding]:
        return self.apply(self.analyze(path, text, options), options)

    @staticmethod
    def analyze(
        path: str, text: str | None, options: CheckOptions, inclusions: Inclusions | None = None
    ) -> FileAnalysis:
        """The expensive, self-contained part of a check: safe in a worker thread (no shared state).

        ``inclusions``: the project of the workspace folder holding the file (the server passes it),
        which decides whether a context file is sent with every request.
        """
        profile, limits = options.profile, options.limits
        if _is_context_name(os.path.basename(path)):
            if text is None:
                return FileAnalysis(path, ())
            place = (inclusions or Inclusions.own_folder(os.path.dirname(path))).context(path)
            own = inclusion_findings(place, profile)
            content = check_context_text(path, text, profile, thresholds=limits, inclusion=place)
            return FileAnalysis(path, tuple([*own, *content]))
        if is_system_prompt_file(path):
            if text is None:
                return FileAnalysis(path, ())
            return FileAnalysis(path, tuple(check_system_prompt_text(path, text, profile, inclusions=inclusions)))
        if text is None:
            return FileAnalysis(path, (), gone=True)
        return FileAnalysis(path, (), check_skill_text(path, text, profile, thresholds=limits))

    def apply(self, analysis: FileAnalysis, options: CheckOptions) -> Sequence[Finding]:
        """Record an analysis in the skill index (collisions) and return the file's findings: on one thread."""
        index = self._index(options.profile)
        path = analysis.path
        if analysis.gone or self.excluded(path, options):
            index.remove(path)
            return []
        if analysis.skill is None:
            return sort_findings(explain_fixtures(analysis.findings, self.roots, options.scope))
        index.update(analysis.skill, placement_for(path, self.root_for(path)))
        return sort_findings(explain_fixtures(index.findings(path), self.roots, options.scope))

    def affected_by(self, path: str, options: CheckOptions) -> set[str]:
        """Other skills whose collision findings depend on ``path`` (same group and name)."""
        index = self._index(options.profile)
        entry = index.entries.get(path)
        if entry is None or entry.check.name is None:
            return set()
        bucket = index.by_name.get((entry.placement.group, entry.check.name), [])
        return {p for _, p in bucket if p != path}

    def workspace_files(self, roots: Sequence[str], options: CheckOptions) -> Iterable[str]:
        self.roots = [os.path.abspath(r) for r in roots]
        targets = find_targets(roots, options.scope)
        self.walk_notes = targets.walk_notes
        return [path for path, _ in targets.skills] + targets.context_files + targets.system_prompt_files


def recheck_skill(
    index: SkillIndex, path: str, text: str, *, thresholds: Thresholds | None = None
) -> dict[str, list[Finding]]:
    """Re-check one edited skill and return the new findings of every file whose findings changed."""
    result = check_skill_text(path, text, index.profile, thresholds=thresholds)
    affected = index.update(result, placement_for(path))
    return {p: index.findings(p) for p in sorted(affected)}
