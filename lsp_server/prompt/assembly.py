"""From loaded resources to the system prompt Pi would send: sections, their sources, their cost.

The section builder (:mod:`.sections`) knows Pi's format; this module knows where each input
came from. It takes what the resource loader found (SYSTEM.md, APPEND_SYSTEM.md, AGENTS.md files,
skills, the cwd, the tool selection) and returns every section with the files behind it and two
token counts: Pi's own ``chars/4`` (what Pi compares with the window) and the user's chosen
counter (by default the per-script weighted estimate). The editor's section list, the ``prompt``
command and the budget all read this one value.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from lsp_server.base.paths import resolve_path
from lsp_server.context.model import ContextFile
from lsp_server.js.strings import js_len
from lsp_server.prompt.sections import (
    DEFAULT_SELECTED_TOOLS,
    PromptOptions,
    build_prompt_state,
    build_sections,
    render_prompt_text,
    with_builtin_tool_prompts,
)
from lsp_server.prompt.skills_block import PromptSkill
from lsp_server.prompt.texts import OUR_TEXTS, PromptTexts
from lsp_server.tokens.counter import TokenCounter, WeightedCounter
from lsp_server.tokens.pi import pi_text_tokens, pi_tokens_for_chars

if TYPE_CHECKING:
    from lsp_server.context.resources import Resources


@dataclass(frozen=True)
class SourcedText:
    """A text that goes into the prompt and the file it was read from (``None``: given literally)."""

    text: str
    source: str | None = None


@dataclass(frozen=True)
class PromptInputs:
    """Everything the prompt is made of, each with its origin.

    ``selected_tools`` ``None`` means Pi's default selection; ``tool_snippets`` /
    ``tool_guidelines`` are the caller's, merged over the built-in tools' own (ours).
    """

    cwd: str
    system_prompt: SourcedText | None = None
    append: tuple[SourcedText, ...] = ()
    context_files: tuple[ContextFile, ...] = ()
    skills: tuple[PromptSkill, ...] = ()
    selected_tools: tuple[str, ...] | None = None
    hidden_tools: tuple[str, ...] = ()
    tool_snippets: Mapping[str, str] = field(default_factory=dict)
    tool_guidelines: Mapping[str, Sequence[str]] = field(default_factory=dict)
    prompt_guidelines: tuple[str, ...] = ()
    custom_sections: Mapping[str, str] = field(default_factory=dict)
    force_system_prompt: str | None = None
    package_dir: str | None = None

    def prompt_options(self, texts: PromptTexts = OUR_TEXTS) -> PromptOptions:
        options = PromptOptions.create(
            self.cwd,
            custom_prompt=self.system_prompt.text if self.system_prompt is not None else None,
            force_system_prompt=self.force_system_prompt,
            selected_tools=self.selected_tools,
            hidden_tools=self.hidden_tools,
            tool_snippets=self.tool_snippets,
            tool_guidelines=self.tool_guidelines,
            prompt_guidelines=self.prompt_guidelines,
            # Pi's agent session joins the APPEND_SYSTEM texts with a blank line.
            append_system_prompt="\n\n".join(part.text for part in self.append),
            sections=self.custom_sections,
            context_files=self.context_files,
            skills=self.skills,
            package_dir=self.package_dir,
        )
        return with_builtin_tool_prompts(options, texts)


@dataclass(frozen=True)
class AssembledSection:
    """One section as sent, where it comes from, and what it costs."""

    name: str
    text: str
    origin: str  # "default", "custom prompt", "append", "context files", "skills", "cwd", "custom section"
    sources: tuple[str, ...]
    pi_tokens: int
    tokens: int

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "origin": self.origin,
            "sources": list(self.sources),
            "chars": js_len(self.text),
            "piTokens": self.pi_tokens,
            "tokens": self.tokens,
            "text": self.text,
        }


@dataclass(frozen=True)
class AssembledPrompt:
    """The whole system prompt: ordered sections, rendered text and totals.

    ``pi_tokens`` is Pi's estimate of the transcript's system message (the sum of the section
    lengths, as Pi's ``estimateTokens`` counts a system message; tool declarations are not
    included). ``tokens`` is the chosen counter on the rendered text.
    """

    sections: tuple[AssembledSection, ...]
    text: str
    forced: bool
    pi_tokens: int
    tokens: int
    counter: str
    counter_exact: bool
    counter_note: str | None = None
    warnings: tuple[str, ...] = ()

    def section_map(self) -> dict[str, str]:
        return {section.name: section.text for section in self.sections}

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "sections": [section.to_json() for section in self.sections],
            "total": {"chars": js_len(self.text), "piTokens": self.pi_tokens, "tokens": self.tokens},
            "counter": {"name": self.counter, "exact": self.counter_exact},
            "forced": self.forced,
            "warnings": list(self.warnings),
        }
        if self.counter_note:
            out["counter"]["note"] = self.counter_note
        return out


_BUILTIN_ORIGINS = {
    "tools": "default",
    "rules": "default",
    "docs": "default",
    "addendum": "append",
    "project_context": "context files",
    "skills": "skills",
    "cwd": "cwd",
}


def _origin_and_sources(name: str, inputs: PromptInputs) -> tuple[str, tuple[str, ...]]:
    if inputs.custom_sections.get(name):
        return "custom section", ()
    if name == "preamble":
        if inputs.system_prompt is not None and inputs.system_prompt.text:
            source = inputs.system_prompt.source
            return "custom prompt", (source,) if source else ()
        return "default", ()
    if name == "addendum":
        return "append", tuple(part.source for part in inputs.append if part.source)
    if name == "project_context":
        return "context files", tuple(file.path for file in inputs.context_files)
    if name == "skills":
        return "skills", tuple(skill.file_path for skill in inputs.skills if not skill.disable_model_invocation)
    return _BUILTIN_ORIGINS.get(name, "custom section"), ()


def assemble_prompt(
    inputs: PromptInputs,
    counter: TokenCounter | None = None,
    *,
    counter_note: str | None = None,
    texts: PromptTexts = OUR_TEXTS,
    warnings: Iterable[str] = (),
) -> AssembledPrompt:
    """The prompt for ``inputs``, counted with ``counter`` (default: weighted ``gpt``).

    Raises :class:`lsp_server.prompt.sections.SectionNameError` for an invalid custom section
    name; resources loaded from files never produce one.
    """
    count = counter if counter is not None else WeightedCounter()
    options = inputs.prompt_options(texts)
    state = build_prompt_state(options, texts)
    # With a forced prompt the sections are still built (Pi still diffs them); only the text changes.
    sections_map = state.sections if state.sections is not None else build_sections(options, texts)
    sections = tuple(
        AssembledSection(
            name=name,
            text=text,
            origin=origin,
            sources=sources,
            pi_tokens=pi_text_tokens(text),
            tokens=count.count(text),
        )
        for name, text in sections_map.items()
        for origin, sources in (_origin_and_sources(name, inputs),)
    )
    text = render_prompt_text(state.content, state.sections)
    if state.sections is None:
        pi_chars = js_len(state.content)
    else:
        pi_chars = sum(js_len(section) for section in state.sections.values())
    return AssembledPrompt(
        sections=sections,
        text=text,
        forced=state.sections is None,
        pi_tokens=pi_tokens_for_chars(pi_chars),
        tokens=count.count(text),
        counter=count.name,
        counter_exact=count.exact,
        counter_note=counter_note,
        warnings=tuple(warnings),
    )


def resolve_default_tools(entries: Sequence[str] | None) -> tuple[str, ...]:
    """Pi's tool selection from the ``defaultTools`` setting (``+name`` / ``-name`` modify the default)."""
    if entries is None:
        return DEFAULT_SELECTED_TOOLS
    names = [entry for entry in entries if isinstance(entry, str)]
    plain = [entry for entry in names if not entry.startswith(("+", "-"))]
    tools = list(plain if plain or not names else DEFAULT_SELECTED_TOOLS)
    for entry in names:
        if not entry.startswith(("+", "-")):
            continue
        name = entry[1:]
        if entry.startswith("+") and name and name not in tools:
            tools.append(name)
        elif entry.startswith("-") and name in tools:
            tools.remove(name)
    return tuple(tools)


def inputs_from_resources(
    resources: Resources,
    *,
    selected_tools: Sequence[str] | None = None,
    package_dir: str | None = None,
) -> PromptInputs:
    """The prompt inputs Pi's agent session would derive from what the resource loader found."""
    files = resources.prompt_files
    system = None
    if files.system is not None:
        system = SourcedText(files.system.text, files.system.source_path)
    tools = (
        tuple(selected_tools)
        if selected_tools is not None
        else resolve_default_tools(resources.settings.effective.default_tools)
    )
    return PromptInputs(
        cwd=resolve_path(resources.options.cwd),
        system_prompt=system,
        append=tuple(SourcedText(source.text, source.source_path) for source in files.append),
        context_files=resources.context.files,
        skills=resources.skills,
        selected_tools=tools,
        package_dir=package_dir,
    )
