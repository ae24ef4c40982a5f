"""What a request said, for ``--otlp-content``: the GenAI conventions' input and output messages of one turn.

Off by default: the spans carry counts, never text. Asked for, each reply's span gets

* ``gen_ai.output.messages``: the reply, ``[{"role": "assistant", "parts": [...], "finish_reason": ...}]``
  (text, reasoning and tool-call parts);
* ``gen_ai.input.messages``: the messages the turn added since the previous reply on its branch (the
  user's prompt, tool results, in order), in the conventions' shape (``user`` text parts, ``tool``
  ``tool_call_response`` parts). The history before them is in the earlier spans' messages; sending it
  again with every span would make the export quadratic in the session.

Both are JSON strings (the conventions allow that on spans; the Python SDK takes no structured values).
Each text is cut at :data:`MAX_PART_CHARS` characters, with the number of characters left out said.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final

from lsp_server.js.values import js_get, js_to_string
from lsp_server.session.messages import content_text
from lsp_server.session.raw import Entry

MAX_PART_CHARS: Final = 8192
MAX_WALK: Final = 10_000  # entries walked back to the previous reply

FINISH_REASONS: Final[Mapping[str, str]] = {
    "stop": "stop",
    "length": "length",
    "toolUse": "tool_call",
    "error": "error",
    "aborted": "error",
}


def _cut(text: str) -> str:
    if len(text) <= MAX_PART_CHARS:
        return text
    return f"{text[:MAX_PART_CHARS]}…[{len(text) - MAX_PART_CHARS} more characters]"


def _output_parts(content: Any) -> list[dict[str, Any]]:
    parts: list[dict[str, Any]] = []
    for block in content if isinstance(content, list) else []:
        kind = js_get(block, "type")
        if kind == "text":
            parts.append({"type": "text", "content": _cut(js_to_string(js_get(block, "text")))})
        elif kind == "thinking":
            parts.append({"type": "reasoning", "content": _cut(js_to_string(js_get(block, "thinking")))})
        elif kind == "toolCall":
            parts.append(
                {
                    "type": "tool_call",
                    "id": js_to_string(js_get(block, "id")),
                    "name": js_to_string(js_get(block, "name")),
                    "arguments": js_get(block, "arguments") if isinstance(js_get(block, "arguments"), dict) else {},
                }
            )
    return parts


def output_messages(entry: Entry) -> str | None:
    """The reply as ``gen_ai.output.messages`` (JSON); ``None`` for an entry that is not a reply."""
    message = js_get(entry, "message")
    if js_get(message, "role") != "assistant":
        return None
    out: dict[str, Any] = {"role": "assistant", "parts": _output_parts(js_get(message, "content"))}
    stop = js_get(message, "stopReason")
    out["finish_reason"] = FINISH_REASONS.get(stop, "stop") if isinstance(stop, str) else "stop"
    return json.dumps([out], ensure_ascii=False)


def _input_message(message: Any) -> dict[str, Any] | None:
    role = js_get(message, "role")
    if role == "user":
        return {"role": "user", "parts": [{"type": "text", "content": _cut(content_text(js_get(message, "content")))}]}
    if role == "toolResult":
        response = _cut(content_text(js_get(message, "content")))
        part = {"type": "tool_call_response", "id": js_to_string(js_get(message, "toolCallId")), "response": response}
        return {"role": "tool", "parts": [part]}
    return None


def input_messages(entry: Entry, by_id: Mapping[Any, Entry]) -> str | None:
    """What the turn added before the reply, as ``gen_ai.input.messages`` (JSON), oldest first."""
    if js_get(js_get(entry, "message"), "role") != "assistant":
        return None
    found: list[dict[str, Any]] = []
    current = by_id.get(js_get(entry, "parentId"))
    for _ in range(MAX_WALK):
        if current is None:
            break
        message = js_get(current, "message")
        if js_get(current, "type") == "message" and js_get(message, "role") == "assistant":
            break
        if js_get(current, "type") == "message":
            converted = _input_message(message)
            if converted is not None:
                found.append(converted)
        current = by_id.get(js_get(current, "parentId"))
    found.reverse()
    return json.dumps(found, ensure_ascii=False)
