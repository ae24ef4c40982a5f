"""The prose of the default system prompt: our own wording, in one place.

Pi's default prompt contains sentences (the preamble, the built-in tools' one-line snippets and
guidelines, the always-on rules, the documentation pointers, the skills-block introduction) that
are Pi's authored text. pi-context reproduces Pi's *structure* byte for byte (section names,
tags, order, bullets, paths, the ``<available_skills>`` block) but writes these sentences itself.
Every such sentence lives here, in one :class:`PromptTexts` value per shape of Pi's default
prompt, and :func:`texts_for` picks the one of the Pi release that runs (``lsp_server/vocabulary/pi_releases.py``):

* :data:`OUR_TEXTS`, Pi 1.5.0 and later: one preamble sentence pair, one snippet per built-in tool,
  two ``edit`` guidelines, two fixed rules, a docs block with the three package-path bullets and
  three more bullets, a three-line skills introduction;
* :data:`EARLIER_TEXTS`, Pi 1.0.4 to 1.4.x (before 1.5.0 tightened the prompt): four ``edit``
  guidelines and four docs bullets, longer sentences;
* :data:`FIRST_TEXTS`, Pi 1.0.3 and older: as :data:`EARLIER_TEXTS`, but hidden tools are not
  known (every selected tool is listed, with its guidelines; the skills hint names it), and a skills
  block asked for a reader other than read names bash (the "indirect" line came with 1.0.4).

Roles, sizes and the number of lines match Pi's.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Literal

from lsp_server.vocabulary.pi_releases import CURRENT, PiRules

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
    advice: tuple[str, ...]  # three bullets (Pi 1.5.0 and later), four before

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
    # The line after the tool list: Pi 1.5.0's short fixed line (a fact, kept as Pi writes it), or
    # before it a sentence of Pi's prose, in our wording.
    tools_footer: str = "Additional tools may be available."
    # The prompt leaves hidden tools out (their lines, guidelines, the skills hint): Pi 1.0.4 and later.
    knows_hidden_tools: bool = True


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


# Pi 1.0.4 to 1.4.x: the prompt before 1.5.0 tightened it. Same tools, rules and skills lines, but a
# longer preamble, four edit guidelines, a shorter docs heading with four bullets of advice, and a
# longer sentence on paths inside a skill. Our own wording, sized like Pi's.
EARLIER_TEXTS = replace(
    OUR_TEXTS,
    preamble=(
        "This session runs in pi, a harness that gives you tools to work on software for the user. Use them to "
        "look through the project, run commands, change code and create the files the task needs."
    ),
    tools=MappingProxyType(
        {
            **OUR_TEXTS.tools,
            "edit": ToolPrompt(
                OUR_TEXTS.tools["edit"].snippet,
                (
                    "Reach for edit when only a precise part of a file changes at all",
                    "To change several places in one file, send one edit call whose edits[] lists each place, "
                    "rather than one call per place",
                    "Every oldText in edits[] is looked up in the file as it was before this call, never in the "
                    "file after an earlier entry; entries must not overlap or nest, so join changes that sit close",
                    "Keep each oldText as short as it can be while it still occurs only once, without runs of "
                    "unchanged lines",
                ),
            ),
        }
    ),
    docs=replace(
        OUR_TEXTS.docs,
        heading="About pi itself (consult these only when the question is about the harness, its SDK or extensions):",
        advice=(
            OUR_TEXTS.docs.advice[0],
            OUR_TEXTS.docs.advice[1],
            "On questions about pi, read its pages and samples first, and follow the .md links before you write code",
            "Read each pi page you open from start to end, and the pages it links to (tui.md for the UI API)",
        ),
    ),
    skills=replace(
        OUR_TEXTS.skills,
        paths=(
            "A path written inside a skill is relative to the skill's own folder (the one holding its SKILL.md, "
            "the dirname of its path): join the two and pass the absolute path to the tool that uses it."
        ),
    ),
    label="pi-context (Pi 1.0.4-1.4)",
    tools_footer="Tools beyond the ones listed here may be at hand as well, depending on what the project sets up.",
)
"""Our texts in the shape of Pi 1.0.4 to 1.4.x's default prompt."""

FIRST_TEXTS = replace(
    EARLIER_TEXTS,
    skills=replace(
        EARLIER_TEXTS.skills,
        reader_lines=MappingProxyType(
            {**EARLIER_TEXTS.skills.reader_lines, "indirect": OUR_TEXTS.skills.reader_lines["bash"]}
        ),
    ),
    label="pi-context (Pi 1.0.3)",
    knows_hidden_tools=False,
)
"""Pi 1.0.3 and older: no hidden tools, and a skills block whose reader is not read names bash."""


def texts_for(rules: PiRules = CURRENT) -> PromptTexts:
    """The default prompt's shape for the Pi release whose rules these are (pi_releases.CHANGES)."""
    if rules.has("prompt-2"):
        return OUR_TEXTS
    if rules.has("hidden-tools"):
        return EARLIER_TEXTS
    return FIRST_TEXTS
