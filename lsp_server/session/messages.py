"""Agent messages -> the messages a model receives (Pi's ``core/messages.js``), and message helpers.

A session holds *agent* messages: the four LLM roles (``system``, ``user``, ``assistant``,
``toolResult``) plus Pi's own kinds (``bashExecution`` from ``!`` commands, ``custom`` from
extensions, ``branchSummary`` and ``compactionSummary``). Before a request, ``convertToLlm``
turns Pi's kinds into user messages with fixed wrappers; those wrappers are part of what the
model reads and of its token count, so they are reproduced byte for byte.

Messages are the parsed JSON objects (``dict``) exactly as stored: unknown keys stay, and a
converted message is the same object when Pi passes it through unchanged.
"""

from __future__ import annotations

import re
from typing import Any, Final

from lsp_server.js.dates import js_date_ms
from lsp_server.js.strings import from_code_units
from lsp_server.js.values import UNDEFINED, is_nullish, js_get, js_join_part, js_to_string, js_truthy

Message = dict[str, Any]

COMPACTION_SUMMARY_PREFIX: Final = (
    "The conversation history before this point was compacted into the following summary:\n\n<summary>\n"
)
COMPACTION_SUMMARY_SUFFIX: Final = "\n</summary>"
BRANCH_SUMMARY_PREFIX: Final = (
    "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n"
)
BRANCH_SUMMARY_SUFFIX: Final = "</summary>"

LLM_ROLES: Final = frozenset({"system", "user", "assistant", "toolResult"})


_SURROGATE = re.compile("[\ud800-\udfff]")


def content_text(content: Any, separator: str = "\n") -> str:
    """pi-ai's ``contentText``: a string as is, else the text blocks joined with ``separator``.

    Joined with no separator, a block ending in a high surrogate and the next starting with a low
    one form one character in JavaScript; the pair is combined here too, so lengths and cuts agree.
    """
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    texts = [js_join_part(js_get(block, "text")) for block in content if js_get(block, "type") == "text"]
    joined = separator.join(texts)
    if not separator and len(texts) > 1 and _SURROGATE.search(joined):
        joined = from_code_units(joined)
    return joined


def bash_execution_to_text(message: Message) -> str:
    """The user-message text a ``!command`` becomes: command, fenced output, exit status, spill file."""
    text = f"Ran `{js_to_string(js_get(message, 'command'))}`\n"
    output = js_get(message, "output")
    if js_truthy(output):
        text += f"```\n{js_to_string(output)}\n```"
    else:
        text += "(no output)"
    exit_code = js_get(message, "exitCode")
    if js_truthy(js_get(message, "cancelled")):
        text += "\n\n(command cancelled)"
    elif not is_nullish(exit_code) and exit_code != 0:
        text += f"\n\nCommand exited with code {js_to_string(exit_code)}"
    full_output_path = js_get(message, "fullOutputPath")
    if js_truthy(js_get(message, "truncated")) and js_truthy(full_output_path):
        text += f"\n\n[Output truncated. Full output: {js_to_string(full_output_path)}]"
    return text


def _put(target: Message, key: str, value: Any) -> None:
    """Set ``key`` unless ``value`` is ``undefined`` (JSON drops undefined keys)."""
    if value is not UNDEFINED:
        target[key] = value


def _text_message(text: str, timestamp: Any) -> Message:
    out: Message = {"role": "user", "content": [{"type": "text", "text": text}]}
    _put(out, "timestamp", timestamp)
    return out


def create_branch_summary_message(summary: Any, from_id: Any, timestamp: Any) -> Message:
    """A ``branchSummary`` agent message; ``timestamp`` is the entry's ISO time, stored as ms."""
    out: Message = {"role": "branchSummary"}
    _put(out, "summary", summary)
    _put(out, "fromId", from_id)
    out["timestamp"] = js_date_ms(timestamp)
    return out


def create_compaction_summary_message(summary: Any, tokens_before: Any, timestamp: Any) -> Message:
    out: Message = {"role": "compactionSummary"}
    _put(out, "summary", summary)
    _put(out, "tokensBefore", tokens_before)
    out["timestamp"] = js_date_ms(timestamp)
    return out


def create_custom_message(custom_type: Any, content: Any, display: Any, details: Any, timestamp: Any) -> Message:
    out: Message = {"role": "custom"}
    _put(out, "customType", custom_type)
    _put(out, "content", content)
    _put(out, "display", display)
    _put(out, "details", details)
    out["timestamp"] = js_date_ms(timestamp)
    return out


def convert_message_to_llm(message: Any) -> Message | None:
    """One agent message as the model sees it, or ``None`` when it is not sent."""
    role = js_get(message, "role")
    if isinstance(role, str) and role in LLM_ROLES:
        return message  # type: ignore[no-any-return]
    timestamp = js_get(message, "timestamp")
    if role == "bashExecution":
        if js_truthy(js_get(message, "excludeFromContext")):
            return None
        return _text_message(bash_execution_to_text(message), timestamp)
    if role == "custom":
        out: Message = {"role": "user"}
        content = js_get(message, "content")
        _put(out, "content", [{"type": "text", "text": content}] if isinstance(content, str) else content)
        _put(out, "timestamp", timestamp)
        return out
    if role == "branchSummary":
        summary = js_to_string(js_get(message, "summary"))
        return _text_message(BRANCH_SUMMARY_PREFIX + summary + BRANCH_SUMMARY_SUFFIX, timestamp)
    if role == "compactionSummary":
        summary = js_to_string(js_get(message, "summary"))
        return _text_message(COMPACTION_SUMMARY_PREFIX + summary + COMPACTION_SUMMARY_SUFFIX, timestamp)
    return None


def convert_to_llm(messages: list[Any]) -> list[Message]:
    """Pi's ``convertToLlm``: wrap Pi's own message kinds as user messages, drop the rest."""
    out: list[Message] = []
    for message in messages:
        converted = convert_message_to_llm(message)
        if converted is not None:
            out.append(converted)
    return out
