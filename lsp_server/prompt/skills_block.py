"""The skills block of the system prompt (Pi's ``formatSkillsForPrompt``).

The block is how the model learns which skills exist: a short introduction (our prose, see
:mod:`lsp_server.prompt.texts`) followed by Pi's exact ``<available_skills>`` XML. The XML part,
the escaping and the two leading newlines are Pi's format and are reproduced byte for byte.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from lsp_server.prompt.texts import OUR_TEXTS, PromptTexts


class PromptSkill(Protocol):
    """What the block needs from a skill (``lsp_server.context.model.Skill`` satisfies it)."""

    @property
    def name(self) -> str: ...
    @property
    def description(self) -> str: ...
    @property
    def file_path(self) -> str: ...
    @property
    def disable_model_invocation(self) -> bool: ...


def escape_xml(text: str) -> str:
    """Pi's ``escapeXml`` of a skill's name, description and location, in Pi's order: ``&`` first so the
    other entities are not escaped twice. Also what the ``prompt/forged-tag`` rule and its quick fix
    say Pi sends for a description."""
    return (
        text.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace('"', "&quot;")
        .replace("'", "&apos;")
    )


def format_skills_for_prompt(
    skills: Iterable[PromptSkill], reader: str = "read", texts: PromptTexts = OUR_TEXTS
) -> str:
    """The block for the skills the model may invoke itself, or ``""`` when there are none.

    Skills with ``disable_model_invocation`` are left out (they stay reachable as ``/skill:name``).
    ``reader`` is the tool the introduction names: ``"read"``, ``"bash"``, anything else reads as
    "indirect" (a reader exists but is hidden from the model). The text starts with two newlines,
    as Pi's does, because Pi's flat prompt of older versions appended it directly.
    """
    visible = [skill for skill in skills if not skill.disable_model_invocation]
    if not visible:
        return ""
    lines = [
        "\n\n" + texts.skills.intro,
        texts.skills.reader_line(reader),
        texts.skills.paths,
        "",
        "<available_skills>",
    ]
    for skill in visible:
        lines.append("  <skill>")
        lines.append(f"    <name>{escape_xml(skill.name)}</name>")
        lines.append(f"    <description>{escape_xml(skill.description)}</description>")
        lines.append(f"    <location>{escape_xml(skill.file_path)}</location>")
        lines.append("  </skill>")
    lines.append("</available_skills>")
    return "\n".join(lines)
