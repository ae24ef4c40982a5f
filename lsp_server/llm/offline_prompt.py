"""Reading the summary prompts Pi's compaction builds, for the offline summarizer.

A prompt is one of (pi-behavior.md §7.4, §10.3):

* ``<conversation>\\n…\\n</conversation>\\n\\n`` [``<previous-summary>\\n…\\n</previous-summary>\\n\\n``]
  + instructions (history and branch summaries);
* ``# Conversation\\n…\\n\\n# Instructions\\n`` + instructions (turn prefix, Pi 1.6.0);

with ``\\n\\nAdditional focus: <text>`` possibly at the end. The conversation is Pi's serialized form
(§8.2): parts joined by a blank line, each starting ``[User]: ``, ``[Assistant]: ``,
``[Assistant tool calls]: `` or ``[Tool result]: `` (:mod:`lsp_server.llm.transcript`). Everything
here is parsing only: no wording of Pi's templates is needed, the headings are read from whatever
instructions arrive.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from lsp_server.llm.transcript import MARKERS, TurnRole

_TURN_PREFIX_OPEN = "# Conversation\n"
_TURN_PREFIX_SPLIT = "\n\n# Instructions\n"
_CONV_OPEN = "<conversation>\n"
_CONV_CLOSE = "\n</conversation>\n\n"
_PREV_OPEN = "<previous-summary>\n"
_PREV_CLOSE = "\n</previous-summary>\n\n"
_FOCUS = "\n\nAdditional focus: "


@dataclass(frozen=True)
class SummaryPrompt:
    conversation: str
    instructions: str
    previous_summary: str | None = None
    focus: str | None = None


@dataclass(frozen=True)
class Turn:
    role: TurnRole
    text: str


@dataclass(frozen=True)
class ToolCall:
    name: str
    arguments: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Heading:
    level: int  # 2 for "##", 3 for "###"
    title: str


def parse_summary_prompt(text: str) -> SummaryPrompt:
    """Split a summary prompt into conversation, previous summary, instructions and focus."""
    conversation, previous, instructions = text, None, ""
    if text.startswith(_TURN_PREFIX_OPEN) and _TURN_PREFIX_SPLIT in text:
        cut = text.rfind(_TURN_PREFIX_SPLIT)
        conversation = text[len(_TURN_PREFIX_OPEN) : cut]
        instructions = text[cut + len(_TURN_PREFIX_SPLIT) :]
    elif text.startswith(_CONV_OPEN) and _CONV_CLOSE in text:
        rest_at = text.rfind(_CONV_CLOSE + _PREV_OPEN) if _PREV_CLOSE in text else -1
        if rest_at >= 0:
            prev_end = text.rfind(_PREV_CLOSE)
            conversation = text[len(_CONV_OPEN) : rest_at]
            previous = text[rest_at + len(_CONV_CLOSE) + len(_PREV_OPEN) : prev_end]
            instructions = text[prev_end + len(_PREV_CLOSE) :]
        else:
            cut = text.rfind(_CONV_CLOSE)
            conversation = text[len(_CONV_OPEN) : cut]
            instructions = text[cut + len(_CONV_CLOSE) :]
    focus = None
    if _FOCUS in instructions:
        cut = instructions.rfind(_FOCUS)
        focus = instructions[cut + len(_FOCUS) :].strip() or None
        instructions = instructions[:cut]
    return SummaryPrompt(conversation, instructions, previous, focus)


def parse_turns(conversation: str) -> list[Turn]:
    """The serialized conversation's parts, in order (text before the first marker is ignored)."""
    turns: list[tuple[TurnRole, list[str]]] = []
    previous_blank = True
    for line in conversation.split("\n"):
        role = _marker_role(line) if previous_blank else None
        if role is not None:
            if turns and turns[-1][1] and turns[-1][1][-1] == "":
                turns[-1][1].pop()  # the blank line that separated the parts
            marker_len = next(len(m) for m, r in MARKERS if r == role)
            turns.append((role, [line[marker_len:]]))
        elif turns:
            turns[-1][1].append(line)
        previous_blank = line == ""
    return [Turn(role, "\n".join(lines)) for role, lines in turns]


def _marker_role(line: str) -> TurnRole | None:
    for marker, role in MARKERS:
        if line.startswith(marker):
            return role
    return None


_CALL_NAME = re.compile(r"([^\s(;]+)\(")
_ARG_KEY = re.compile(r"([^=,)]+)=")
_DECODER = json.JSONDecoder()


def parse_tool_calls(text: str) -> list[ToolCall]:
    """``name(k=<JSON>, k2=<JSON>); other(...)`` → calls; stops quietly at anything it cannot read."""
    calls: list[ToolCall] = []
    i, n = 0, len(text)
    while i < n:
        match = _CALL_NAME.match(text, i)
        if match is None:
            break
        name, i = match.group(1), match.end()
        arguments: dict[str, Any] = {}
        while i < n and text[i] != ")":
            key = _ARG_KEY.match(text, i)
            if key is None:
                return calls
            try:
                value, i = _DECODER.raw_decode(text, key.end())
            except ValueError:
                return calls
            arguments[key.group(1)] = value
            if text.startswith(", ", i):
                i += 2
        if i >= n:
            return calls
        calls.append(ToolCall(name, arguments))
        i += 1
        if not text.startswith("; ", i):
            break
        i += 2
    return calls


_HEADING = re.compile(r"^(#{2,3}) +(.+?)\s*$")


def parse_headings(instructions: str) -> list[Heading]:
    """The ``##``/``###`` headings the instructions ask for, in order (duplicates dropped)."""
    seen: set[tuple[int, str]] = set()
    headings: list[Heading] = []
    for line in instructions.split("\n"):
        match = _HEADING.match(line)
        if match is None:
            continue
        heading = Heading(len(match.group(1)), match.group(2))
        if (heading.level, heading.title.casefold()) not in seen:
            seen.add((heading.level, heading.title.casefold()))
            headings.append(heading)
    return headings


_FILE_TAG = re.compile(r"<(read-files|modified-files)>\n(.*?)\n</\1>", re.DOTALL)
_SKIPPED_LINE = re.compile(r"^\s*(?:-{3,}|\*\*[^*]+\*\*:?)\s*$")  # rules and bold labels between sections
_ITEM_MARKER = re.compile(r"^\s*(?:[-*] \[[ xX]\] |[-*] |\d+[.)] )")


@dataclass
class ParsedSummary:
    """A markdown summary read back: items per heading title (casefolded) and its file lists."""

    sections: dict[str, list[str]] = field(default_factory=dict)
    read_files: list[str] = field(default_factory=list)
    modified_files: list[str] = field(default_factory=list)


def parse_summary(text: str) -> ParsedSummary:
    """Read an earlier summary (ours or a model's) so an update can keep what it said."""
    parsed = ParsedSummary()
    for match in _FILE_TAG.finditer(text):
        target = parsed.read_files if match.group(1) == "read-files" else parsed.modified_files
        target.extend(line.strip() for line in match.group(2).split("\n") if line.strip())
    text = _FILE_TAG.sub("", text)
    current: list[str] | None = None
    for line in text.split("\n"):
        heading = _HEADING.match(line)
        if heading is not None:
            current = parsed.sections.setdefault(heading.group(2).casefold(), [])
            continue
        if current is None or not line.strip() or _SKIPPED_LINE.match(line):
            continue
        item = _ITEM_MARKER.sub("", line, count=1).strip()
        if item and item != "(none)":
            current.append(item)
    return parsed
