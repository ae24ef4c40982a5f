"""Everything Pi loads into its prompt at start, as Pi's ``DefaultResourceLoader.reload()`` does.

One call gathers, for a cwd and an agent dir: the settings layers (project only when trusted),
the skills (auto-discovered, configured and ``--skill`` paths), the context files, and the custom
system prompt and append texts. Extensions, prompt templates and themes are out of scope (Pi
loads them too, but they do not change the prompt text pi-context rebuilds).

Project trust is an input here (``project_trusted``); :func:`lsp_server.context.trust.project_trust`
decides it the way Pi does. The skills part is the skills module's discovery; packages (npm/git)
are not resolved.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from lsp_server.base import fsread
from lsp_server.base.paths import home_dir, resolve_path
from lsp_server.context.context_files import ContextFileDiscovery, discover_context_files
from lsp_server.context.model import PiDiagnostic, Skill
from lsp_server.context.pi_settings import LoadedPiSettings, load_pi_settings
from lsp_server.context.skill_discovery import discover_skills
from lsp_server.context.system_prompt_files import PromptFiles, resolve_prompt_files
from lsp_server.vocabulary.pi_releases import CURRENT, PiRules

Reader = Callable[[str], fsread.ReadResult]


@dataclass(frozen=True)
class ResourceOptions:
    """The inputs of Pi's resource loader that shape the prompt (CLI flags and trust)."""

    cwd: str
    agent_dir: str
    project_trusted: bool = True
    system_prompt: str | None = None  # --system-prompt (None: not given)
    append_system_prompt: Sequence[str] | None = None  # --append-system-prompt, repeatable (None: not given)
    no_skills: bool = False  # --no-skills
    no_context_files: bool = False  # --no-context-files
    additional_skill_paths: tuple[str, ...] = ()  # --skill <path>
    home: str | None = None  # for ~/.agents/skills; default $HOME
    prompt_base_dir: str | None = None  # where relative explicit prompt values are looked up (default cwd)
    pi_rules: PiRules = CURRENT  # the Pi release whose loader this is (docs/pi-versions.md)


@dataclass(frozen=True)
class SkillDiscoveryRequest:
    """What skill discovery needs from the loader, in Pi's terms."""

    cwd: str
    agent_dir: str
    home: str
    project_trusted: bool
    global_skill_entries: tuple[str, ...]  # `skills` of <agentDir>/settings.json
    project_skill_entries: tuple[str, ...]  # `skills` of <cwd>/.pi/settings.json (empty when untrusted)
    cli_skill_paths: tuple[str, ...]
    no_skills: bool


SkillResult = tuple[Sequence[Skill], Sequence[PiDiagnostic]]
SkillLoader = Callable[[SkillDiscoveryRequest], SkillResult]


@dataclass(frozen=True)
class Resources:
    """What Pi would put in the prompt, with the detail behind each part."""

    options: ResourceOptions
    settings: LoadedPiSettings
    skills: tuple[Skill, ...]
    skill_diagnostics: tuple[PiDiagnostic, ...]
    context: ContextFileDiscovery
    prompt_files: PromptFiles
    warnings: tuple[str, ...] = field(default=())


def discover_skills_for(request: SkillDiscoveryRequest) -> SkillResult:
    """The skills module's discovery (``loadSkills`` over settings entries, auto dirs, ``--skill``)."""
    result = discover_skills(
        request.cwd,
        request.agent_dir,
        home=request.home,
        project_trusted=request.project_trusted,
        global_skill_entries=list(request.global_skill_entries),
        project_skill_entries=list(request.project_skill_entries),
        cli_skill_paths=list(request.cli_skill_paths),
        no_skills=request.no_skills,
    )
    return tuple(result.skills), tuple(result.diagnostics)


def load_resources(
    options: ResourceOptions,
    *,
    skill_loader: SkillLoader | None = None,
    reader: Reader = fsread.read_text,
    settings: LoadedPiSettings | None = None,
) -> Resources:
    """Pi's resource loading for ``options`` (``DefaultResourceLoader.reload`` without extensions).

    ``skill_loader`` defaults to the skills module's discovery (:func:`discover_skills_for`);
    ``reader`` lets the language server supply open buffers for context and prompt files;
    ``settings`` are Pi's settings when the caller has read them already (for the same cwd, agent
    dir and trust), so one build reads each settings file once.
    """
    cwd = resolve_path(options.cwd)
    agent_dir = resolve_path(options.agent_dir)
    if settings is None:
        settings = load_pi_settings(cwd, agent_dir, project_trusted=options.project_trusted)

    loader = skill_loader if skill_loader is not None else discover_skills_for
    request = SkillDiscoveryRequest(
        cwd=cwd,
        agent_dir=agent_dir,
        home=options.home if options.home is not None else home_dir(os.environ),
        project_trusted=options.project_trusted,
        global_skill_entries=tuple(settings.global_layer.settings.skills),
        project_skill_entries=tuple(settings.project_layer.settings.skills),
        cli_skill_paths=tuple(options.additional_skill_paths),
        no_skills=options.no_skills,
    )
    found, diagnostics = loader(request)
    skills, skill_diagnostics = tuple(found), tuple(diagnostics)

    context = discover_context_files(
        cwd, agent_dir, enabled=not options.no_context_files, reader=reader, rules=options.pi_rules
    )
    prompt_files = resolve_prompt_files(
        cwd,
        agent_dir,
        project_trusted=options.project_trusted,
        system_prompt=options.system_prompt,
        append_system_prompt=options.append_system_prompt,
        base_dir=options.prompt_base_dir,
        reader=reader,
    )
    return Resources(
        options=options,
        settings=settings,
        skills=skills,
        skill_diagnostics=skill_diagnostics,
        context=context,
        prompt_files=prompt_files,
        warnings=(*context.warnings, *prompt_files.warnings),
    )
