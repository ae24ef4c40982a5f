"""System messages in the transcript: replay and update rendering (pi-ai ``utils/transcript.js``).

Pi 1.6.0 stores the system prompt *in the session*: the first request records a ``role:
"system"`` message with every section, later requests record only the sections that changed
(``null`` = removed) and tool additions/removals. What the model currently has is therefore the
replay of all those messages, which is what :func:`current_system_message` computes. Providers
that accept system messages mid-conversation receive each later one rendered by
:func:`render_system_message_update`.

Messages are the JSON objects of the session file (plain dicts), so the session code can hand
them over without conversion; the result has the same shape as Pi's.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from lsp_server.js.objects import js_key_order, js_object
from lsp_server.js.values import js_join_part, js_to_string
from lsp_server.prompt.sections import render_prompt_text

Message = Mapping[str, Any]


def content_text(content: Any, separator: str = "\n") -> str:
    """A message's text: the string itself, or its text blocks joined (images and the rest skipped)."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return separator.join(
        js_join_part(block.get("text"))
        for block in content
        if isinstance(block, Mapping) and block.get("type") == "text"
    )


def _sections(message: Message) -> Mapping[str, Any]:
    sections = message.get("sections")
    return sections if isinstance(sections, Mapping) else {}


def system_message_text(message: Message) -> str:
    """pi-ai ``getSystemMessageText``: the message as one prompt (content, then non-null sections)."""
    return render_prompt_text(content_text(message.get("content")), _sections(message))


def render_system_message_update(message: Message) -> str:
    """pi-ai ``renderSystemMessageUpdate``: a later system message as text framed by section name."""
    parts: list[str] = []
    text = content_text(message.get("content"))
    if text:
        parts.append(text)
    sections = _sections(message)
    for name in js_key_order(sections):
        value = sections[name]
        if value is None:
            parts.append(f'Removed system prompt section "{name}".')
        else:
            parts.append(f'Updated system prompt section "{name}":\n\n{js_to_string(value)}')
    return "\n\n".join(parts)


def _system_messages(messages: Iterable[Message]) -> list[Message]:
    return [message for message in messages if isinstance(message, Mapping) and message.get("role") == "system"]


def current_tools(messages: Iterable[Message]) -> list[Any]:
    """The tool declarations in force after every system message: removals, then additions, per message.

    A re-declared tool keeps its first position unless it was removed in between.
    """
    tools: dict[Any, Any] = {}
    for message in _system_messages(messages):
        for tool in message.get("toolsRemoved") or ():
            tools.pop(tool.get("name") if isinstance(tool, Mapping) else None, None)
        for tool in message.get("toolsAdded") or ():
            tools[tool.get("name") if isinstance(tool, Mapping) else None] = tool
    return list(tools.values())


def current_system_message(messages: Iterable[Message]) -> dict[str, Any] | None:
    """pi-ai ``getCurrentSystemMessage``: every system message folded into one.

    Text contents are joined with a blank line; sections are patched by name (an updated name
    keeps its place, a removed and re-added one moves to the end); the timestamp is the first
    one given. ``None`` when there is no system message with a timestamp and no tool.
    """
    system = _system_messages(messages)
    content: list[str] = []
    sections: dict[str, Any] = {}
    timestamp: Any = None
    for message in system:
        if timestamp is None:
            timestamp = message.get("timestamp")
        text = content_text(message.get("content"))
        if text:
            content.append(text)
        patch = _sections(message)
        for name in js_key_order(patch):
            value = patch[name]
            if value is None:
                sections.pop(name, None)
            else:
                sections[name] = value
    tools = current_tools(system)
    if timestamp is None and not tools:
        return None
    result: dict[str, Any] = {"role": "system", "content": "\n\n".join(content)}
    if sections:
        result["sections"] = js_object(sections)
    if tools:
        result["toolsAdded"] = tools
    result["timestamp"] = timestamp if timestamp is not None else 0
    return result


def current_system_prompt(messages: Iterable[Message]) -> str:
    """The prompt text the model has after the whole transcript (``""`` when there is none)."""
    message = current_system_message(messages)
    return system_message_text(message) if message is not None else ""
