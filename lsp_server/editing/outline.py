"""A Markdown file's ``#`` headings as a tree, each with the tokens of its section.

Context files and skills are prompt text: a long AGENTS.md is usually a few headings, and the
question is which of them costs what. Each heading's section runs from its line to the line before
the next heading of the same or a higher level (so it includes its subsections), and is counted
with both counters. Lines are 0-based, columns in code points (the server converts them).

Only ATX headings (``#`` to ``######``, up to three spaces of indent) count; lines inside fenced
code blocks and a leading YAML frontmatter block (SKILL.md) are skipped, as a Markdown renderer
would. Setext headings (a line underlined with ``===``) are rare in these files and are not read.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from lsp_server.tokens.pair import TokenPair
from lsp_server.tokens.pi import pi_text_tokens

_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


@dataclass(frozen=True)
class Heading:
    level: int
    title: str
    line: int  # the heading's line
    end_line: int  # last line of the section (subsections included)
    end_column: int  # length of that line, in code points
    title_start: int  # column where the heading line starts (after indent)
    title_end: int  # length of the heading line
    tokens: TokenPair
    children: tuple[Heading, ...] = ()


def _content_lines(lines: list[str]) -> list[bool]:
    """Per line: whether it can hold a heading (not frontmatter, not inside a code fence)."""
    usable = [True] * len(lines)
    start = 0
    if lines and lines[0].rstrip("\r").lstrip("\ufeff") == "---":
        for index in range(1, len(lines)):
            if lines[index].rstrip("\r") in ("---", "..."):
                for skipped in range(index + 1):
                    usable[skipped] = False
                start = index + 1
                break
    fence: str | None = None
    for index in range(start, len(lines)):
        match = _FENCE.match(lines[index])
        if fence is None:
            if match:
                fence = match.group(1)
                usable[index] = False
            continue
        usable[index] = False
        if match and match.group(1)[0] == fence[0] and len(match.group(1)) >= len(fence):
            rest = lines[index][match.end() :].strip()
            if not rest:
                fence = None
    return usable


def markdown_outline(text: str, count: Callable[[str], int]) -> list[Heading]:
    """The heading tree of ``text``; ``count`` is the configured token counter."""
    lines = text.split("\n")
    usable = _content_lines(lines)
    found: list[tuple[int, int, str, int]] = []  # (line, level, title, indent)
    for index, line in enumerate(lines):
        if not usable[index]:
            continue
        match = _ATX.match(line.rstrip("\r"))
        if match:
            title = (match.group(2) or "").strip()
            found.append((index, len(match.group(1)), title, len(line) - len(line.lstrip(" "))))
    last_line = len(lines) - 1
    while last_line > 0 and not lines[last_line].strip():
        last_line -= 1  # a section ends at its last non-blank line

    def end_of(position: int) -> int:
        level = found[position][1]
        for later in found[position + 1 :]:
            if later[1] <= level:
                end = later[0] - 1
                while end > found[position][0] and not lines[end].strip():
                    end -= 1
                return end
        return max(last_line, found[position][0])

    def build(position: int) -> Heading:
        line, level, title, indent = found[position]
        end = end_of(position)
        section = "\n".join(lines[line : end + 1])
        children: list[Heading] = []
        cursor = position + 1
        while cursor < len(found) and found[cursor][0] <= end and found[cursor][1] > level:
            child = build(cursor)
            children.append(child)
            cursor = _next_sibling(cursor, child.end_line)
        return Heading(
            level=level,
            title=title or "(empty heading)",
            line=line,
            end_line=end,
            end_column=len(lines[end].rstrip("\r")),
            title_start=indent,
            title_end=len(lines[line].rstrip("\r")),
            tokens=TokenPair(pi_text_tokens(section), count(section)),
            children=tuple(children),
        )

    def _next_sibling(cursor: int, end_line: int) -> int:
        while cursor < len(found) and found[cursor][0] <= end_line:
            cursor += 1
        return cursor

    roots: list[Heading] = []
    cursor = 0
    while cursor < len(found):
        heading = build(cursor)
        roots.append(heading)
        cursor = _next_sibling(cursor, heading.end_line)
    return roots
