"""Text that closes or forges the tags of the prompt it is pasted into, in every spelling a model reads.

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
escaped skill list.

The match runs on the text as the model reads it (:mod:`lsp_server.rules.model_reading`: NFKC,
without default-ignorable characters, character references decoded), so a tag is seen however it
is disguised: a soft hyphen or zero-width space inside it, fullwidth or small-form brackets
(``＜/project_context＞``), entities (``&lt;/project_context&gt;``, ``&#60;system&#62;``), spaces
inside the brackets (``</ project_context >``), or a line break inside the tag (``</project_context``
then ``>`` on the next line; at most :data:`MAX_TAG_LINES` lines). Spaced tags carry no attributes
(``< skills and x >`` is a comparison, not a tag). The finding's range is the original text, exact
to the column, across lines when the tag is split.

Text in an inline code span of the original line is quoted, not structure, and is not reported
(wrapping the tag in backticks is one of the fixes); fenced code blocks are reported, since a fence
is only a convention the model may or may not honour.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lsp_server.rules.invisible_chars import is_invisible
from lsp_server.rules.model_reading import ReadLine, read_line, read_text

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
MAX_TAG_LINES = 3  # a tag split by line breaks is followed over at most this many lines
MAX_ATTRIBUTES = 256  # characters of attributes inside one tag
TAIL_CHARS = 4 * 1024  # characters of a line's end read to carry an open tag start (entities make it long)

_NAME = r"[A-Za-z][A-Za-z0-9_-]*"
# A tag as written (attributes allowed), or with spaces inside its brackets (then without attributes).
_TAG = re.compile(
    rf"<(/?)({_NAME})(?:\s[^<>]{{0,{MAX_ATTRIBUTES}}})?/?>"
    rf"|<\s*(/?)\s*({_NAME})\s*/?\s*>"
)
# Chat-template markers: <|im_start|>, <|eot_id|>, <|system|>, and Llama 2's <<SYS>> / <</SYS>>.
_MARKER = re.compile(r"<\|[A-Za-z0-9_]{1,40}\|>|<</?SYS>>")
# What is left open at the end of a line: the start of a tag that a later line may close.
_OPEN_TAIL = re.compile(rf"<\s*/?\s*(?:({_NAME})(?:\s[^<>]{{0,{MAX_ATTRIBUTES}}})?)?$")
_CODE_SPAN = re.compile(r"(`+)(.+?)\1")
_SPACES = re.compile(r"\s+")
# What a tag cannot be read without: what reads as '<', or a reference that may decode to it (``&lt``,
# ``&LT``, a numeric one; a fullwidth or small-form ampersand may start either).
_MAY_OPEN = re.compile("[<\ufe64\uff1c\ufe60\uff06]|&(?:lt|LT|#)")


@dataclass(frozen=True)
class ForgedTag:
    """One tag in the text: from (line, start) to (end_line, end) in code points, and what it imitates."""

    line: int
    start: int
    end: int
    text: str  # the tag as written (lines joined with "\n" when it is split)
    name: str  # the tag name in lower case, or the marker itself
    imitates: str  # where the real tag comes from (PROMPT_TAGS) or "a chat-template role marker"
    closing: bool
    in_code_block: bool
    read: str = ""  # the tag as the model reads it, when that differs from what is written
    end_line: int = -1  # the line the tag ends on (-1: ``line``)

    @property
    def last_line(self) -> int:
        return self.line if self.end_line < 0 else self.end_line


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


# A prompt tag's start by name, or a marker, or an open tag start at the end: what makes a line worth the
# exact reading (a column map); tested on the quick reading first, at C speed.
_NAMED = re.compile(
    r"<\s*/?\s*(?:" + "|".join(re.escape(name) for name in PROMPT_TAGS) + r")(?![A-Za-z0-9_-])", re.IGNORECASE
)


def _worth_reading(line: str) -> int | None:
    """Where the exact reading of a line (with no tag carried into it) must start: 0 when its quick reading
    holds a prompt tag's start or a marker; near its end when it only ends with an open tag start, which a
    later line may close (reading the last :data:`TAIL_CHARS` characters is enough to carry it); ``None``
    when nothing on it can be or start a tag."""
    quick = read_text(line)
    if _NAMED.search(quick) or _MARKER.search(quick):
        return 0
    if _open_tail(quick) is None:
        return None
    return max(0, len(line) - TAIL_CHARS)


def _open_tail(text: str) -> re.Match[str] | None:
    """An unclosed tag start at the end of ``text`` whose name (if it has one yet) is a prompt tag's."""
    tail = _OPEN_TAIL.search(text, max(0, len(text) - MAX_ATTRIBUTES - 64))
    if tail is None or (tail.group(1) is not None and tail.group(1).lower() not in PROMPT_TAGS):
        return None
    return tail


@dataclass
class _Window:
    """The read text of a tag's possible start on earlier lines, then the current line, with their places."""

    pieces: list[tuple[int, ReadLine]]  # (line offset, what was read), in order
    skip: int  # where the carried text starts in the first piece's read text

    def text(self) -> str:
        texts = [self.pieces[0][1].text[self.skip :], *(read.text for _, read in self.pieces[1:])]
        return "\n".join(texts)

    def place(self, start: int, end: int) -> tuple[int, int, int, int]:
        """(line offset, column, end line offset, end column) in the original lines of the window's [start, end)."""
        bounds: list[tuple[int, int, ReadLine, int]] = []  # (window start, line offset, read, offset in read)
        position = 0
        for number, (offset, read) in enumerate(self.pieces):
            skip = self.skip if number == 0 else 0
            bounds.append((position, offset, read, skip))
            position += len(read.text) - skip + 1
        return (*self._at(bounds, start, True), *self._at(bounds, end - 1, False))

    @staticmethod
    def _at(bounds: list[tuple[int, int, ReadLine, int]], index: int, first: bool) -> tuple[int, int]:
        for window_start, offset, read, skip in reversed(bounds):
            if index >= window_start:
                local = index - window_start + skip
                if local >= len(read.text):  # the line break between two pieces
                    return (offset, read.original(len(read.text) - 1, len(read.text))[1]) if read.text else (offset, 0)
                a, b = read.original(local, local + 1)
                return offset, a if first else b
        return bounds[0][1], 0


def find_forged_tags(lines: list[str], first_line: int = 0, limit: int = 200) -> list[ForgedTag]:
    """Every prompt tag or role marker in ``lines`` outside inline code spans (at most ``limit``)."""
    found: list[ForgedTag] = []
    fence: str | None = None
    carried: _Window | None = None
    for offset, line in enumerate(lines):
        opened = _fence_of(line)
        if fence is None and opened is not None:
            fence, carried = opened, None
            continue
        if fence is not None and opened is not None and opened[0] == fence[0] and len(opened) >= len(fence):
            fence, carried = None, None
            continue
        if carried is None:
            if _MAY_OPEN.search(line) is None:
                continue
            worth = _worth_reading(line)
            if worth is None:
                continue
            read = read_line(line, worth)
        else:
            read = read_line(line)
        window = _Window([*carried.pieces, (offset, read)], carried.skip) if carried else _Window([(offset, read)], 0)
        text = window.text()
        hits = [tag for tag in _tags(text, window, lines, first_line, fence is not None) if tag is not None]
        found.extend(sorted(hits, key=lambda t: (t.line, t.start)))
        if len(found) >= limit:
            return found[:limit]
        carried = _carry(text, window)
    return found


def _tags(text: str, window: _Window, lines: list[str], first_line: int, in_block: bool) -> list[ForgedTag | None]:
    tags: list[ForgedTag | None] = []
    for match in _TAG.finditer(text):
        name = (match.group(2) or match.group(4)).lower()
        imitates = PROMPT_TAGS.get(name)
        if imitates is not None:
            closing = (match.group(1) or match.group(3)) == "/"
            tags.append(_tag(match, window, lines, first_line, name, imitates, closing, in_block))
    for match in _MARKER.finditer(text):
        marker = match.group(0)
        closing = marker.startswith("<</") or "end" in marker.lower()
        tags.append(_tag(match, window, lines, first_line, marker, "a chat-template role marker", closing, in_block))
    return tags


def _tag(
    match: re.Match[str],
    window: _Window,
    lines: list[str],
    first_line: int,
    name: str,
    imitates: str,
    closing: bool,
    in_block: bool,
) -> ForgedTag | None:
    """The tag of ``match`` at its original place, or ``None`` when it sits in an inline code span."""
    line, start, end_line, end = window.place(match.start(), match.end())
    if line == end_line and any(a <= start and end <= b for a, b in _code_spans(lines[line])):
        return None
    if line == end_line:
        written = lines[line][start:end]
    else:
        middle = lines[line + 1 : end_line]
        written = "\n".join([lines[line][start:], *middle, lines[end_line][:end]])
    read = _SPACES.sub(" ", match.group(0))
    return ForgedTag(
        first_line + line,
        start,
        end,
        written,
        name,
        imitates,
        closing,
        in_block,
        read if read != written else "",
        first_line + end_line if end_line != line else -1,
    )


def _carry(text: str, window: _Window) -> _Window | None:
    """The window's unclosed tag start (a '<' and maybe a tag name), to be read on with the next line; it may
    reach back at most ``MAX_TAG_LINES - 1`` lines, so that the next window holds at most ``MAX_TAG_LINES``."""
    starts: list[int] = []  # where each piece begins in ``text``
    position = 0
    for number, (_, read) in enumerate(window.pieces):
        starts.append(position)
        position += len(read.text) - (window.skip if number == 0 else 0) + 1
    first = max(0, len(window.pieces) - (MAX_TAG_LINES - 1))
    tail = _open_tail(text[starts[first] :])
    if tail is None:
        return None
    at = starts[first] + tail.start()
    number = max(n for n, start in enumerate(starts) if start <= at)
    skip = at - starts[number] + (window.skip if number == 0 else 0)
    return _Window(window.pieces[number:], skip)


def code_span(tag: str) -> str:
    """The tag wrapped in an inline code span (longer backtick runs when the tag holds backticks)."""
    ticks = "`" * (max((len(m) for m in re.findall(r"`+", tag)), default=0) + 1)
    pad = " " if tag.startswith("`") or tag.endswith("`") else ""
    return f"{ticks}{pad}{tag}{pad}{ticks}"


def visible(text: str) -> str:
    """``text`` with its invisible characters and line breaks written as ``\\uXXXX`` escapes, for a message."""
    out = []
    for char in text:
        if char == "\n":
            out.append("\\n")
        elif is_invisible(char) or char in "\r\t":
            out.append(f"\\u{ord(char):04x}" if ord(char) <= 0xFFFF else f"\\U{ord(char):08x}")
        else:
            out.append(char)
    return "".join(out)
