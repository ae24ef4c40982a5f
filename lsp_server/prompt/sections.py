"""System prompt sections: build, render and diff (Pi 1.6.0 ``core/system-prompt.js``).

Pi 1.6.0 keeps the system prompt as an ordered map *section name -> text* (``preamble``,
``tools``, ``rules``, ``docs``, ``addendum``, ``project_context``, ``skills``, ``cwd``, then the
caller's own sections). The agent diffs that map between requests and records only the changed
sections in the transcript, so the map, not the flat text, is what the model really receives.
pi-context rebuilds the same map from the same inputs: every section derived from the user's
files and options is byte-identical to Pi's, and the authored sentences of the default prompt
come from :mod:`lsp_server.prompt.texts`.

Everything here is pure: options are copied into immutable values first, results are new dicts.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType

from lsp_server.context.model import ContextFile
from lsp_server.js.objects import js_key_order, js_object
from lsp_server.js.strings import js_trim
from lsp_server.prompt.package_dir import find_pi_package_dir, package_paths
from lsp_server.prompt.skills_block import PromptSkill, format_skills_for_prompt
from lsp_server.prompt.texts import OUR_TEXTS, PromptTexts

DEFAULT_SELECTED_TOOLS: tuple[str, ...] = ("read", "bash", "edit", "write")
# Pi tests names with /^[a-z][a-z0-9_-]*$/; in Python ``$`` would also accept a trailing newline.
SECTION_NAME = re.compile(r"[a-z][a-z0-9_-]*")
SKILL_READERS: tuple[str, ...] = ("read", "bash")
TOOLS_FOOTER = OUR_TEXTS.tools_footer  # Pi 1.5.0 and later (PromptTexts.tools_footer)
NO_TOOLS = "(none)"
PROJECT_CONTEXT_HEADING = "Project-specific instructions and guidelines:"

SectionMap = dict[str, str]
SectionPatch = dict[str, str | None]


class SectionNameError(ValueError):
    """A caller-supplied section name Pi rejects; the message is Pi's exact text."""

    def __init__(self, name: str) -> None:
        super().__init__(f"Invalid system prompt section name: {name}")
        self.name = name


def _frozen_map(values: Mapping[str, str] | None) -> Mapping[str, str]:
    return MappingProxyType(dict(values or {}))


@dataclass(frozen=True)
class PromptOptions:
    """Pi's ``BuildSystemPromptOptions`` after normalization: complete, copied, immutable.

    ``package_dir`` is where the ``docs`` section points (Pi's install folder); ``None`` means
    "find it" (:func:`lsp_server.prompt.package_dir.find_pi_package_dir`).
    """

    cwd: str
    custom_prompt: str | None = None
    force_system_prompt: str | None = None
    selected_tools: tuple[str, ...] = DEFAULT_SELECTED_TOOLS
    hidden_tools: tuple[str, ...] = ()
    tool_snippets: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    tool_guidelines: Mapping[str, tuple[str, ...]] = field(default_factory=lambda: MappingProxyType({}))
    prompt_guidelines: tuple[str, ...] = ()
    append_system_prompt: str = ""
    sections: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    context_files: tuple[ContextFile, ...] = ()
    skills: tuple[PromptSkill, ...] = ()
    package_dir: str | None = None

    @classmethod
    def create(
        cls,
        cwd: str,
        *,
        custom_prompt: str | None = None,
        force_system_prompt: str | None = None,
        selected_tools: Iterable[str] | None = None,
        hidden_tools: Iterable[str] = (),
        tool_snippets: Mapping[str, str] | None = None,
        tool_guidelines: Mapping[str, Iterable[str]] | None = None,
        prompt_guidelines: Iterable[str] = (),
        append_system_prompt: str = "",
        sections: Mapping[str, str] | None = None,
        context_files: Iterable[ContextFile] = (),
        skills: Iterable[PromptSkill] = (),
        package_dir: str | None = None,
    ) -> PromptOptions:
        """Copy every collection, so later changes to the caller's lists never reach the prompt."""
        return cls(
            cwd=cwd,
            custom_prompt=custom_prompt,
            force_system_prompt=force_system_prompt,
            selected_tools=DEFAULT_SELECTED_TOOLS if selected_tools is None else tuple(selected_tools),
            hidden_tools=tuple(hidden_tools),
            tool_snippets=_frozen_map(tool_snippets),
            tool_guidelines=MappingProxyType({k: tuple(v) for k, v in (tool_guidelines or {}).items()}),
            prompt_guidelines=tuple(prompt_guidelines),
            append_system_prompt=append_system_prompt,
            sections=_frozen_map(sections),
            context_files=tuple(context_files),
            skills=tuple(skills),
            package_dir=package_dir,
        )

    @property
    def declared_tools(self) -> list[str]:
        """Selected tools the model is told about: hidden ones are callable but not declared."""
        return [name for name in self.selected_tools if name not in self.hidden_tools]


def with_builtin_tool_prompts(options: PromptOptions, texts: PromptTexts = OUR_TEXTS) -> PromptOptions:
    """Fill snippets and guidelines of the built-in tools, as Pi's agent session does.

    The caller's own entries win over the built-in ones for the same tool. Built-in tools with no
    guideline contribute no entry (Pi only registers non-empty guideline lists).
    """
    snippets = {name: tool.snippet for name, tool in texts.tools.items() if tool.snippet}
    guidelines = {name: tool.guidelines for name, tool in texts.tools.items() if tool.guidelines}
    return replace(
        options,
        tool_snippets=MappingProxyType({**snippets, **options.tool_snippets}),
        tool_guidelines=MappingProxyType({**guidelines, **options.tool_guidelines}),
    )


def validate_section_names(names: Iterable[str]) -> None:
    """Raise :class:`SectionNameError` for the first name (in JavaScript key order) Pi rejects."""
    for name in js_key_order(names):
        if not SECTION_NAME.fullmatch(name) or name == "preamble":
            raise SectionNameError(name)


def build_rules(
    declared_tools: Sequence[str],
    tool_guidelines: Mapping[str, Sequence[str]],
    prompt_guidelines: Sequence[str],
    texts: PromptTexts = OUR_TEXTS,
) -> str:
    """The ``rules`` bullets: exploration rule, tool guidelines, caller guidelines, two fixed rules.

    Each candidate is trimmed; empty ones are skipped and a text already listed is not repeated,
    so a caller guideline equal to a fixed rule appears once, at the caller's position.
    """
    rules: list[str] = []
    seen: set[str] = set()

    def add(rule: str) -> None:
        text = js_trim(rule)
        if text and text not in seen:
            seen.add(text)
            rules.append(text)

    has = set(declared_tools)
    if ("bash" in has or "powershell" in has) and not has & {"grep", "find", "ls"}:
        if "bash" in has and "powershell" in has:
            add(texts.exploration.both)
        elif "powershell" in has:
            add(texts.exploration.powershell)
        else:
            add(texts.exploration.bash)
    for name in declared_tools:
        for rule in tool_guidelines.get(name, ()):
            add(rule)
    for rule in prompt_guidelines:
        add(rule)
    for rule in texts.fixed_rules:
        add(rule)
    return "\n".join(f"- {rule}" for rule in rules)


def skill_reader(selected_tools: Sequence[str], declared_tools: Sequence[str]) -> str | None:
    """Which tool the skills block names: a declared reader, else "indirect" for a hidden one, else none."""
    for reader in SKILL_READERS:
        if reader in declared_tools:
            return reader
    if any(reader in selected_tools for reader in SKILL_READERS):
        return "indirect"
    return None


def render_project_context(context_files: Sequence[ContextFile]) -> str:
    """The ``project_context`` body: Pi's heading, then each file verbatim in its own tag."""
    blocks = [
        f'<project_instructions path="{file.path}">\n{file.content}\n</project_instructions>' for file in context_files
    ]
    return "\n\n".join([PROJECT_CONTEXT_HEADING, *blocks])


def render_docs(package_dir: str | None, texts: PromptTexts = OUR_TEXTS) -> str:
    readme, docs, examples = package_paths(package_dir if package_dir is not None else find_pi_package_dir(os.environ))
    return texts.docs.render(readme, docs, examples)


def build_section_bodies(options: PromptOptions, texts: PromptTexts = OUR_TEXTS) -> SectionMap:
    """Section contents before wrapping, in prompt order (custom sections applied)."""
    validate_section_names(options.sections)
    # Pi 1.0.3 and older know no hidden tools: every selected tool is declared (PromptTexts.knows_hidden_tools).
    declared = options.declared_tools if texts.knows_hidden_tools else list(options.selected_tools)
    bodies: SectionMap = {}
    if options.custom_prompt:
        # A SYSTEM.md replaces the default preamble and drops tools, rules and docs entirely.
        bodies["preamble"] = options.custom_prompt
    else:
        bodies["preamble"] = texts.preamble
        listed = [name for name in declared if options.tool_snippets.get(name)]
        tools = "\n".join(f"- {name}: {options.tool_snippets[name]}" for name in listed) if listed else NO_TOOLS
        bodies["tools"] = f"{tools}\n\n{texts.tools_footer}"
        bodies["rules"] = build_rules(declared, options.tool_guidelines, options.prompt_guidelines, texts)
        bodies["docs"] = render_docs(options.package_dir, texts)
    if options.append_system_prompt:
        bodies["addendum"] = options.append_system_prompt
    if options.context_files:
        bodies["project_context"] = render_project_context(options.context_files)
    reader = skill_reader(options.selected_tools, declared)
    if reader is not None and options.skills:
        block = js_trim(format_skills_for_prompt(options.skills, reader, texts))
        if block:
            bodies["skills"] = block
    bodies["cwd"] = options.cwd.replace("\\", "/")
    for name in js_key_order(options.sections):
        content = options.sections[name]
        if content:
            # Assigning an existing key keeps its position: a custom "tools" replaces in place.
            bodies[name] = content
    return bodies


def wrap_section(name: str, body: str) -> str:
    return body if name == "preamble" else f"<{name}>\n{body}\n</{name}>"


def build_sections(options: PromptOptions, texts: PromptTexts = OUR_TEXTS) -> SectionMap:
    """Pi's ``buildSystemPromptSections``: the ordered map of wrapped sections.

    Raises :class:`SectionNameError` for an invalid custom section name (Pi throws the same).
    """
    return {name: wrap_section(name, body) for name, body in build_section_bodies(options, texts).items()}


@dataclass(frozen=True)
class PromptState:
    """What the transcript's system message carries: forced text, or empty text plus sections."""

    content: str
    sections: SectionMap | None = None


def build_prompt_state(options: PromptOptions, texts: PromptTexts = OUR_TEXTS) -> PromptState:
    """A forced prompt (from an extension) is opaque and replaces the sections entirely."""
    if options.force_system_prompt is not None:
        return PromptState(content=options.force_system_prompt)
    return PromptState(content="", sections=build_sections(options, texts))


def render_prompt_text(content: str, sections: Mapping[str, str | None] | None = None) -> str:
    """The prompt as a provider receives it: text content, then every section, blanks dropped, ``\\n\\n``."""
    parts = [content]
    for name in js_key_order(sections or {}):
        text = (sections or {})[name]
        if isinstance(text, str):
            parts.append(text)
    return "\n\n".join(part for part in parts if part)


def build_system_prompt(options: PromptOptions, texts: PromptTexts = OUR_TEXTS) -> str:
    """Pi's ``buildSystemPrompt``: the rendered state."""
    state = build_prompt_state(options, texts)
    return render_prompt_text(state.content, state.sections)


_MISSING = object()


def diff_sections(previous: Mapping[str, str | None], current: Mapping[str, str | None]) -> SectionPatch | None:
    """Pi's ``diffSystemPromptSections``: changed sections in ``current`` order, then removals as ``None``.

    Returns ``None`` when nothing changed (Pi records no system message then).
    """
    patch: SectionPatch = {}
    for name in js_key_order(current):
        text = current[name]
        if previous.get(name, _MISSING) != text:
            patch[name] = text
    for name in js_key_order(previous):
        if name not in current:
            patch[name] = None
    return js_object(patch) if patch else None
