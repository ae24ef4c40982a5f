"""What the provider receives after Pi's last rewrite of the messages (pi-ai's ``transformMessages``).

``convertToLlm`` gives the messages of the agent; before a request goes out, pi-ai rewrites them
once more, and the session file never shows it. Seen against the real Pi (the loopback model is
the witness), these rewrites change what the model receives:

* an assistant message that ended with ``stopReason`` ``error`` or ``aborted`` is not sent (the
  model retries from the last complete state), so an aborted reply leaves two user messages in a row;
* a tool call with no result before the next assistant or user message (or at the end) gets a
  synthetic result, ``No result provided`` with ``isError: true``, which is never written to the file;
* thinking blocks of another model are dropped, and so are empty ones (unless signed or redacted);
  the text of another model's reply is sent as plain text.

Image downgrades for models without vision are not applied: whether a model takes images is in
its definition, which the session does not record.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from lsp_server.js.values import js_get, js_truthy, strict_equality_key

SYNTHETIC_RESULT_TEXT: Final = "No result provided"

Message = Mapping[str, Any]


@dataclass(frozen=True)
class SentMessage:
    """One message as sent: ``source`` is its index in the input, ``None`` for a synthetic tool result."""

    message: Message
    source: int | None


def _is_same_model(message: Message, provider: str | None, model_id: str | None) -> bool:
    if provider is None or model_id is None:
        return True  # the session names no model: nothing to compare with, keep what Pi would keep for its own
    return bool(js_get(message, "provider") == provider and js_get(message, "model") == model_id)


def _assistant_content(message: Message, same_model: bool) -> list[Any]:
    content = js_get(message, "content")
    blocks = content if isinstance(content, list) else []
    kept: list[Any] = []
    for block in blocks:
        kind = js_get(block, "type")
        if kind == "thinking":
            if not same_model:
                continue
            signed = js_truthy(js_get(block, "redacted")) or js_truthy(js_get(block, "thinkingSignature"))
            thinking = js_get(block, "thinking")
            if not signed and (not isinstance(thinking, str) or not thinking.strip()):
                continue
        kept.append(block)
    return kept


def transform_messages(
    messages: Sequence[Message], *, provider: str | None = None, model_id: str | None = None
) -> list[SentMessage]:
    """The messages in the order and form the provider receives them, for the session's model."""
    out: list[SentMessage] = []
    pending: list[Any] = []  # tool calls of the last assistant message still waiting for results
    answered: set[Any] = set()
    held: list[SentMessage] = []  # system messages between a tool call and its results

    def close_pending() -> None:
        nonlocal pending, answered
        for call in pending:
            call_id = js_get(call, "id")
            key = strict_equality_key(call_id)  # an object id (from a hand-edited file) answers nothing
            if key is None or key not in answered:
                synthetic = {
                    "role": "toolResult",
                    "toolCallId": call_id,
                    "toolName": js_get(call, "name"),
                    "content": [{"type": "text", "text": SYNTHETIC_RESULT_TEXT}],
                    "isError": True,
                }
                out.append(SentMessage(synthetic, None))
        pending, answered = [], set()
        out.extend(held)
        held.clear()

    for index, message in enumerate(messages):
        role = js_get(message, "role")
        if role == "assistant":
            close_pending()
            if js_get(message, "stopReason") in ("error", "aborted"):
                continue
            content = _assistant_content(message, _is_same_model(message, provider, model_id))
            calls = [block for block in content if js_get(block, "type") == "toolCall"]
            if calls:
                pending, answered = calls, set()
            out.append(SentMessage({**message, "content": content}, index))
        elif role == "toolResult":
            answered.add(strict_equality_key(js_get(message, "toolCallId")))
            out.append(SentMessage(message, index))
        elif role == "system" and pending:
            held.append(SentMessage(message, index))
        elif role == "user":
            close_pending()
            out.append(SentMessage(message, index))
        else:
            out.append(SentMessage(message, index))
    close_pending()
    return out


def orphan_tool_results(branch: Sequence[Mapping[str, Any]]) -> list[int]:
    """Indices in ``branch`` of the tool results whose ``toolCallId`` no earlier tool call on it has.

    Providers reject such a result (Anthropic: "unexpected tool_use_id"; OpenAI: a tool message
    must answer a preceding tool call), so the next request would fail; Pi sends it as it is.
    """
    called: set[Any] = set()  # strict_equality_key of each call id: ids that are objects answer nothing
    orphans: list[int] = []
    for index, entry in enumerate(branch):
        if js_get(entry, "type") != "message":
            continue
        message = js_get(entry, "message")
        role = js_get(message, "role")
        if role == "assistant":
            content = js_get(message, "content")
            for block in content if isinstance(content, list) else []:
                if js_get(block, "type") == "toolCall":
                    called.add(strict_equality_key(js_get(block, "id")))
        elif role == "toolResult":
            key = strict_equality_key(js_get(message, "toolCallId"))
            if key is None or key not in called:
                orphans.append(index)
    return orphans
