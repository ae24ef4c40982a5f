"""The conversation as the summarizer reads it (Pi's ``serializeConversation``).

Pi does not send the history to the summarizing model as a conversation (it would continue it);
it flattens the LLM messages into labelled text blocks. Compaction and branch summaries are built
from this text, so reproducing it exactly lets us show, count and replay the real summary
request: ``[User]:`` / ``[Assistant]:`` / ``[Assistant tool calls]:`` / ``[Tool result]:``
blocks separated by a blank line (:mod:`lsp_server.llm.transcript`, which the offline summarizer
reads them back with), thinking left out, tool results cut to 2,000 UTF-16 units.

Two rules follow the Pi release (``rules``, docs/pi-versions.md): before Pi 1.2.0 thinking is kept,
as one ``[Assistant thinking]:`` block before the reply's text; before Pi 1.5.1 the cut of a tool
result may split a surrogate pair (``text.slice``), since then it never does.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from lsp_server.js.json import js_json_stringify
from lsp_server.js.objects import js_key_order, js_ordered
from lsp_server.js.strings import js_len, js_slice, js_slice_head
from lsp_server.js.values import js_get, js_to_string
from lsp_server.llm.transcript import ASSISTANT, ASSISTANT_TOOL_CALLS, PART_SEPARATOR, TOOL_RESULT, USER
from lsp_server.session.messages import content_text
from lsp_server.vocabulary.pi_releases import CURRENT, PiRules

TOOL_RESULT_MAX_CHARS: Final = 2000
ASSISTANT_THINKING: Final = "[Assistant thinking]: "  # before Pi 1.2.0 only


def truncate_for_summary(text: str, max_chars: int = TOOL_RESULT_MAX_CHARS, rules: PiRules = CURRENT) -> str:
    """Keep the first ``max_chars`` units (never half a surrogate pair, from Pi 1.5.1) and say how much was cut."""
    length = js_len(text)
    if length <= max_chars:
        return text
    head = js_slice_head(text, max_chars) if rules.has("surrogate-safe-cuts") else js_slice(text, 0, max_chars)
    return f"{head}\n\n[... {length - max_chars} more characters truncated]"


def _json_value(value: Any) -> str:
    if value is None:
        return "null"
    return js_json_stringify(js_ordered(value))


def format_tool_call(block: Any) -> str:
    """``name(k1=<JSON>, k2=<JSON>)`` with argument keys in JavaScript enumeration order."""
    arguments = js_get(block, "arguments")
    pairs: list[str] = []
    if isinstance(arguments, dict):
        pairs = [f"{key}={_json_value(arguments[key])}" for key in js_key_order(arguments)]
    elif isinstance(arguments, list):
        pairs = [f"{index}={_json_value(item)}" for index, item in enumerate(arguments)]
    return f"{js_to_string(js_get(block, 'name'))}({', '.join(pairs)})"


def serialize_conversation(messages: Sequence[Any], rules: PiRules = CURRENT) -> str:
    """Pi's ``serializeConversation`` over LLM messages (call ``convert_to_llm`` first).

    User and tool-result text blocks are concatenated with no separator, assistant text blocks
    with a newline; an assistant message with an empty text block still writes ``[Assistant]: ``.
    System messages and unknown roles are skipped. Before Pi 1.2.0 an assistant message's thinking
    blocks come first, joined by newlines, as ``[Assistant thinking]: ...``.
    """
    parts: list[str] = []
    for message in messages:
        role = js_get(message, "role")
        if role == "user":
            text = content_text(js_get(message, "content"), "")
            if text:
                parts.append(f"{USER}{text}")
        elif role == "assistant":
            content = js_get(message, "content")
            blocks = content if isinstance(content, list) else []
            calls = [format_tool_call(block) for block in blocks if js_get(block, "type") == "toolCall"]
            if rules.lacks("summary-omits-thinking"):
                thinking = [js_get(block, "thinking") for block in blocks if js_get(block, "type") == "thinking"]
                if thinking:
                    parts.append(f"{ASSISTANT_THINKING}{chr(10).join(js_to_string(part) for part in thinking)}")
            if any(js_get(block, "type") == "text" for block in blocks):
                parts.append(f"{ASSISTANT}{content_text(blocks)}")
            if calls:
                parts.append(f"{ASSISTANT_TOOL_CALLS}{'; '.join(calls)}")
        elif role == "toolResult":
            text = content_text(js_get(message, "content"), "")
            if text:
                parts.append(f"{TOOL_RESULT}{truncate_for_summary(text, rules=rules)}")
    return PART_SEPARATOR.join(parts)
