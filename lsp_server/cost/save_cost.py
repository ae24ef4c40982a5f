"""What a save that changes the system prompt costs in prompt-cache terms.

Pi answers a changed section in two ways, depending on the model (pi-ai's ``resolveTranscript``):

* a **live session** on a model with mid-conversation system messages gets Pi's patch as one system
  message at the end of the next request: the whole cached prefix survives, and only the patch (its
  size here) is new input;
* a live session on any other model, and **every new session**, gets the replayed prompt at the start:
  the provider can still read the prompt up to its first differing character (from an earlier request
  with the old prompt), and everything after that point -- the rest of the prompt and, in a live
  session, the whole conversation -- is new input again.

:func:`save_cache_impact` measures both from the old and new rendered prompt and Pi's rendered patch.

For one session, :func:`session_prompt_update` compares the prompt the session *recorded* (its system
messages) with the sections Pi would build from the workspace's files now, as Pi does before each
request of a resumed or reloaded session, and gives Pi's patch and the message it would record; the
caller prices the next request with it (:mod:`lsp_server.project.costs`). The model decides which of
the two cases applies (``mode``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

from lsp_server.js.strings import js_len
from lsp_server.prompt.sections import diff_sections
from lsp_server.prompt.system_messages import current_system_message, render_system_message_update, system_message_text
from lsp_server.tokens.pair import TokenPair
from lsp_server.tokens.pi import pi_text_tokens


@dataclass(frozen=True)
class SaveCacheImpact:
    patch: TokenPair  # the system message a live session with mid-conversation system messages receives
    first_difference: int | None  # UTF-16 offset in the rendered prompt; None when the texts are equal
    kept: TokenPair  # the prompt before the first difference: still a cache hit for new sessions
    resent: TokenPair  # the new prompt from the first difference on: never cached yet


Count = Callable[[str], int]


def _pair(text: str, count: Count) -> TokenPair:
    return TokenPair(pi_text_tokens(text), count(text))


def first_difference(before: str, after: str) -> int | None:
    """The index of the first differing character (``None``: equal texts)."""
    limit = min(len(before), len(after))
    index = 0
    while index < limit and before[index] == after[index]:
        index += 1
    if index == len(before) == len(after):
        return None
    return index


def save_cache_impact(before: str, after: str, patch: str, count: Count) -> SaveCacheImpact:
    """Measure a prompt change: the patch Pi sends live, and where the prompt first differs."""
    index = first_difference(before, after)
    if index is None:
        return SaveCacheImpact(_pair(patch, count), None, _pair(after, count), TokenPair(0, 0))
    return SaveCacheImpact(
        _pair(patch, count), js_len(after[:index]), _pair(after[:index], count), _pair(after[index:], count)
    )


# --- one session: what Pi sends it when it next loads the workspace's files ------------------------------

# Sections pi-context writes in its own words where Pi has built-in prose (docs/prompt.md): the session's
# recording holds Pi's real text for them, so they are taken from it rather than compared.
STOCK_SECTIONS: Final = frozenset({"preamble", "tools", "rules", "docs"})
_SKILLS_BLOCK: Final = "<available_skills>"
UpdateMode = Literal["patch", "replay"]


@dataclass(frozen=True)
class WorkspaceSection:
    name: str
    text: str
    stock: bool  # pi-context's stand-in for Pi's built-in prose (the preamble without SYSTEM.md, tools, rules, docs)


def sections_pi_would_build(recorded: Mapping[str, Any], workspace: Sequence[WorkspaceSection]) -> dict[str, str]:
    """The section map Pi would build for the session from the workspace's files, in the workspace's order.

    Pi's own prose is kept as the session recorded it: a stock section takes the recorded text (and one
    the recording lacks is left out), and the skills block keeps the recorded introduction in front of
    the workspace's ``<available_skills>``. Everything built from the user's files is the workspace's.
    """
    current: dict[str, str] = {}
    for section in workspace:
        old = recorded.get(section.name)
        if section.stock and section.name in STOCK_SECTIONS:
            if isinstance(old, str):
                current[section.name] = old
            continue
        text = section.text
        if section.name == "skills" and isinstance(old, str) and _SKILLS_BLOCK in old and _SKILLS_BLOCK in text:
            text = old[: old.index(_SKILLS_BLOCK)] + text[text.index(_SKILLS_BLOCK) :]
        current[section.name] = text
    for name, old in recorded.items():
        if name in STOCK_SECTIONS and name not in current and isinstance(old, str):
            current[name] = old  # not built here (e.g. no docs without Pi's package): Pi keeps its own
    return current


@dataclass(frozen=True)
class SessionPromptUpdate:
    """Pi's patch for a session whose recorded prompt differs from the workspace's, and what it costs."""

    mode: UpdateMode  # "patch": a system message at the end; "replay": the new prompt at the start
    patch: Mapping[str, str | None]  # empty: the session already has the workspace's prompt
    rendered_update: str
    impact: SaveCacheImpact  # patch size; where the replayed prompt first differs, what is kept and resent
    message: dict[str, Any] | None  # the system message Pi would record (None: nothing to record)


def session_prompt_update(
    messages: Sequence[Any], workspace: Sequence[WorkspaceSection], *, mid_conversation_system: bool, count: Count
) -> SessionPromptUpdate | None:
    """What Pi's ``_preparePromptAndToolLoadout`` would record before the session's next request.

    ``messages``: the session's projected messages (its system messages hold the recorded prompt).
    ``None`` when the session recorded no sections (an older Pi, or a forced prompt): its next request
    already uses the workspace's prompt, there is nothing to patch.
    """
    recorded = current_system_message(messages)
    sections = recorded.get("sections") if recorded is not None else None
    if recorded is None or not isinstance(sections, Mapping) or not sections:
        return None
    mode: UpdateMode = "patch" if mid_conversation_system else "replay"
    patch = diff_sections(sections, sections_pi_would_build(sections, workspace))
    before = system_message_text(recorded)
    if patch is None:
        return SessionPromptUpdate(mode, {}, "", save_cache_impact(before, before, "", count), None)
    message: dict[str, Any] = {"role": "system", "content": "", "sections": dict(patch), "timestamp": 0}
    rendered = render_system_message_update(message)
    replayed = current_system_message([*messages, message])
    after = system_message_text(replayed) if replayed is not None else ""
    return SessionPromptUpdate(mode, dict(patch), rendered, save_cache_impact(before, after, rendered, count), message)
