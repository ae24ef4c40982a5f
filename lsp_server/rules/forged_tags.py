"""Text that closes or forges the tags of the prompt it is pasted into.

Pi builds its system prompt from tagged blocks (docs/prompt.md, the spec's section 2.2): every
section but the preamble is ``<name>`` … ``</name>``, each context file sits verbatim inside
``<project_instructions path="…">`` within ``<project_context>``, the skills are listed in
``<available_skills>``, and ``/skill:name`` wraps a skill's body in ``<skill name="…" …>`` …
``</skill>``. A context file, SYSTEM.md, APPEND_SYSTEM.md or skill body that writes one of these
tags makes the model read what follows as another part of the prompt (``</project_context>``
followed by "new system rules"). Chat templates have their own role markers (``<|im_start|>``,
``<<SYS>>``) and models are trained on ``<system>`` blocks; those are forged roles.

:data:`PROMPT_TAGS` is the table of tag names and where each comes from. ``<name>``,
``<description>`` and ``<location>`` (inside ``<available_skills>``) are left out: they are the
common placeholders of instructions (``git checkout <name>``) and close nothing outside Pi's
escaped skill list. Text in an inline code span is quoted, not structure, and is not reported
(wrapping the tag in backticks is one of the fixes); fenced code blocks are reported, since a
fence is only a convention the model may or may not honour.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Tag name (lower case) -> where it comes from; matched case-insensitively.
PI_TAGS: tuple[str, ...] = (
    "tools",  # the sections, in prompt order (the preamble has no tag)
    "rules",
    "docs",
    "addendum",
    "project_context",
    "skills",
    "cwd",
    "project_instructions",  # around each context file
    "available_skills",  # the skill list
    "skill",  # around an invoked skill's body
)
ROLE_TAGS: tuple[str, ...] = ("system", "system_prompt", "system-prompt", "system-reminder")
PROMPT_TAGS: dict[str, str] = {
    **{name: f"Pi's <{name}> tag" for name in PI_TAGS},
    **{name: "a system-role tag" for name in ROLE_TAGS},
}

_TAG = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9_-]*)(?:\s[^<>\n]*)?/?>")
# Chat-template markers: <|im_start|>, <|eot_id|>, <|system|>, and Llama 2's <<SYS>> / <</SYS>>.
_MARKER = re.compile(r"<\|[A-Za-z0-9_]{1,40}\|>|<</?SYS>>")
_CODE_SPAN = re.compile(r"(`+)(.+?)\1")


@dataclass(frozen=True)
class ForgedTag:
    """One tag in the text: its line, code-point columns [start, end), and what it imitates."""

    line: int
    start: int
    end: int
    text: str  # the tag as written
    name: str  # the tag name in lower case, or the marker itself
    imitates: str  # where the real tag comes from (PROMPT_TAGS) or "a chat-template role marker"
    closing: bool
    in_code_block: bool


def _code_spans(line: str) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in _CODE_SPAN.finditer(line)]


def _fence_of(line: str) -> str | None:
    stripped = line.lstrip(" ")
    if len(line) - len(stripped) > 3:
        return None
    for char in "`~":
        if stripped.startswith(char * 3):
            return char * (len(stripped) - len(stripped.lstrip(char)))
    return None


def find_forged_tags(lines: list[str], first_line: int = 0, limit: int = 200) -> list[ForgedTag]:
    """Every prompt tag or role marker in ``lines`` outside inline code spans (at most ``limit``)."""
    found: list[ForgedTag] = []
    fence: str | None = None
    for offset, line in enumerate(lines):
        opened = _fence_of(line)
        if fence is None and opened is not None:
            fence = opened
            continue
        if fence is not None and opened is not None and opened[0] == fence[0] and len(opened) >= len(fence):
            fence = None
            continue
        if "<" not in line:
            continue
        spans = _code_spans(line)

        def quoted(start: int, end: int, spans: list[tuple[int, int]] = spans) -> bool:
            return any(a <= start and end <= b for a, b in spans)

        hits: list[ForgedTag] = []
        for match in _TAG.finditer(line):
            name = match.group(2).lower()
            imitates = PROMPT_TAGS.get(name)
            if imitates is None or quoted(match.start(), match.end()):
                continue
            closing = match.group(1) == "/"
            tag = ForgedTag(
                first_line + offset,
                match.start(),
                match.end(),
                match.group(0),
                name,
                imitates,
                closing,
                fence is not None,
            )
            hits.append(tag)
        for match in _MARKER.finditer(line):
            if quoted(match.start(), match.end()):
                continue
            marker = match.group(0)
            closing = marker.startswith("<</") or "end" in marker.lower()
            tag = ForgedTag(
                first_line + offset,
                match.start(),
                match.end(),
                marker,
                marker,
                "a chat-template role marker",
                closing,
                fence is not None,
            )
            hits.append(tag)
        found.extend(sorted(hits, key=lambda t: t.start))
        if len(found) >= limit:
            return found[:limit]
    return found


def escaped(tag: str) -> str:
    """The tag with its angle brackets written as entities, as the escape fix writes it."""
    return tag.replace("<", "&lt;")


def code_span(tag: str) -> str:
    """The tag wrapped in an inline code span (longer backtick runs when the tag holds backticks)."""
    ticks = "`" * (max((len(m) for m in re.findall(r"`+", tag)), default=0) + 1)
    pad = " " if tag.startswith("`") or tag.endswith("`") else ""
    return f"{ticks}{pad}{tag}{pad}{ticks}"
