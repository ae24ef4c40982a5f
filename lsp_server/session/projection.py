"""Session tree -> the messages of the next request (Pi's ``buildSessionProjection``).

From the path to the leaf, Pi builds the model's context in three steps, each reproduced here
because each changes what the model sees:

1. **Selection** (``buildContextEntries``): with a compaction on the path, only the *latest* one
   counts: the compaction itself, then the entries before it from ``firstKeptEntryId`` on
   (without stored system messages, the compaction carries the prompt state), then everything
   after it. Metadata entries stay in the list (they project to nothing).
2. **Edits** (``context_edit``): the latest edit per target among the *selected* entries replaces
   that entry's content or removes its messages; an edit that fell before the kept range is gone.
3. **Projection**: each selected entry becomes zero, one or two agent messages (the compaction
   gives its stored system message and a summary; an older compaction inside the kept range
   gives nothing).

Settings (thinking level, model) are read along the *whole* path, hidden parts included.
Every entry keeps its provenance (:class:`ProjectedEntry`), which is what a context view needs
to show "this message came from line 812" and what compaction needs to find cut points.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from lsp_server.js.values import UNDEFINED, index_where, is_nullish, js_get, js_truthy
from lsp_server.session.messages import (
    Message,
    create_branch_summary_message,
    create_compaction_summary_message,
    create_custom_message,
)
from lsp_server.session.raw import Entry
from lsp_server.session.tree import EntryIndex, build_index, build_path


@dataclass(frozen=True)
class ModelRef:
    provider: Any
    model_id: Any

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.provider is not UNDEFINED:
            out["provider"] = self.provider
        if self.model_id is not UNDEFINED:
            out["modelId"] = self.model_id
        return out


@dataclass(frozen=True)
class SessionSettings:
    thinking_level: Any  # "off" unless a thinking_level_change says otherwise
    model: ModelRef | None


@dataclass(frozen=True)
class ProjectedEntry:
    """A selected entry and the messages it contributes (possibly none)."""

    source_entry: Entry
    messages: list[Message]


@dataclass(frozen=True)
class SessionProjection:
    entries: list[ProjectedEntry]
    messages: list[Message]
    thinking_level: Any
    model: ModelRef | None


@dataclass(frozen=True)
class SessionContext:
    """Pi's ``SessionContext``: the messages of the next request and the settings in force."""

    messages: list[Message]
    thinking_level: Any
    model: ModelRef | None

    def to_json(self) -> dict[str, Any]:
        return {
            "messages": self.messages,
            "thinkingLevel": self.thinking_level,
            "model": self.model.to_json() if self.model else None,
        }


def session_settings(path: Sequence[Entry]) -> SessionSettings:
    """Thinking level and model along ``path``: the latest change wins, assistant messages included.

    Read from the end: the walk stops at the latest of each (a long session's path has tens of
    thousands of entries, its latest model and thinking level are near its end).
    """
    thinking_level: Any = _UNSET
    model: Any = _UNSET
    for entry in reversed(path):
        kind = entry.get("type") if isinstance(entry, dict) else None
        if kind == "message" and model is _UNSET:
            message = entry.get("message", UNDEFINED)
            if js_get(message, "role") == "assistant":
                model = ModelRef(js_get(message, "provider"), js_get(message, "model"))
        elif kind == "thinking_level_change" and thinking_level is _UNSET:
            thinking_level = js_get(entry, "thinkingLevel")
        elif kind == "model_change" and model is _UNSET:
            model = ModelRef(js_get(entry, "provider"), js_get(entry, "modelId"))
        if model is not _UNSET and thinking_level is not _UNSET:
            break
    return SessionSettings("off" if thinking_level is _UNSET else thinking_level, None if model is _UNSET else model)


_UNSET: Any = object()  # not found yet (UNDEFINED is a value a change may set)


def _is_system_message_entry(entry: Entry) -> bool:
    return bool(js_get(entry, "type") == "message" and js_get(js_get(entry, "message"), "role") == "system")


def entry_to_context_messages(entry: Entry) -> list[Message]:
    """Pi's ``sessionEntryToContextMessages``: what one selected entry contributes, unedited."""
    kind = _type(entry)
    if kind == "message":
        message = entry.get("message")
        if not isinstance(message, dict):
            return []
        if message.get("content") is not None:  # present and not null: the message as it is
            return [message]
        role = message.get("role")
        if role == "system":
            return [{**message, "content": ""}]
        if role in ("user", "assistant", "toolResult"):
            return [{**message, "content": []}]
        return [message]
    if kind == "custom_message":
        content = js_get(entry, "content")
        return [
            create_custom_message(
                js_get(entry, "customType"),
                [] if is_nullish(content) else content,
                js_get(entry, "display"),
                js_get(entry, "details"),
                js_get(entry, "timestamp"),
            )
        ]
    if kind == "branch_summary" and js_truthy(js_get(entry, "summary")):
        return [
            create_branch_summary_message(js_get(entry, "summary"), js_get(entry, "fromId"), js_get(entry, "timestamp"))
        ]
    if kind == "compaction":
        summary = create_compaction_summary_message(
            js_get(entry, "summary"), js_get(entry, "tokensBefore"), js_get(entry, "timestamp")
        )
        system_message = js_get(entry, "systemMessage")
        return [system_message, summary] if js_truthy(system_message) else [summary]
    return []


def build_context_entries(
    entries: Sequence[Entry], leaf_id: Any = UNDEFINED, by_id: EntryIndex | None = None
) -> list[Entry]:
    """Pi's ``buildContextEntries``: the path, reduced by its latest compaction."""
    return select_context_entries(build_path(entries, leaf_id, by_id))


def _type(entry: Any) -> Any:
    return entry.get("type", UNDEFINED) if isinstance(entry, dict) else UNDEFINED


def select_context_entries(path: list[Entry]) -> list[Entry]:
    """The selection step on an already built path (see the module docstring, step 1)."""
    compaction: Entry | None = None
    for entry in reversed(path):
        if isinstance(entry, dict) and entry.get("type") == "compaction":
            compaction = entry  # the latest on the path
            break
    if compaction is None:
        return path
    compaction_id = js_get(compaction, "id")
    compaction_index = index_where(path, "id", compaction_id)
    if compaction_index < 0:
        return path
    first_kept = js_get(compaction, "firstKeptEntryId")
    selected = [compaction]
    found = False
    for entry in path[:compaction_index]:
        if not found and js_get(entry, "id") == first_kept:
            found = True
        if found and not _is_system_message_entry(entry):
            selected.append(entry)
    selected.extend(path[compaction_index + 1 :])
    return selected


def apply_context_edit(messages: list[Message], edit: Entry | None) -> list[Message]:
    """Pi's ``projectContextEntry`` edit step: ``replacement: null`` drops, ``{content}`` replaces.

    Only user, assistant, toolResult and custom messages change; a string replacement becomes one
    text block for assistant and tool-result messages. An edit without a ``replacement`` key
    (which Pi would crash on) changes nothing.
    """
    if edit is None:
        return messages
    replacement = js_get(edit, "replacement")
    if replacement is None:
        return []
    if replacement is UNDEFINED:
        return messages
    new_content = js_get(replacement, "content")
    out: list[Message] = []
    for message in messages:
        role = js_get(message, "role")
        if role not in ("user", "assistant", "toolResult", "custom"):
            out.append(message)
            continue
        edited = dict(message)
        if role in ("assistant", "toolResult") and isinstance(new_content, str):
            edited["content"] = [{"type": "text", "text": new_content}]
        elif new_content is UNDEFINED:
            edited.pop("content", None)
        else:
            edited["content"] = new_content
        out.append(edited)
    return out


def build_session_projection(
    entries: Sequence[Entry], leaf_id: Any = UNDEFINED, by_id: EntryIndex | None = None
) -> SessionProjection:
    """Pi's ``buildSessionProjection``: selected entries with their messages, and the settings."""
    index = by_id if by_id is not None else build_index(entries)
    return project_path(build_path(entries, leaf_id, index))


def project_path(path: list[Entry]) -> SessionProjection:
    """:func:`build_session_projection` on an already built path (root first), so callers that need
    the path too (compaction) walk the tree once."""
    settings = session_settings(path)
    selected = select_context_entries(path)
    edits: dict[Any, Entry] = {}
    for entry in selected:
        if _type(entry) == "context_edit":
            target = js_get(entry, "targetId")
            try:
                edits[target] = entry
            except TypeError:
                continue  # an unhashable targetId can never match an entry id
    projected: list[ProjectedEntry] = []
    messages: list[Message] = []
    for position, entry in enumerate(selected):
        if position > 0 and _type(entry) == "compaction":
            entry_messages: list[Message] = []
        else:
            edit = None
            if edits:
                try:
                    edit = edits.get(js_get(entry, "id"))
                except TypeError:
                    edit = None
            entry_messages = entry_to_context_messages(entry)
            if edit is not None:
                entry_messages = apply_context_edit(entry_messages, edit)
        projected.append(ProjectedEntry(entry, entry_messages))
        messages.extend(entry_messages)
    return SessionProjection(projected, messages, settings.thinking_level, settings.model)


def build_session_context(
    entries: Sequence[Entry], leaf_id: Any = UNDEFINED, by_id: EntryIndex | None = None
) -> SessionContext:
    """Pi's ``buildSessionContext``: the agent messages of the next request, thinking level, model."""
    projection = build_session_projection(entries, leaf_id, by_id)
    return SessionContext(projection.messages, projection.thinking_level, projection.model)
