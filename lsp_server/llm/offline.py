"""The offline summarizer: compaction with no network and no API key.

It implements :class:`~lsp_server.llm.client.LlmClient`, so compaction calls it exactly as it
calls a model. It reads the prompt compaction sends (see :mod:`lsp_server.llm.offline_prompt`),
takes the headings the instructions ask for (so the initial, update, branch and turn-prefix
templates all get their own structure, and a custom template gets its headings too) and fills
each one *extractively*: sentences, commands and file paths copied from the conversation,
chosen by simple cues, never rephrased. It says so in one line of the summary.

What goes where:

* Goal / Original Request: the first user request and, if different, the latest one;
* Constraints & Preferences: user sentences with "must", "never", "prefer", "avoid", ...;
* Done: files written or edited and commands run (from tool calls), and the latest request when the
  conversation ends with the agent's reply to it; In Progress: the latest request while the agent is
  still at work (its last message a tool call or a tool result, or an error since the last edit);
* Blocked: error lines from tool results since the last file change;
* Key Decisions: sentences with "decided", "instead", "because", "use", "chose", ...;
* Next Steps: sentences of the last assistant message with "next", "then", "will", "need to", ...;
* Critical Context (or the turn prefix's Context Needed to Continue): files read and modified,
  the requested focus, and the extractive note (where a template has no such section, the note
  ends the summary).

An update merges the previous summary: its items come first, new ones are added, duplicates
dropped. Output is deterministic and bounded: at most a few items per section, each cut at
240 characters.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

from lsp_server.js.strings import js_sorted
from lsp_server.llm.client import CancelToken, aborted_reply
from lsp_server.llm.offline_prompt import (
    Heading,
    ParsedSummary,
    Turn,
    parse_headings,
    parse_summary,
    parse_summary_prompt,
    parse_tool_calls,
    parse_turns,
)
from lsp_server.llm.types import (
    AssistantReply,
    CompletionRequest,
    RetryCallback,
    TextProgress,
)

EXTRACTIVE_NOTE = (
    "Extractive summary written offline by pi-context without a language model: "
    "the items are copied from the conversation, not interpreted."
)
OFFLINE_PROVIDER = "offline"
OFFLINE_MODEL = "extractive"

MAX_ITEM_CHARS = 240
MAX_FILES_LISTED = 20

Role = Literal[
    "goal",
    "constraints",
    "done",
    "in_progress",
    "blocked",
    "decisions",
    "next_steps",
    "context",
    "progress_so_far",
    "other",
]

_CAPS: dict[Role, int] = {
    "goal": 4,
    "constraints": 6,
    "done": 12,
    "in_progress": 3,
    "blocked": 4,
    "decisions": 8,
    "next_steps": 5,
    "context": 8,
    "progress_so_far": 12,
    "other": 0,
}

_DEFAULT_HEADINGS = (
    Heading(2, "Goal"),
    Heading(2, "Constraints & Preferences"),
    Heading(2, "Progress"),
    Heading(3, "Done"),
    Heading(3, "In Progress"),
    Heading(3, "Blocked"),
    Heading(2, "Key Decisions"),
    Heading(2, "Next Steps"),
    Heading(2, "Critical Context"),
)

_CONSTRAINT_CUE = re.compile(
    r"\b(?:must|should(?:n't| not)?|don't|do not|never|always|prefer|avoid|only|without|make sure|keep)\b",
    re.IGNORECASE,
)
_DECISION_CUE = re.compile(
    r"\b(?:decided|decide|decision|instead|because|chose|choose|going with|switch(?:ed)? to|use|using)\b",
    re.IGNORECASE,
)
_NEXT_CUE = re.compile(
    r"\b(?:next|then|will|todo|to do|need to|needs to|remaining|still|plan to|going to)\b", re.IGNORECASE
)
_ERROR_CUE = re.compile(
    r"\b(?:error|errors|failed|failure|fails|exception|traceback|cannot|can't|denied|not found|panic)\b",
    re.IGNORECASE,
)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z`\"'(\[])")
_WS = re.compile(r"\s+")


@dataclass
class _Facts:
    """What the conversation says, in conversation order."""

    user_requests: list[str] = field(default_factory=list)
    constraints: list[str] = field(default_factory=list)
    done: list[str] = field(default_factory=list)
    decisions: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    next_steps: list[str] = field(default_factory=list)
    read_files: list[str] = field(default_factory=list)
    modified_files: list[str] = field(default_factory=list)
    embedded: list[ParsedSummary] = field(default_factory=list)
    answered: bool = False  # the conversation ends with the agent's reply to the latest request


class OfflineSummarizer:
    """An :class:`~lsp_server.llm.client.LlmClient` that summarizes extractively, on this machine."""

    provider = OFFLINE_PROVIDER

    def __repr__(self) -> str:
        return "OfflineSummarizer()"

    async def complete(
        self,
        request: CompletionRequest,
        *,
        cancel: CancelToken | None = None,
        on_text_delta: TextProgress | None = None,
        on_retry: RetryCallback | None = None,
    ) -> AssistantReply:
        if cancel is not None and cancel.cancelled:
            return aborted_reply(model=OFFLINE_MODEL, provider=OFFLINE_PROVIDER)
        text = summarize_extractively(_prompt_text(request))
        if on_text_delta is not None:
            on_text_delta(len(text))
        return AssistantReply(text=text, stop_reason="stop", model=OFFLINE_MODEL, provider=OFFLINE_PROVIDER)

    async def aclose(self) -> None:
        return None


def _prompt_text(request: CompletionRequest) -> str:
    """The last user message's text: the summary prompt."""
    for message in reversed(list(request.messages)):
        if message.get("role") != "user":
            continue
        content = message.get("content")
        if isinstance(content, str):
            return content
        if isinstance(content, list):
            return "".join(
                b["text"]
                for b in content
                if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)
            )
    return ""


def summarize_extractively(prompt: str) -> str:
    """A summary of ``prompt`` (a compaction or branch-summary prompt) in the structure it asks for."""
    parsed = parse_summary_prompt(prompt)
    headings = parse_headings(parsed.instructions) or list(_DEFAULT_HEADINGS)
    facts = _extract(parse_turns(parsed.conversation))
    previous = [parse_summary(parsed.previous_summary)] if parsed.previous_summary else []
    previous.extend(facts.embedded)
    items = _section_items(facts, previous, parsed.focus)

    lines: list[str] = []
    note_placed = False
    for index, heading in enumerate(headings):
        is_parent = index + 1 < len(headings) and headings[index + 1].level > heading.level
        if lines and not lines[-1].startswith("#"):
            lines.append("")
        lines.append(f"{'#' * heading.level} {heading.title}")
        if is_parent:
            continue
        role = heading_role(heading.title)
        section = list(items.get(role, []))
        if role == "context" and not note_placed:
            section.append(EXTRACTIVE_NOTE)
            note_placed = True
        lines.extend(_render(role, section))
    if not note_placed:
        lines.extend(["", f"Note: {EXTRACTIVE_NOTE}"])
    return "\n".join(lines)


def heading_role(title: str) -> Role:
    """Which kind of content a heading asks for, from its title."""
    t = title.casefold().strip()
    if t in ("goal", "goals", "original request"):
        return "goal"
    if "constraint" in t or "preference" in t:
        return "constraints"
    if t == "done":
        return "done"
    if t == "in progress":
        return "in_progress"
    if t == "blocked":
        return "blocked"
    if "decision" in t:
        return "decisions"
    if "next step" in t:
        return "next_steps"
    if t in ("progress so far", "early progress"):
        return "progress_so_far"
    if "context" in t:
        return "context"
    return "other"


def _render(role: Role, section: list[str]) -> list[str]:
    if not section:
        return ["- (none)"]
    if role == "next_steps":
        return [f"{n}. {item}" for n, item in enumerate(section, 1)]
    marker = {"done": "- [x] ", "in_progress": "- [ ] "}.get(role, "- ")
    return [marker + item for item in section]


# -- extraction --------------------------------------------------------------------------------


def _extract(turns: list[Turn]) -> _Facts:
    facts = _Facts()
    last_assistant = ""
    for turn in turns:
        if turn.role == "user":
            inner = _embedded_summary(turn.text)
            if inner is not None:
                facts.embedded.append(parse_summary(inner))
                continue
            if turn.text.strip():
                facts.answered = False
                facts.user_requests.append(turn.text)
                facts.constraints.extend(s for s in _sentences(turn.text) if _CONSTRAINT_CUE.search(s))
                facts.decisions.extend(s for s in _sentences(turn.text) if _DECISION_CUE.search(s))
        elif turn.role == "assistant":
            if turn.text.strip():
                last_assistant = turn.text
                facts.answered = True
            facts.decisions.extend(s for s in _sentences(turn.text) if _DECISION_CUE.search(s))
        elif turn.role == "tool_calls":
            facts.answered = False  # the agent is still at work
            _add_tool_calls(facts, turn.text)
        elif turn.role == "tool_result":
            facts.answered = False
            error = next((line for line in turn.text.split("\n") if _ERROR_CUE.search(line)), None)
            if error is not None and error.strip():
                facts.errors.append(error)
    facts.next_steps = [s for s in _sentences(last_assistant) if _NEXT_CUE.search(s)]
    return facts


def _add_tool_calls(facts: _Facts, text: str) -> None:
    for call in parse_tool_calls(text):
        path = call.arguments.get("path")
        path = path if isinstance(path, str) and path else None
        if call.name == "read" and path:
            facts.read_files.append(path)
        elif call.name in ("write", "edit") and path:
            facts.errors.clear()  # a later change may well have dealt with them; only newer errors block
            facts.modified_files.append(path)
            facts.done.append(f"{'Wrote' if call.name == 'write' else 'Edited'} `{path}`")
        elif call.name == "bash" and isinstance(call.arguments.get("command"), str):
            command = _clip(_WS.sub(" ", call.arguments["command"]).strip(), 160)
            facts.done.append(f"Ran `{command}`")


def _embedded_summary(text: str) -> str | None:
    """The summary inside a compaction/branch-summary message the conversation contains, if any."""
    start = text.find("\n\n<summary>\n")
    end = text.rfind("</summary>")
    if start < 0 or end < start or text[end + len("</summary>") :].strip():
        return None
    return text[start + len("\n\n<summary>\n") : end]


def _section_items(facts: _Facts, previous: list[ParsedSummary], focus: str | None) -> dict[Role, list[str]]:
    def prev(*titles: str) -> list[str]:
        return [item for p in previous for t in titles for item in p.sections.get(t, [])]

    requests = [_headline(r) for r in facts.user_requests]
    goals = requests[:1] + requests[-1:] if requests else []
    read_only, modified = _file_lists(facts, previous)
    context = prev("critical context", "context needed to continue", "context for suffix")
    context = [c for c in context if not c.startswith(("Files read:", "Files modified:", "Requested focus:"))]
    if read_only:
        context.append("Files read: " + _file_line(read_only))
    if modified:
        context.append("Files modified: " + _file_line(modified))
    if focus:
        context.append(f"Requested focus: {_clip(_WS.sub(' ', focus), MAX_ITEM_CHARS)}")
    decisions = [_decision(s) for s in facts.decisions]
    errors = [_clip(e.strip(), MAX_ITEM_CHARS) for e in facts.errors]
    next_steps = [_clip(s, MAX_ITEM_CHARS) for s in facts.next_steps]
    # A request the agent answered last is done, not in progress: it and any earlier summary's
    # in-progress items move to Done, and Next Steps come only from what the reply says is next.
    # A reply that announces more work ("Next I will ...") has not finished the request.
    answered = facts.answered and not facts.errors and not next_steps
    if not next_steps and requests and not answered:
        next_steps = [f"Continue with the latest request: {requests[-1]}"]
    carried = prev("in progress")
    finished = [*carried, *requests[-1:]] if answered else []

    items: dict[Role, list[str]] = {
        "goal": _merge(prev("goal", "goals", "original request"), goals, keep="first", cap=_CAPS["goal"]),
        "constraints": _merge(
            prev("constraints & preferences"),
            [_clip(s, MAX_ITEM_CHARS) for s in facts.constraints],
            cap=_CAPS["constraints"],
        ),
        "done": _merge(prev("done", "progress so far", "early progress"), facts.done + finished, cap=_CAPS["done"]),
        "in_progress": [] if answered else _merge(carried, requests[-1:], cap=_CAPS["in_progress"]),
        "blocked": _merge(prev("blocked"), errors, cap=_CAPS["blocked"]),
        "decisions": _merge(prev("key decisions"), decisions, cap=_CAPS["decisions"]),
        "next_steps": _merge([], next_steps or prev("next steps"), cap=_CAPS["next_steps"]),
        "context": _merge([], context, cap=_CAPS["context"]),
        "progress_so_far": _merge(
            prev("progress so far", "early progress", "done"),
            facts.done + decisions + errors,
            cap=_CAPS["progress_so_far"],
        ),
    }
    return items


def _file_lists(facts: _Facts, previous: list[ParsedSummary]) -> tuple[list[str], list[str]]:
    """Read-only and modified files, sorted like Pi's lists (a file both read and written is modified)."""
    modified = set(facts.modified_files)
    read = set(facts.read_files)
    for p in previous:
        modified.update(p.modified_files)
        read.update(p.read_files)
    return js_sorted(read - modified), js_sorted(modified)


def _file_line(paths: list[str]) -> str:
    shown = ", ".join(f"`{p}`" for p in paths[:MAX_FILES_LISTED])
    more = len(paths) - MAX_FILES_LISTED
    return shown + (f" and {more} more" if more > 0 else "")


def _decision(sentence: str) -> str:
    """``**what**: why`` when the sentence gives a reason with "because", else the sentence in bold."""
    sentence = _clip(sentence, MAX_ITEM_CHARS)
    what, sep, why = sentence.partition(" because ")
    if sep and what.strip():
        return f"**{what.strip().rstrip(',')}**: because {why.strip()}"
    return f"**{sentence}**"


def _merge(old: Iterable[str], new: Iterable[str], *, cap: int, keep: Literal["first", "last"] = "last") -> list[str]:
    """Old items then new ones, without duplicates or the extractive note, at most ``cap`` of them."""
    seen: set[str] = set()
    merged: list[str] = []
    for item in [*old, *new]:
        key = _WS.sub(" ", item).strip().casefold()
        if not key or key in seen or EXTRACTIVE_NOTE.casefold() in key:
            continue
        seen.add(key)
        merged.append(item)
    return merged[:cap] if keep == "first" else merged[-cap:] if cap else []


def _sentences(text: str) -> list[str]:
    """Sentences of prose lines, code blocks skipped, whitespace collapsed, each cut to size."""
    out: list[str] = []
    in_code = False
    for line in text.split("\n"):
        if line.lstrip().startswith("```"):
            in_code = not in_code
            continue
        if in_code or not line.strip():
            continue
        for sentence in _SENTENCE_END.split(line.strip()):
            sentence = _WS.sub(" ", sentence).strip().lstrip("-*> ").strip()
            if len(sentence) >= 8:
                out.append(_clip(sentence, MAX_ITEM_CHARS))
    return out


def _headline(request: str) -> str:
    """A request's first paragraph on one line."""
    first = request.strip().split("\n\n", 1)[0]
    return _clip(_WS.sub(" ", first).strip(), MAX_ITEM_CHARS)


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"
