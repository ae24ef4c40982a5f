"""What one session entry holds, read once for the two places that describe an entry in one line.

``pi/sessionTree``'s node previews (:func:`lsp_server.project.followed_sessions.entry_preview`) and the
``pi-context session`` tree (:func:`lsp_server.cli._session_text.entry_summary`) lay an entry out
differently (the CLI names the kind and quotes free text), but read the same fields of the same
kinds: :func:`entry_gist` is that reading, one dispatch on the entry's type, and each front end
only arranges the parts. :func:`one_line` is the shared flattening of free text.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lsp_server.js.values import js_get, js_to_string
from lsp_server.session.messages import content_text


@dataclass(frozen=True)
class EntryGist:
    """The parts of one entry a one-line description is made of."""

    kind: str  # a message's role, else the entry's type ("?" when it has none)
    text: str | None = None  # free text: a message's text, a summary, a session name, a custom message's content
    detail: str | None = None  # a fixed part: "provider/model", the thinking level, "→ <target>", the custom type
    sections: tuple[str, ...] | None = None  # a system message: the names of its sections
    tools: tuple[str, ...] = ()  # an assistant message: the tools it calls


def one_line(text: str, limit: int) -> str:
    """Whitespace runs become one space; cut at ``limit`` characters with an ellipsis."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def entry_gist(entry: Any) -> EntryGist:
    """The parts of ``entry`` (a parsed JSON value of any shape: missing fields read as JavaScript does)."""
    kind = js_get(entry, "type")
    kind_text = kind if isinstance(kind, str) else "?"
    if kind == "message":
        return _message_gist(js_get(entry, "message"))
    if kind in ("compaction", "branch_summary"):
        return EntryGist(kind_text, text=js_to_string(js_get(entry, "summary")))
    if kind == "session_info":
        return EntryGist(kind_text, text=js_to_string(js_get(entry, "name")))
    if kind == "custom_message":
        content = content_text(js_get(entry, "content"), " ")
        return EntryGist(kind_text, text=content, detail=js_to_string(js_get(entry, "customType")))
    if kind == "model_change":
        model = f"{js_to_string(js_get(entry, 'provider'))}/{js_to_string(js_get(entry, 'modelId'))}"
        return EntryGist(kind_text, detail=model)
    if kind == "thinking_level_change":
        return EntryGist(kind_text, detail=js_to_string(js_get(entry, "thinkingLevel")))
    if kind in ("label", "context_edit"):
        return EntryGist(kind_text, detail=f"→ {js_to_string(js_get(entry, 'targetId'))}")
    if kind == "custom":
        return EntryGist(kind_text, detail=js_to_string(js_get(entry, "customType")))
    return EntryGist(kind_text)


def _message_gist(message: Any) -> EntryGist:
    role = js_get(message, "role")
    role_text = js_to_string(role)
    if role == "bashExecution":
        return EntryGist(role_text, text="!" + js_to_string(js_get(message, "command")))
    if role in ("branchSummary", "compactionSummary"):
        return EntryGist(role_text, text=js_to_string(js_get(message, "summary")))
    if role == "system":
        sections = js_get(message, "sections")
        return EntryGist(role_text, sections=tuple(sections) if isinstance(sections, dict) else ())
    content = js_get(message, "content")
    tools: tuple[str, ...] = ()
    if role == "assistant" and isinstance(content, list):
        tools = tuple(js_to_string(js_get(block, "name")) for block in content if js_get(block, "type") == "toolCall")
    return EntryGist(role_text, text=content_text(content, " "), tools=tools)
