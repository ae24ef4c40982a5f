"""The prose of the default system prompt: our own wording, in one place.

Pi's default prompt contains sentences (the preamble, the built-in tools' one-line snippets and
guidelines, the always-on rules, the documentation pointers, the skills-block introduction) that
are Pi's authored text. pi-context reproduces Pi's *structure* byte for byte (section names,
tags, order, bullets, paths, the ``<available_skills>`` block) but writes these sentences itself.
Every such sentence lives here, in one :class:`PromptTexts` value, so that a later option can
swap in the texts of the Pi actually installed without touching the builders.

Roles, sizes and the number of lines match Pi's (one preamble sentence pair, one snippet per
built-in tool, the same number of guidelines per tool, two fixed rules, a docs block with the
three package-path bullets and three more bullets, a three-line skills introduction).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Literal

SkillReader = Literal["read", "bash", "indirect"]


@dataclass(frozen=True)
class ToolPrompt:
    """What a built-in tool contributes to the default prompt: its ``tools`` line and its rules."""

    snippet: str
    guidelines: tuple[str, ...] = ()


@dataclass(frozen=True)
class DocsLabels:
    """The documentation block: a heading line, three path bullets, three bullets of advice."""

    heading: str
    readme: str  # "- <readme>: <pkg>/README.md"
    docs: str  # "- <docs>: <pkg>/docs"
    examples: str  # "- <examples>: <pkg>/examples<examples_suffix>"
    examples_suffix: str
    advice: tuple[str, str, str]

    def render(self, readme_path: str, docs_path: str, examples_path: str) -> str:
        lines = [
            self.heading,
            f"- {self.readme}: {readme_path}",
            f"- {self.docs}: {docs_path}",
            f"- {self.examples}: {examples_path}{self.examples_suffix}",
            *(f"- {line}" for line in self.advice),
        ]
        return "\n".join(lines)


@dataclass(frozen=True)
class SkillsIntro:
    """The three lines in front of ``<available_skills>``: what skills are, how to load one, paths."""

    intro: str
    reader_lines: MappingProxyType[str, str]
    paths: str

    def reader_line(self, reader: str) -> str:
        # Like Pi: "read" and "bash" have their own line, any other value gets the indirect one.
        return self.reader_lines.get(reader, self.reader_lines["indirect"])


@dataclass(frozen=True)
class ExplorationRules:
    """The first rule when a shell tool is the only way to look around the file system."""

    bash: str
    powershell: str
    both: str


@dataclass(frozen=True)
class PromptTexts:
    """Every sentence of the default prompt that is authored prose rather than format."""

    preamble: str
    tools: MappingProxyType[str, ToolPrompt]
    exploration: ExplorationRules
    fixed_rules: tuple[str, str]
    docs: DocsLabels
    skills: SkillsIntro
    label: str = field(default="pi-context")


_ENV_GUIDELINE = "Details about the current model and session are available in the PI_* environment variables."

OUR_TEXTS = PromptTexts(
    preamble=(
        "This session runs in pi, a harness that gives you tools to work on software. "
        "Use them to explore the project, execute commands and make the changes the user asks for."
    ),
    # Same tools, same order as Pi's built-ins (read, bash, edit, write, grep, find, ls, powershell).
    tools=MappingProxyType(
        {
            "read": ToolPrompt(
                "Return a file's contents, optionally from a given line on",
                ("Prefer read over cat, head or sed whenever you need to look at a file.",),
            ),
            "bash": ToolPrompt("Run a shell command in the working directory and get its output", (_ENV_GUIDELINE,)),
            "edit": ToolPrompt(
                "Replace exact passages of an existing file; one call may carry several separate replacements",
                (
                    "Reach for edit when only part of a file changes, and group all changes to one file in one call.",
                    "Every oldText in edits[] has to occur exactly once in the file as it is now: keep each one "
                    "small, never let two overlap, and join neighbouring changes instead of quoting long "
                    "unchanged stretches.",
                ),
            ),
            "write": ToolPrompt(
                "Write a whole file, creating it or replacing what was there",
                ("Keep write for brand-new files or for replacing a file entirely.",),
            ),
            "grep": ToolPrompt("Look for a pattern inside files; honours .gitignore"),
            "find": ToolPrompt("List the files whose paths match a glob; honours .gitignore"),
            "ls": ToolPrompt("Show the entries of one directory"),
            "powershell": ToolPrompt("Run a PowerShell command and get its output", (_ENV_GUIDELINE,)),
        }
    ),
    exploration=ExplorationRules(
        bash="Explore the file system from bash (ls, rg, find)",
        powershell="Explore the file system from PowerShell: list, search and locate files there",
        both="Explore the file system from bash or PowerShell: list, search and locate files there",
    ),
    fixed_rules=(
        "Keep answers short and to the point",
        "Refer to every file you mention by its path",
    ),
    docs=DocsLabels(
        heading=(
            "About pi itself (consult these only when the question is about the harness: its SDK, "
            "extensions, themes, skills or terminal UI):"
        ),
        readme="Manual",
        docs="Reference pages",
        examples="Sample code",
        examples_suffix=" (extensions, custom tools, SDK use)",
        advice=(
            "Paths written as docs/... or examples/... are relative to the two folders above, never to the "
            "working directory",
            "Where to look, by topic: extensions in docs/extensions.md and examples/extensions/; themes in "
            "docs/themes.md; skills in docs/skills.md; prompt templates in docs/prompt-templates.md; terminal "
            "UI components in docs/tui.md; key bindings in docs/keybindings.md; embedding through the SDK in "
            "docs/sdk.md; custom providers in docs/custom-provider.md; adding models in docs/models.md; "
            "packages in docs/packages.md; environment variables in docs/environment-variables.md; MCP "
            "servers in docs/mcp.md; codemode scripts and non-chat models (classifiers, image models) in "
            "docs/codemode.md",
            "Before you change the harness, read the pages and samples that concern the change from start to "
            "end, and follow their links to related pages",
        ),
    ),
    skills=SkillsIntro(
        intro="Skills below are packaged instructions for particular kinds of work.",
        reader_lines=MappingProxyType(
            {
                "read": "When a task fits a skill's description, open its file with the read tool first.",
                "bash": "When a task fits a skill's description, print its file with bash first.",
                "indirect": "When a task fits a skill's description, load its file first.",
            }
        ),
        paths=(
            "Paths inside a skill are relative to the folder that holds its SKILL.md; "
            "make them absolute before passing them to a tool."
        ),
    ),
)
"""The texts pi-context uses by default."""
