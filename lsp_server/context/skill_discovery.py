"""Which skills the agent loads for a cwd: the resource loader's skill part (pi-behavior.md §5.6).

Pi's ``DefaultResourceLoader.reload()`` asks the package manager for resource paths (explicit
``skills`` entries of the project and global settings, then the auto-discovered folders), sorts
them by precedence (project settings, project auto, user settings, user auto), de-duplicates them
by real path, appends the ``--skill`` paths, and hands the list to ``loadSkills``; earlier paths
win name collisions. Skills found through settings or auto-discovery then get the ``sourceInfo``
of the resource that produced them (``source: "auto"``, ``baseDir`` the ``.pi``/``.agents``/agent
folder). :func:`discover_skills` does all of that for the skills; packages (npm/git sources and
extension-contributed skills) are not resolved.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass, replace

from lsp_server.base.fsread import exists
from lsp_server.base.paths import (
    home_dir,
    is_path_within,
    node_resolve,
    normalize_path,
    real_paths_remembered,
    resolve_path,
)
from lsp_server.base.walk import WalkBudget
from lsp_server.context.globmatch import minimatch
from lsp_server.context.model import PiDiagnostic, Skill, SkillScope, SourceInfo
from lsp_server.context.skills import (
    LoadSkillsResult,
    collect_skill_entries,
    load_skills,
    node_join,
    posix_relative,
    resource_key,
)
from lsp_server.vocabulary.pi_files import AGENTS_SKILLS_DIR, PROJECT_CONFIG_DIR, SKILL_FILE_NAME

MSG_CLI_SKILL_PATH_MISSING = "Skill path does not exist"


@dataclass(frozen=True)
class ResourceMetadata:
    source: str  # "local" (settings entries) or "auto"
    scope: SkillScope  # "project" or "user"
    origin: str = "top-level"
    base_dir: str | None = None

    def source_info(self, path: str) -> SourceInfo:
        # Settings entries carry no baseDir: Pi's sourceInfo then has no baseDir key at all.
        return SourceInfo(path, self.source, self.scope, self.origin, self.base_dir)


@dataclass(frozen=True)
class DiscoveredSkills:
    """Pi's ``getSkills()``: the ordered skills and diagnostics (collisions last)."""

    skills: list[Skill]
    diagnostics: list[PiDiagnostic]
    skill_paths: list[str]  # the list handed to loadSkills, in order

    def skills_json(self) -> list[dict[str, object]]:
        return [s.to_json() for s in self.skills]

    def diagnostics_json(self) -> list[dict[str, object]]:
        return [d.to_json() for d in self.diagnostics]


# ---------------------------------------------------------------------------------------------
def _collect_files_from_paths(paths: list[str], budget: WalkBudget) -> list[str]:
    files: list[str] = []
    for path in paths:
        if not exists(path):
            continue
        try:
            st = os.stat(path)
        except OSError:
            continue
        if stat.S_ISREG(st.st_mode):
            files.append(path)
        elif stat.S_ISDIR(st.st_mode):
            files.extend(collect_skill_entries(path, "pi", budget=budget))
    return files


def find_git_root(start: str) -> str | None:
    directory = node_resolve(start)
    while True:
        if exists(os.path.join(directory, ".git")):
            return directory
        parent = os.path.dirname(directory)
        if parent == directory:
            return None
        directory = parent


def ancestor_agents_skill_dirs(cwd: str) -> list[str]:
    """``<dir>/.agents/skills`` for the cwd and each ancestor up to the git root (or ``/``)."""
    start = node_resolve(cwd)
    git_root = find_git_root(start)
    dirs: list[str] = []
    directory = start
    while True:
        dirs.append(node_join(directory, *AGENTS_SKILLS_DIR))
        if git_root is not None and directory == git_root:
            break
        parent = os.path.dirname(directory)
        if parent == directory:
            break
        directory = parent
    return dirs


# ---------------------------------------------------------------------------------------------
# Settings patterns (package-manager.js: applyPatterns, isEnabledByOverrides)


def _is_pattern(entry: str) -> bool:
    return entry.startswith(("!", "+", "-")) or "*" in entry or "?" in entry


def _candidates(path: str, base_dir: str) -> tuple[list[str], list[str]]:
    """(paths a glob may match, paths an exact entry may equal) for one file."""
    rel = posix_relative(base_dir, path)
    name = os.path.basename(path)
    globs = [rel, name, path]
    exact = [rel, path]
    if name == SKILL_FILE_NAME:
        parent = os.path.dirname(path)
        globs += [posix_relative(base_dir, parent), os.path.basename(parent), parent]
        exact += [posix_relative(base_dir, parent), parent]
    return globs, exact


def _matches_any(path: str, patterns: list[str], base_dir: str, home: str) -> bool:
    globs, _ = _candidates(path, base_dir)
    return any(minimatch(c, normalize_path(p, home=home)) for p in patterns for c in globs)


def _matches_any_exact(path: str, patterns: list[str], base_dir: str, home: str) -> bool:
    _, exact = _candidates(path, base_dir)
    for pattern in patterns:
        stripped = pattern[2:] if pattern.startswith(("./", ".\\")) else pattern
        if normalize_path(stripped, home=home) in exact:
            return True
    return False


def _apply_patterns(all_paths: list[str], patterns: list[str], base_dir: str, home: str) -> set[str]:
    includes = [p for p in patterns if not p.startswith(("+", "-", "!"))]
    excludes = [p[1:] for p in patterns if p.startswith("!")]
    force_in = [p[1:] for p in patterns if p.startswith("+")]
    force_out = [p[1:] for p in patterns if p.startswith("-")]
    result = [p for p in all_paths if not includes or _matches_any(p, includes, base_dir, home)]
    if excludes:
        result = [p for p in result if not _matches_any(p, excludes, base_dir, home)]
    for path in all_paths:
        if force_in and path not in result and _matches_any_exact(path, force_in, base_dir, home):
            result.append(path)
    if force_out:
        result = [p for p in result if not _matches_any_exact(p, force_out, base_dir, home)]
    return set(result)


def _enabled_by_overrides(path: str, entries: Sequence[str], base_dir: str, home: str) -> bool:
    excludes = [p[1:] for p in entries if p.startswith("!")]
    force_in = [p[1:] for p in entries if p.startswith("+")]
    force_out = [p[1:] for p in entries if p.startswith("-")]
    enabled = True
    if excludes and _matches_any(path, excludes, base_dir, home):
        enabled = False
    if force_in and _matches_any_exact(path, force_in, base_dir, home):
        enabled = True
    if force_out and _matches_any_exact(path, force_out, base_dir, home):
        enabled = False
    return enabled


# ---------------------------------------------------------------------------------------------
# The loader


def _rank(meta: ResourceMetadata) -> int:
    if meta.origin == "package":
        return 4
    return (0 if meta.scope == "project" else 2) + (0 if meta.source == "local" else 1)


def discover_skills(
    cwd: str,
    agent_dir: str,
    *,
    home: str | None = None,
    project_trusted: bool = True,
    project_skill_entries: Sequence[str] = (),
    global_skill_entries: Sequence[str] = (),
    cli_skill_paths: Sequence[str] = (),
    no_skills: bool = False,
) -> DiscoveredSkills:
    """The skills ``DefaultResourceLoader.reload()`` ends up with (``getSkills()``).

    ``project_skill_entries``/``global_skill_entries`` are the ``skills`` arrays of
    ``<cwd>/.pi/settings.json`` and ``<agentDir>/settings.json`` (project entries are ignored
    when the project is not trusted, as Pi's settings manager drops them). ``cli_skill_paths`` are
    the ``--skill`` values; ``no_skills`` is ``--no-skills``. Real paths are remembered for the
    whole discovery (:func:`~lsp_server.base.paths.real_paths_remembered`).
    """
    with real_paths_remembered():
        return _discover_skills(
            cwd,
            agent_dir,
            home=home,
            project_trusted=project_trusted,
            project_skill_entries=project_skill_entries,
            global_skill_entries=global_skill_entries,
            cli_skill_paths=cli_skill_paths,
            no_skills=no_skills,
        )


def _discover_skills(
    cwd: str,
    agent_dir: str,
    *,
    home: str | None,
    project_trusted: bool,
    project_skill_entries: Sequence[str],
    global_skill_entries: Sequence[str],
    cli_skill_paths: Sequence[str],
    no_skills: bool,
) -> DiscoveredSkills:
    home = home if home is not None else home_dir(os.environ)
    cwd = resolve_path(cwd, home=home)
    agent_dir = resolve_path(agent_dir, home=home)
    project_base = node_join(cwd, PROJECT_CONFIG_DIR)
    budget = WalkBudget()  # one for the whole discovery: the loader below gets its own
    accumulator: dict[str, tuple[ResourceMetadata, bool]] = {}

    def add(path: str, meta: ResourceMetadata, enabled: bool) -> None:
        if path and path not in accumulator:
            accumulator[path] = (meta, enabled)

    def add_local(entries: Sequence[str], meta: ResourceMetadata, base_dir: str) -> None:
        if not entries:
            return
        plain = [e for e in entries if not _is_pattern(e)]
        patterns = [e for e in entries if _is_pattern(e)]
        files = _collect_files_from_paths([resolve_path(p, base_dir, trim=True, home=home) for p in plain], budget)
        enabled = _apply_patterns(files, patterns, base_dir, home)
        for path in files:
            add(path, meta, path in enabled)

    project_entries = list(project_skill_entries) if project_trusted else []
    global_entries = list(global_skill_entries)
    add_local(project_entries, ResourceMetadata("local", "project"), project_base)
    add_local(global_entries, ResourceMetadata("local", "user"), agent_dir)

    user_agents_dir = node_join(home, *AGENTS_SKILLS_DIR)

    def add_auto(paths: list[str], meta: ResourceMetadata, overrides: Sequence[str], base_dir: str) -> None:
        for path in paths:
            add(path, meta, _enabled_by_overrides(path, overrides, base_dir, home))

    if project_trusted:
        meta = ResourceMetadata("auto", "project", base_dir=project_base)
        add_auto(
            collect_skill_entries(node_join(project_base, "skills"), "pi", budget=budget),
            meta,
            project_entries,
            project_base,
        )
        for agents_dir in ancestor_agents_skill_dirs(cwd):
            if node_resolve(agents_dir) == node_resolve(user_agents_dir):
                continue
            agents_base = os.path.dirname(agents_dir)
            meta = ResourceMetadata("auto", "project", base_dir=agents_base)
            add_auto(collect_skill_entries(agents_dir, "agents", budget=budget), meta, project_entries, agents_base)
    user_meta = ResourceMetadata("auto", "user", base_dir=agent_dir)
    add_auto(
        collect_skill_entries(node_join(agent_dir, "skills"), "pi", budget=budget), user_meta, global_entries, agent_dir
    )
    home_agents_base = os.path.dirname(user_agents_dir)
    home_meta = ResourceMetadata("auto", "user", base_dir=home_agents_base)
    add_auto(
        collect_skill_entries(user_agents_dir, "agents", budget=budget), home_meta, global_entries, home_agents_base
    )

    # toResolvedPaths: stable sort by precedence, then de-duplicate by real path.
    ordered = sorted(accumulator.items(), key=lambda item: _rank(item[1][0]))
    seen: set[str] = set()
    metadata_by_path: dict[str, ResourceMetadata] = {}
    enabled_paths: list[str] = []
    for path, (meta, enabled) in ordered:
        key = resource_key(path)
        if key in seen:
            continue
        seen.add(key)
        metadata_by_path.setdefault(path, meta)
        if enabled:
            enabled_paths.append(_map_skill_path(path, meta, metadata_by_path))

    def merge(primary: list[str], additional: Sequence[str]) -> list[str]:
        merged: list[str] = []
        keys: set[str] = set()
        for value in [*primary, *additional]:
            resolved = resolve_path(value, cwd, trim=True, home=home)
            key = resource_key(resolved)
            if key in keys:
                continue
            keys.add(key)
            merged.append(resolved)
        return merged

    skill_paths = merge([] if no_skills else enabled_paths, cli_skill_paths)
    empty = no_skills and not skill_paths
    loaded = LoadSkillsResult() if empty else load_skills(cwd, skill_paths, agent_dir=agent_dir)
    skills = [_with_source_info(skill, metadata_by_path) for skill in loaded.skills]
    diagnostics = [PiDiagnostic("warning", note.message, note.path) for note in budget.notes]
    diagnostics.extend(loaded.diagnostics)
    for value in cli_skill_paths:
        resolved = resolve_path(value, cwd, trim=True, home=home)
        if not exists(resolved) and not any(d.path == resolved for d in diagnostics):
            diagnostics.append(PiDiagnostic("error", MSG_CLI_SKILL_PATH_MISSING, resolved))
    return DiscoveredSkills(skills, diagnostics, skill_paths)


def _map_skill_path(path: str, meta: ResourceMetadata, metadata_by_path: dict[str, ResourceMetadata]) -> str:
    """``mapSkillPath``: an auto-discovered directory stands for its ``SKILL.md``."""
    if meta.source != "auto" and meta.origin != "package":
        return path
    try:
        if not stat.S_ISDIR(os.stat(path).st_mode):
            return path
    except OSError:
        return path
    skill_file = node_join(path, SKILL_FILE_NAME)
    if exists(skill_file):
        metadata_by_path.setdefault(skill_file, meta)
        return skill_file
    return path


def _with_source_info(skill: Skill, metadata_by_path: dict[str, ResourceMetadata]) -> Skill:
    """``findSourceInfoForPath``: the resource's metadata wins over loadSkills' own sourceInfo."""
    normalized = node_resolve(skill.file_path)
    meta = metadata_by_path.get(normalized) or metadata_by_path.get(skill.file_path)
    if meta is None:
        for source_path, candidate in metadata_by_path.items():
            if is_path_within(source_path, normalized):
                meta = candidate
                break
    if meta is None:
        return skill
    return replace(skill, source_info=meta.source_info(skill.file_path))
