"""A workspace folder's assembled prompt, which files can change it, and what changed between builds.

The editor needs three answers about a folder, and this module gives them without any LSP:

* **the prompt** Pi would build for an opened :class:`~lsp_server.project.project.Project`
  (open buffers read through a ``reader``): :func:`build_prompt`;
* **whether a changed file can change it** (:meth:`PromptSnapshot.affects`), so that a save of an
  unrelated file costs nothing, and whether the change can touch the skills
  (:func:`touches_skills`), so that a save of AGENTS.md reuses the skills found last time
  (:class:`SkillCache`) instead of walking every skill folder again;
* **what changed** between two builds (:func:`diff_snapshots`): Pi's patch (changed sections in
  order, removed ones as ``None``), the token delta of each section with both counters, the totals,
  and the patch rendered as Pi renders a mid-conversation system message. ``None`` when the
  section map is the same: Pi records nothing then, and the editor is told nothing.
"""

from __future__ import annotations

import posixpath
import re
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Literal

from lsp_server.base import fsread
from lsp_server.base.paths import is_path_within, node_resolve, resolve_path
from lsp_server.context.resources import (
    ResourceOptions,
    Resources,
    SkillDiscoveryRequest,
    SkillResult,
    discover_skills_for,
    load_resources,
)
from lsp_server.context.skill_discovery import ancestor_agents_skill_dirs
from lsp_server.context.skills import load_skill_from_file
from lsp_server.context.trust import TrustDecision
from lsp_server.cost.save_cost import SaveCacheImpact, save_cache_impact
from lsp_server.project.project import Project
from lsp_server.prompt.assembly import AssembledPrompt, AssembledSection, assemble_prompt, inputs_from_resources
from lsp_server.prompt.sections import diff_sections
from lsp_server.prompt.system_messages import render_system_message_update
from lsp_server.prompt.texts import texts_for
from lsp_server.tokens.counter import CounterChoice, choose_counter
from lsp_server.tokens.pair import ZERO, TokenPair
from lsp_server.vocabulary.pi_files import (
    AGENTS_SKILLS_DIR,
    APPEND_SYSTEM_PROMPT_FILE,
    CONTEXT_FILE_CANDIDATES,
    PROJECT_CONFIG_DIR,
    SYSTEM_PROMPT_FILE,
)
from lsp_server.vocabulary.pi_releases import package_version, rules_for

Reader = Callable[[str], fsread.ReadResult]

SESSIONS_FOLDER = "sessions"
_READER_FILES = frozenset({*CONTEXT_FILE_CANDIDATES, SYSTEM_PROMPT_FILE, APPEND_SYSTEM_PROMPT_FILE})
_GLOB_CHARS = re.compile(r"[*?\[{]")


@dataclass(frozen=True)
class PromptOptions:
    """Pi's start-up flags that shape the prompt beyond the project (the CLI's ``prompt`` options)."""

    tools: tuple[str, ...] | None = None  # --tools (None: Pi's defaultTools setting)
    package_dir: str | None = None  # Pi's install folder named in the docs section
    counter_model: str | None = None  # the model whose tokenizer family "auto" picks (default: Pi's default model)


def section_tokens(section: AssembledSection) -> TokenPair:
    return TokenPair(section.pi_tokens, section.tokens)


class SkillCache:
    """The skills found for the last discovery request, reused while no skill can have changed.

    Skill discovery walks every skill folder (about half a second for 1,000 skills) while the
    rest of a prompt build takes milliseconds. The request names everything discovery reads
    besides the skill files (cwd, agent dir, trust, the settings' skill entries), so a changed
    request misses by itself; :meth:`clear` is for changes to the skill files themselves.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._request: SkillDiscoveryRequest | None = None
        self._result: SkillResult | None = None
        self.hits = 0
        self.misses = 0
        self.updates = 0

    def load(self, request: SkillDiscoveryRequest) -> SkillResult:
        with self._lock:
            if self._result is not None and request == self._request:
                self.hits += 1
                return self._result
        result = discover_skills_for(request)
        with self._lock:
            self.misses += 1
            self._request, self._result = request, result
        return result

    def clear(self) -> None:
        with self._lock:
            self._request, self._result = None, None

    def update_files(self, paths: Iterable[str]) -> bool:
        """Re-read changed skill files in place, when that is exactly what a new walk would find.

        That is the case for a known skill whose file still loads, under the same name (so no
        collision changes) and with the same warnings: only its description and
        ``disable-model-invocation`` can differ. Anything else (a new, deleted or renamed skill,
        a new warning) returns ``False`` and the caller walks again.
        """
        with self._lock:
            if self._result is None:
                return False
            skills, diagnostics = list(self._result[0]), self._result[1]
            for path in paths:
                index = next((i for i, skill in enumerate(skills) if skill.file_path == path), None)
                if index is None:
                    return False
                old = skills[index]
                loaded = load_skill_from_file(path, old.source_info.source)
                if loaded.skill is None or loaded.skill.name != old.name:
                    return False
                if loaded.diagnostics != [d for d in diagnostics if d.path == path]:
                    return False
                skills[index] = replace(
                    old,
                    description=loaded.skill.description,
                    disable_model_invocation=loaded.skill.disable_model_invocation,
                )
            self._result = (tuple(skills), diagnostics)
            self.updates += 1
            return True


@dataclass(frozen=True)
class PromptSnapshot:
    """One build of a folder's prompt and everything it was made from."""

    project: Project
    resources: Resources
    prompt: AssembledPrompt
    counter: CounterChoice
    options: PromptOptions = field(default_factory=PromptOptions)
    # The prompt a running Pi holds (a live chat's, taken when it read its files), not a build of the files
    # now: its sections are what Pi sends next, so a session recorded with other sections gets Pi's patch
    # before its next request (project/analysis.py).
    pi_holds: bool = False

    @property
    def trust(self) -> TrustDecision:
        return self.project.trust

    @property
    def cwd(self) -> str:
        return self.resources.options.cwd

    @property
    def agent_dir(self) -> str:
        return self.resources.options.agent_dir

    def section_map(self) -> dict[str, str]:
        return self.prompt.section_map()

    def section(self, name: str) -> AssembledSection | None:
        return next((section for section in self.prompt.sections if section.name == name), None)

    @property
    def total(self) -> TokenPair:
        return TokenPair(self.prompt.pi_tokens, self.prompt.tokens)

    @property
    def warnings(self) -> tuple[str, ...]:
        return self.prompt.warnings

    @cached_property
    def _ancestors(self) -> frozenset[str]:
        dirs: list[str] = []
        current = self.cwd
        while True:
            dirs.append(current)
            parent = posixpath.dirname(current)
            if parent == current:
                break
            current = parent
        return frozenset([*dirs, self.agent_dir])

    @cached_property
    def skill_roots(self) -> tuple[str, ...]:
        """Folders whose contents can become skills of this prompt (conservative for globs)."""
        home = self.project.inputs.home_dir
        roots = [
            posixpath.join(self.cwd, PROJECT_CONFIG_DIR, "skills"),
            posixpath.join(self.agent_dir, "skills"),
            posixpath.join(resolve_path(home), *AGENTS_SKILLS_DIR),
            *ancestor_agents_skill_dirs(self.cwd),
        ]
        settings = self.resources.settings
        entries = [
            (entry, self.agent_dir) for entry in settings.global_layer.settings.skills if isinstance(entry, str)
        ] + [
            (entry, posixpath.join(self.cwd, PROJECT_CONFIG_DIR))
            for entry in settings.project_layer.settings.skills
            if isinstance(entry, str)
        ]
        for entry, base in entries:
            roots.extend(_entry_roots(entry, base, home, self.cwd))
        roots.extend(skill.base_dir for skill in self.resources.skills)
        return tuple(dict.fromkeys(node_resolve(root) for root in roots))

    @cached_property
    def _watched_dirs(self) -> tuple[str, ...]:
        return (posixpath.join(self.cwd, PROJECT_CONFIG_DIR), self.agent_dir, *self.skill_roots)

    def affects(self, path: str) -> bool:
        """Whether a change to ``path`` (file or folder, existing or deleted) can change this prompt.

        True for: a context-file name in the cwd, one of its ancestors or the agent dir; anything
        under ``<cwd>/.pi`` (SYSTEM.md, APPEND_SYSTEM.md, settings, skills, and the entries that
        decide trust) or the agent dir (settings.json, trust.json, SYSTEM.md, skills), except
        sessions; anything under a folder skills come from; a folder that contains one of those.
        """
        key = node_resolve(path)
        if key.endswith(".jsonl") or is_path_within(posixpath.join(self.agent_dir, SESSIONS_FOLDER), key):
            return False
        if posixpath.basename(key) in CONTEXT_FILE_CANDIDATES and posixpath.dirname(key) in self._ancestors:
            return True
        return any(is_path_within(root, key) or is_path_within(key, root) for root in self._watched_dirs)


def _entry_roots(entry: str, base: str, home: str, cwd: str) -> list[str]:
    """The folders a settings ``skills`` entry can reach: the part before any glob character."""
    value = entry.lstrip("!+-")
    glob = _GLOB_CHARS.search(value)
    prefix = value[: glob.start()] if glob else value
    prefix = prefix.rstrip("/") or "/"
    if prefix.startswith("~"):
        return [resolve_path(prefix, home=home)]
    if posixpath.isabs(prefix):
        return [prefix]
    return [resolve_path(prefix, base), resolve_path(prefix, cwd)]


def touches_skills(paths: Iterable[str]) -> bool:
    """Whether a change to ``paths`` can change the skills (else the cached skills are still right).

    Only context files, SYSTEM.md and APPEND_SYSTEM.md outside any ``skills`` folder are known
    not to: they are read through the reader on every build. Everything else (a SKILL.md, a
    settings file, a folder) may, and so may an unknown change (no paths).
    """
    seen = False
    for path in paths:
        seen = True
        if posixpath.basename(path) not in _READER_FILES or "/skills/" in path:
            return True
    return not seen


def build_prompt(
    project: Project,
    *,
    reader: Reader = fsread.read_text,
    skills: SkillCache | None = None,
    options: PromptOptions | None = None,
) -> PromptSnapshot:
    """The prompt Pi would build in ``project``; ``reader`` supplies open buffers. Never raises for bad files."""
    chosen = options if options is not None else PromptOptions()
    resource_options = ResourceOptions(
        cwd=project.cwd,
        agent_dir=project.agent_dir,
        project_trusted=project.trusted,
        home=project.inputs.home_dir,
        pi_rules=project.pi_rules,
    )
    resources = load_resources(
        resource_options,
        skill_loader=skills.load if skills is not None else None,
        reader=reader,
        settings=project.pi_settings,
    )
    tokens = project.settings.tokens
    counter = choose_counter(
        tokens.estimator, tokens.model_family, chosen.counter_model or resources.settings.effective.default_model
    )
    warnings = [
        *resources.warnings,
        *(d.message + (f" ({d.path})" if d.path else "") for d in resources.skill_diagnostics),
    ]
    note = project.untrusted_note()
    if note is not None:
        warnings.append(note)
    package_dir = chosen.package_dir if chosen.package_dir is not None else project.package_dir
    inputs = inputs_from_resources(resources, selected_tools=chosen.tools, package_dir=package_dir)
    # the default prompt's shape of the Pi release installed there (docs/pi-versions.md)
    rules = rules_for(package_version(chosen.package_dir)) if chosen.package_dir is not None else project.pi_rules
    texts = texts_for(rules)
    prompt = assemble_prompt(inputs, counter.counter, counter_note=counter.note, texts=texts, warnings=warnings)
    return PromptSnapshot(project, resources, prompt, counter, chosen)


# --- what changed ------------------------------------------------------------------------------

ChangeStatus = Literal["added", "changed", "removed"]


@dataclass(frozen=True)
class SectionDelta:
    """One entry of the patch with its cost before and after (``None`` where it did not exist)."""

    name: str
    status: ChangeStatus
    before: TokenPair | None
    after: TokenPair | None

    @property
    def delta(self) -> TokenPair:
        return (self.after or ZERO) - (self.before or ZERO)


@dataclass(frozen=True)
class SectionsChange:
    """What a rebuild changed: Pi's patch, per-section deltas in patch order, totals, the rendered update."""

    patch: Mapping[str, str | None]
    deltas: tuple[SectionDelta, ...]
    total_before: TokenPair
    total_after: TokenPair
    rendered_update: str
    trigger_paths: tuple[str, ...] = field(default=())
    cache: SaveCacheImpact | None = None  # what the change does to the prompt cache (lsp_server.cost.save_cost)


def diff_snapshots(
    before: PromptSnapshot, after: PromptSnapshot, trigger_paths: Iterable[str] = ()
) -> SectionsChange | None:
    """Pi's ``diffSystemPromptSections`` between two builds, with costs; ``None`` when nothing changed."""
    patch = diff_sections(before.section_map(), after.section_map())
    if patch is None:
        return None
    deltas: list[SectionDelta] = []
    for name, text in patch.items():
        old, new = before.section(name), after.section(name)
        status: ChangeStatus = "removed" if text is None else "added" if old is None else "changed"
        deltas.append(
            SectionDelta(
                name,
                status,
                section_tokens(old) if old is not None else None,
                section_tokens(new) if new is not None and text is not None else None,
            )
        )
    rendered = render_system_message_update({"role": "system", "content": "", "sections": dict(patch)})
    return SectionsChange(
        patch=patch,
        deltas=tuple(deltas),
        total_before=before.total,
        total_after=after.total,
        rendered_update=rendered,
        trigger_paths=tuple(sorted(dict.fromkeys(trigger_paths))),
        cache=save_cache_impact(before.prompt.text, after.prompt.text, rendered, after.counter.counter.count),
    )


def reader_with_buffers(buffers: Mapping[str, str], fallback: Reader = fsread.read_text) -> Reader:
    """A reader that answers open buffers (path -> text) and reads the disk for the rest.

    The buffers are a copy taken on the server's thread, so a build may run in a worker thread.
    """

    def read(path: str) -> fsread.ReadResult:
        text = buffers.get(path)
        if text is None:
            return fallback(path)
        return fsread.ReadResult(path, text, None, len(text.encode("utf-8", "surrogatepass")))

    return read
