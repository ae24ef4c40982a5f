"""Skill loading exactly as Pi 1.6.0 does it (``core/skills.js``; pi-behavior.md §5.2–5.5).

Three entry points mirror Pi's: :func:`load_skill_from_file` (one ``.md`` file: warnings and
maybe a skill), :func:`load_skills_from_dir` (the walk with ignore files, ``SKILL.md`` stopping
descent, root-level ``.md`` candidates) and :func:`load_skills` (configured paths, de-duplication
by real path, first-wins name collisions reported after every other diagnostic). The walk is
:func:`collect_skill_entries`, which the package manager's auto-discovery
(:mod:`lsp_server.context.skill_discovery`) uses too: Pi's two walks (``loadSkillsFromDir`` and
``collectSkillEntries``) find the same files, the latter also in ``.agents/skills``' mode.

:func:`load_skill_from_text` is the same rule applied to text the editor holds, so the language
server can re-check an unsaved buffer; it also hands back the parsed frontmatter so the rule
engine does not parse twice. Nothing here raises on bad input: unreadable files, invalid UTF-8,
symlink loops and directories named ``SKILL.md`` end up as diagnostics or are skipped, as in Pi.
"""

from __future__ import annotations

import operator
import os
import posixpath
import re
import stat
from dataclasses import dataclass, field
from typing import Literal

from lsp_server.base.fsread import ReadResult, exists, read_text
from lsp_server.base.gcpause import collector_paused
from lsp_server.base.paths import (
    canonicalize_path,
    default_agent_dir,
    is_path_within,
    node_resolve,
    real_paths_remembered,
    resolve_path,
)
from lsp_server.base.walk import WalkBudget
from lsp_server.context.frontmatter import Frontmatter, parse_frontmatter
from lsp_server.context.ignore import IgnoreMatcher, add_ignore_rules
from lsp_server.context.model import PiDiagnostic, Skill, SourceInfo
from lsp_server.js.strings import js_len, js_trim, node_dir_sort_key
from lsp_server.vocabulary.pi_files import PROJECT_CONFIG_DIR, SKILL_FILE_NAME

MAX_NAME_LENGTH = 64
MAX_DESCRIPTION_LENGTH = 1024
_NAME_RE = re.compile(r"[a-z0-9-]+")

# Pi's warning texts (facts of the format; the rule engine reuses them in the ``pi`` profile).
MSG_DESCRIPTION_REQUIRED = "description is required"
MSG_PATH_MISSING = "skill path does not exist"
MSG_NOT_MARKDOWN = "skill path is not a markdown file"


def msg_description_too_long(length: int) -> str:
    return f"description exceeds {MAX_DESCRIPTION_LENGTH} characters ({length})"


def msg_name_too_long(length: int) -> str:
    return f"name exceeds {MAX_NAME_LENGTH} characters ({length})"


MSG_NAME_INVALID_CHARS = "name contains invalid characters (must be lowercase a-z, 0-9, hyphens only)"
MSG_NAME_HYPHEN_EDGE = "name must not start or end with a hyphen"
MSG_NAME_CONSECUTIVE_HYPHENS = "name must not contain consecutive hyphens"


def msg_collision(name: str) -> str:
    return f'name "{name}" collision'


def node_join(*parts: str) -> str:
    """Node's ``path.join``: joined with ``/`` and normalized (relative stays relative)."""
    joined = "/".join(p for p in parts if p)
    return node_resolve(joined) if joined.startswith("/") else posixpath.normpath(joined or ".")


def posix_relative(root: str, path: str) -> str:
    """``path.relative(root, path)`` with ``/`` separators ("" for the same path)."""
    resolved, base = node_resolve(path), node_resolve(root)
    if resolved == base:
        return ""
    prefix = base if base == "/" else base + "/"
    if resolved.startswith(prefix):  # inside root (both normal and absolute): what relpath would say
        return resolved[len(prefix) :]
    rel = posixpath.relpath(resolved, base)
    return "" if rel == "." else rel


def resource_key(path: str) -> str:
    """``getResourcePathKey``: the real path when it resolves, else the path itself, resolved."""
    return node_resolve(canonicalize_path(path))


@dataclass(frozen=True)
class LoadSkillsResult:
    skills: list[Skill] = field(default_factory=list)
    diagnostics: list[PiDiagnostic] = field(default_factory=list)


@dataclass(frozen=True)
class SkillFileResult:
    """One file's outcome, plus what the rule engine needs to position findings."""

    path: str
    skill: Skill | None
    diagnostics: list[PiDiagnostic]
    name: str | None = None  # the name Pi uses (frontmatter name or folder name), when it got that far
    name_from_frontmatter: bool = False
    has_description: bool = False
    frontmatter: Frontmatter | None = None
    read: ReadResult | None = None

    @property
    def is_declared(self) -> bool:
        return os.path.basename(self.path) == SKILL_FILE_NAME


def validate_name(name: str) -> list[str]:
    """Pi's ``validateName`` messages, in Pi's order (lengths in UTF-16 units)."""
    errors: list[str] = []
    length = js_len(name)
    if length > MAX_NAME_LENGTH:
        errors.append(msg_name_too_long(length))
    if not _NAME_RE.fullmatch(name):
        errors.append(MSG_NAME_INVALID_CHARS)
    if name.startswith("-") or name.endswith("-"):
        errors.append(MSG_NAME_HYPHEN_EDGE)
    if "--" in name:
        errors.append(MSG_NAME_CONSECUTIVE_HYPHENS)
    return errors


def has_description(description: object) -> bool:
    return isinstance(description, str) and js_trim(description) != ""


def validate_description(description: object) -> list[str]:
    if not has_description(description):
        return [MSG_DESCRIPTION_REQUIRED]
    assert isinstance(description, str)
    length = js_len(description)
    if length > MAX_DESCRIPTION_LENGTH:
        return [msg_description_too_long(length)]
    return []


def skill_source_info(file_path: str, base_dir: str, source: str) -> SourceInfo:
    """Pi's ``createSkillSourceInfo``: ``user``/``project``/``path`` map to ``local`` sources."""
    if source == "user":
        return SourceInfo(file_path, "local", "user", "top-level", base_dir)
    if source == "project":
        return SourceInfo(file_path, "local", "project", "top-level", base_dir)
    if source == "path":
        return SourceInfo(file_path, "local", "temporary", "top-level", base_dir)
    return SourceInfo(file_path, source, "temporary", "top-level", base_dir)


def load_skill_from_text(file_path: str, text: str, source: str) -> SkillFileResult:
    """``loadSkillFromFile`` after the read: frontmatter, description and name rules."""
    declared = os.path.basename(file_path) == SKILL_FILE_NAME
    diagnostics: list[PiDiagnostic] = []
    frontmatter = parse_frontmatter(text)
    if frontmatter.error is not None:
        if declared:
            diagnostics.append(PiDiagnostic("warning", frontmatter.error.message, file_path))
        return SkillFileResult(file_path, None, diagnostics, frontmatter=frontmatter)
    data = frontmatter.data
    description = data.get("description") if isinstance(data, dict) else None
    described = has_description(description)
    if not declared and not described:
        return SkillFileResult(file_path, None, diagnostics, frontmatter=frontmatter)
    skill_dir = os.path.dirname(file_path)
    for message in validate_description(description):
        diagnostics.append(PiDiagnostic("warning", message, file_path))
    raw_name = data.get("name") if isinstance(data, dict) else None
    from_frontmatter = isinstance(raw_name, str) and raw_name != ""
    name = raw_name if from_frontmatter and isinstance(raw_name, str) else os.path.basename(skill_dir)
    for message in validate_name(name):
        diagnostics.append(PiDiagnostic("warning", message, file_path))
    if not described or not isinstance(description, str):
        return SkillFileResult(file_path, None, diagnostics, name, from_frontmatter, False, frontmatter)
    skill = Skill(
        name=name,
        description=description,
        file_path=file_path,
        base_dir=skill_dir,
        source_info=skill_source_info(file_path, skill_dir, source),
        disable_model_invocation=isinstance(data, dict) and data.get("disable-model-invocation") is True,
    )
    return SkillFileResult(file_path, skill, diagnostics, name, from_frontmatter, True, frontmatter)


def load_skill_from_file(file_path: str, source: str) -> SkillFileResult:
    """``loadSkillFromFile``: a read error is a warning with the error's message."""
    result = read_text(file_path)
    if result.text is None:
        message = result.error or "failed to read skill file"
        return SkillFileResult(file_path, None, [PiDiagnostic("warning", message, file_path)], read=result)
    loaded = load_skill_from_text(file_path, result.text, source)
    return SkillFileResult(
        loaded.path,
        loaded.skill,
        loaded.diagnostics,
        loaded.name,
        loaded.name_from_frontmatter,
        loaded.has_description,
        loaded.frontmatter,
        result,
    )


def _stat_follow(path: str) -> os.stat_result | None:
    try:
        return os.stat(path)
    except (OSError, ValueError):
        return None


def _entry_kind(entry: os.DirEntry[str], full_path: str) -> tuple[bool, bool] | None:
    """(is_dir, is_file) as Pi's Dirent checks see them; symlinks followed; None when broken."""
    try:
        is_dir = entry.is_dir(follow_symlinks=False)
        is_file = entry.is_file(follow_symlinks=False)
        is_link = entry.is_symlink()
    except OSError:
        return None
    if is_link:
        st = _stat_follow(full_path)
        if st is None:
            return None
        return stat.S_ISDIR(st.st_mode), stat.S_ISREG(st.st_mode)
    return is_dir, is_file


def load_skills_from_dir(directory: str, source: str, budget: WalkBudget | None = None) -> LoadSkillsResult:
    """``loadSkillsFromDir({dir, source})``: the walk of pi-behavior.md §5.3, bounded by ``budget``."""
    skills: list[Skill] = []
    diagnostics: list[PiDiagnostic] = []
    budget = budget if budget is not None else WalkBudget()
    with collector_paused():  # frontmatter nodes and values hold no cycles
        _walk(directory, source, skills, diagnostics, None, budget)
    return LoadSkillsResult(skills, _walk_notes(budget) + diagnostics)


def load_skills_from_dir_detailed(directory: str, source: str) -> tuple[LoadSkillsResult, list[SkillFileResult]]:
    """Like :func:`load_skills_from_dir`, also returning every file's detailed result."""
    skills: list[Skill] = []
    diagnostics: list[PiDiagnostic] = []
    files: list[SkillFileResult] = []
    budget = WalkBudget()
    with collector_paused():
        _walk(directory, source, skills, diagnostics, files, budget)
    return LoadSkillsResult(skills, _walk_notes(budget) + diagnostics), files


def _walk_notes(budget: WalkBudget) -> list[PiDiagnostic]:
    """The folders a bounded walk refused, as warnings (Pi would have walked on)."""
    return [PiDiagnostic("warning", note.message, note.path) for note in budget.notes]


def _walk(
    directory: str,
    source: str,
    skills: list[Skill],
    diagnostics: list[PiDiagnostic],
    files: list[SkillFileResult] | None,
    budget: WalkBudget,
) -> None:
    """``loadSkillsFromDir``'s walk: the files :func:`collect_skill_entries` finds in ``"pi"`` mode
    (Pi's two walks take the same files: loose ``.md`` files only at the root), each loaded in order."""
    for path in collect_skill_entries(directory, "pi", budget=budget):
        result = load_skill_from_file(path, source)
        if result.skill is not None:
            skills.append(result.skill)
        diagnostics.extend(result.diagnostics)
        if files is not None:
            files.append(result)


def collect_skill_entries(
    directory: str,
    mode: Literal["pi", "agents"],
    matcher: IgnoreMatcher | None = None,
    root: str | None = None,
    budget: WalkBudget | None = None,
    depth: int = 0,
) -> list[str]:
    """Skill files below ``directory`` (package-manager.js ``collectSkillEntries``, and the walk of
    ``loadSkillsFromDir``): ``mode`` "pi" keeps loose ``.md`` files only at the root, "agents" only
    below it; a directory holding ``SKILL.md`` contributes just that file.

    ``budget`` bounds the walk (loops, depth, folder count; see ``base/walk.py``)."""
    entries: list[str] = []
    if not exists(directory):
        return entries
    budget = budget if budget is not None else WalkBudget()
    parent = None if root is None else os.path.dirname(directory)
    matcher = matcher if matcher is not None else IgnoreMatcher()
    _collect(directory, mode, matcher, root, budget, depth, parent, None, entries)
    return entries


def _collect(
    directory: str,
    mode: Literal["pi", "agents"],
    matcher: IgnoreMatcher,
    root: str | None,
    budget: WalkBudget,
    depth: int,
    parent: str | None,
    is_link: bool | None,
    entries: list[str],
) -> None:
    """:func:`collect_skill_entries` of a folder that exists; a folder found in its parent's listing
    comes with ``is_link`` from that listing (no ``stat`` to ask again), and its path is normal."""
    if not budget.enter(directory, parent, depth, is_link=is_link):
        return
    root = root if root is not None else directory
    try:
        with os.scandir(directory) as it:  # readdirSync throws on a non-directory or unreadable one
            listing = list(it)
    except OSError:
        add_ignore_rules(matcher, directory, root)  # Pi reads them before its readdir fails
        return
    names = {entry.name for entry in listing}
    add_ignore_rules(matcher, directory, root, names)
    if "".join(names).isascii():
        listing.sort(key=_NAME)  # ASCII: the names' order is their bytes' order (Node's)
    else:
        listing.sort(key=lambda entry: node_dir_sort_key(entry.name))
    # Below the root the folder's path is normal already, and a listed name holds no "/": joining is
    # concatenating (the root itself may be written any way, so its entries are joined as Node does).
    prefix = directory + "/" if is_link is not None else None
    for entry in listing if SKILL_FILE_NAME in names else ():
        if entry.name != SKILL_FILE_NAME:
            continue
        full_path = prefix + entry.name if prefix is not None else node_join(directory, entry.name)
        kind = _entry_kind(entry, full_path)
        if kind is None:
            continue
        if kind[1] and not (matcher.rules and matcher.ignores(posix_relative(root, full_path))):
            entries.append(full_path)
            return
    for entry in listing:
        name = entry.name
        if name.startswith(".") or name == "node_modules":
            continue
        full_path = prefix + name if prefix is not None else node_join(directory, name)
        kind = _entry_kind(entry, full_path)
        if kind is None:
            continue
        is_dir, is_file = kind
        # No ignore rules yet (most walks): nothing is ignored, so no relative path is needed.
        rel = posix_relative(root, full_path) if matcher.rules else ""
        at_root = directory == root
        if (
            is_file
            and name.endswith(".md")
            and not (rel and matcher.ignores(rel))
            and ((mode == "pi" and at_root) or (mode == "agents" and not at_root))
        ):
            entries.append(full_path)
            continue
        if not is_dir or (rel and matcher.ignores(f"{rel}/")):
            continue
        _collect(full_path, mode, matcher, root, budget, depth + 1, directory, _is_symlink(entry), entries)


_NAME = operator.attrgetter("name")


def _is_symlink(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_symlink()
    except OSError:
        return False


class SkillCollector:
    """``loadSkills``'s ``addSkills``: real-path de-dup, first-wins names, collisions kept apart."""

    def __init__(self) -> None:
        self.by_name: dict[str, Skill] = {}
        self.real_paths: set[str] = set()
        self.diagnostics: list[PiDiagnostic] = []
        self.collisions: list[PiDiagnostic] = []

    def add(self, result: LoadSkillsResult) -> None:
        self.diagnostics.extend(result.diagnostics)
        for skill in result.skills:
            key = resource_key(skill.file_path)
            if key in self.real_paths:
                continue
            existing = self.by_name.get(skill.name)
            if existing is not None:
                self.collisions.append(
                    PiDiagnostic(
                        "collision",
                        msg_collision(skill.name),
                        skill.file_path,
                        {
                            "resourceType": "skill",
                            "name": skill.name,
                            "winnerPath": existing.file_path,
                            "loserPath": skill.file_path,
                        },
                    )
                )
            else:
                self.by_name[skill.name] = skill
                self.real_paths.add(key)

    def result(self) -> LoadSkillsResult:
        return LoadSkillsResult(list(self.by_name.values()), [*self.diagnostics, *self.collisions])


def load_skills(
    cwd: str,
    skill_paths: list[str],
    *,
    agent_dir: str | None = None,
    include_defaults: bool = False,
) -> LoadSkillsResult:
    """``loadSkills({cwd, agentDir, skillPaths, includeDefaults})`` (pi-behavior.md §5.5)."""
    with real_paths_remembered():
        return _load_skills(cwd, skill_paths, agent_dir=agent_dir, include_defaults=include_defaults)


def _load_skills(
    cwd: str, skill_paths: list[str], *, agent_dir: str | None, include_defaults: bool
) -> LoadSkillsResult:
    resolved_cwd = resolve_path(cwd)
    resolved_agent_dir = resolve_path(agent_dir if agent_dir is not None else default_agent_dir(os.environ))
    collector = SkillCollector()
    user_dir = node_join(resolved_agent_dir, "skills")
    project_dir = node_join(resolved_cwd, PROJECT_CONFIG_DIR, "skills")
    if include_defaults:
        collector.add(load_skills_from_dir(user_dir, "user"))
        collector.add(load_skills_from_dir(project_dir, "project"))

    def source_for(path: str) -> str:
        if not include_defaults:
            if is_path_within(user_dir, path):
                return "user"
            if is_path_within(project_dir, path):
                return "project"
        return "path"

    for raw in skill_paths:
        resolved = resolve_path(raw, resolved_cwd, trim=True)
        if not exists(resolved):
            collector.diagnostics.append(PiDiagnostic("warning", MSG_PATH_MISSING, resolved))
            continue
        st = _stat_follow(resolved)
        if st is None:
            collector.diagnostics.append(PiDiagnostic("warning", "failed to read skill path", resolved))
            continue
        source = source_for(resolved)
        if stat.S_ISDIR(st.st_mode):
            collector.add(load_skills_from_dir(resolved, source))
        elif stat.S_ISREG(st.st_mode) and resolved.endswith(".md"):
            result = load_skill_from_file(resolved, source)
            if result.skill is not None:
                collector.add(LoadSkillsResult([result.skill], result.diagnostics))
            else:
                collector.diagnostics.extend(result.diagnostics)
        else:
            collector.diagnostics.append(PiDiagnostic("warning", MSG_NOT_MARKDOWN, resolved))
    return collector.result()
