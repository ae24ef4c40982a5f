"""Context size as Pi estimates it (``core/compaction/compaction.js``, token part).

Pi decides when to compact from two sources: the provider's reported usage on the last good
assistant response, and a character heuristic (``ceil(chars / 4)``) for everything after it or
when no usage can be trusted. The budget view shows the same numbers Pi acts on, so these
functions are Pi-exact: characters are UTF-16 units, an image counts 4800 characters, tool-call
arguments are measured as ``JSON.stringify`` writes them.

The per-message estimate is built from a breakdown (:func:`message_token_parts`): the texts that
count and the fixed image allowance. :func:`estimate_tokens` is Pi's formula over it; another
counter (a real tokenizer, see ``lsp_server/tokens``) can be applied to the same breakdown with
:func:`estimate_tokens_with` without touching Pi's rule.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, Literal

from lsp_server.js.errors import JsTypeError, cannot_read
from lsp_server.js.json import js_json_stringify
from lsp_server.js.strings import js_len
from lsp_server.js.values import UNDEFINED, index_where, is_nullish, js_get, js_to_string, js_truthy
from lsp_server.prompt.system_messages import current_system_message
from lsp_server.vocabulary.compaction import CompactionSettings

if TYPE_CHECKING:
    from lsp_server.session.projection import SessionProjection

ESTIMATED_IMAGE_CHARS: Final = 4800

PartKind = Literal["text", "thinking", "tool_call", "image", "section", "tools", "command", "output", "summary"]


@dataclass(frozen=True)
class TokenPart:
    """One piece of a message that Pi's estimate counts: a text, or an image (no text, fixed size)."""

    kind: PartKind
    text: str | None  # None for images
    chars: int  # UTF-16 units Pi counts for this part


@dataclass(frozen=True)
class ContextEstimate:
    """Pi's ``estimateContextTokens`` result: usage-backed tokens plus estimates after that message."""

    tokens: float
    usage_tokens: float
    trailing_tokens: float
    last_usage_index: int | None

    def to_json(self) -> dict[str, Any]:
        return {
            "tokens": self.tokens,
            "usageTokens": self.usage_tokens,
            "trailingTokens": self.trailing_tokens,
            "lastUsageIndex": self.last_usage_index,
        }


def _text_part(kind: PartKind, value: Any) -> TokenPart:
    if isinstance(value, str):
        return TokenPart(kind, value, js_len(value))
    text = "" if is_nullish(value) else js_to_string(value)
    # Pi adds `value.length`: an array's is its item count (other non-strings: see pi_estimate_tokens)
    return TokenPart(kind, text, len(value) if isinstance(value, list) else js_len(text))


def _content_parts(content: Any) -> list[TokenPart]:
    """Text blocks (non-empty) and images of a ``string | block[]`` content."""
    if isinstance(content, str):
        return [TokenPart("text", content, js_len(content))]
    parts: list[TokenPart] = []
    if not isinstance(content, list):
        return parts
    for block in content:
        kind = js_get(block, "type")
        if kind == "text":
            text = js_get(block, "text")
            if js_truthy(text):
                parts.append(_text_part("text", text))
        elif kind == "image":
            parts.append(TokenPart("image", None, ESTIMATED_IMAGE_CHARS))
    return parts


def _json_text(value: Any) -> str:
    """``JSON.stringify(value)``; only its length counts, so JavaScript's key order is not restored."""
    return js_json_stringify(value)


def message_token_parts(message: Any) -> list[TokenPart]:
    """What :func:`estimate_tokens` counts in ``message``, part by part, in message order."""
    role = js_get(message, "role")
    if role == "system":
        parts = _content_parts(js_get(message, "content"))
        sections = js_get(message, "sections")
        if isinstance(sections, Mapping):
            parts.extend(_text_part("section", value) for value in sections.values() if js_truthy(value))
        tools = js_get(message, "toolsAdded")
        if js_truthy(tools):
            parts.append(_text_part("tools", _json_text(tools)))
        return parts
    if role in ("user", "custom", "toolResult"):
        return _content_parts(js_get(message, "content"))
    if role == "assistant":
        parts = []
        content = js_get(message, "content")
        for block in content if isinstance(content, list) else ():
            kind = js_get(block, "type")
            if kind == "text":
                parts.append(_text_part("text", js_get(block, "text")))
            elif kind == "thinking":
                parts.append(_text_part("thinking", js_get(block, "thinking")))
            elif kind == "toolCall":
                arguments = js_get(block, "arguments")
                name = _text_part("tool_call", js_get(block, "name"))
                stringified = "" if arguments is UNDEFINED else _json_text(arguments)
                parts.append(TokenPart("tool_call", (name.text or "") + stringified, name.chars + js_len(stringified)))
        return parts
    if role == "bashExecution":
        return [_text_part("command", js_get(message, "command")), _text_part("output", js_get(message, "output"))]
    if role in ("branchSummary", "compactionSummary"):
        return [_text_part("summary", js_get(message, "summary"))]
    return []


def estimate_tokens(message: Any) -> int:
    """Pi's ``estimateTokens``: ``ceil(chars / 4)`` over the counted parts (0 for unknown roles).

    One difference, kept on purpose for the views that show counts: a text, thinking or tool name
    that is neither a string nor an array (a number, ``true``, an object) counts as its ``String()``
    here, while Pi adds its ``.length`` (``undefined``) and gets ``NaN``; :func:`pi_estimate_tokens`
    is Pi's number, ``NaN`` included, for the answers that must be Pi's.
    """
    return math.ceil(sum(part.chars for part in message_token_parts(message)) / 4)


def _length_is_nan(value: Any) -> bool:
    """``chars += value.length`` makes ``chars`` NaN: the value has no ``length`` (not a string or array)."""
    return not isinstance(value, (str, list)) and not is_nullish(value)


def _counts_nan(message: Any) -> bool:
    """Whether Pi's ``estimateTokens`` sums a missing ``length`` into NaN for ``message``."""
    role = js_get(message, "role")
    if role in ("system", "user", "custom", "toolResult"):
        content = js_get(message, "content")
        if not isinstance(content, list):
            return False
        # estimateTextAndImageContentChars guards with `block.text &&`: falsy texts are skipped
        texts = (js_get(block, "text") for block in content if js_get(block, "type") == "text")
        return any(js_truthy(text) and _length_is_nan(text) for text in texts)
    if role == "assistant":
        content = js_get(message, "content")
        for block in content if isinstance(content, list) else ():
            kind = js_get(block, "type")
            field = _LENGTH_FIELDS.get(kind) if isinstance(kind, str) else None
            if field is not None and _length_is_nan(js_get(block, field)):
                return True
        return False
    if role == "bashExecution":
        return any(_length_is_nan(js_get(message, key)) for key in ("command", "output"))
    if role in ("branchSummary", "compactionSummary"):
        return _length_is_nan(js_get(message, "summary"))
    return False


def pi_estimate_tokens(message: Any) -> float:
    """Pi's ``estimateTokens`` exactly: :func:`estimate_tokens`, or ``NaN`` where Pi's sum is NaN.

    Pi reads ``.length`` of each text: an array's is its item count, and a number's, ``true``'s or
    an object's is ``undefined``, which turns the whole count into NaN (and a branch summary's
    running total with it, so no later message is held back by the budget).
    """
    if _counts_nan(message):
        return math.nan
    return estimate_tokens(message)


_LENGTH_FIELDS: Final = {"text": "text", "thinking": "thinking", "toolCall": "name"}  # whose .length Pi reads


def estimate_tokens_failure(message: Any) -> JsTypeError | None:
    """The ``TypeError`` Pi's ``estimateTokens`` throws for ``message``, or ``None`` when it returns.

    :func:`estimate_tokens` counts what it can (the budget views must not fail on a broken entry);
    where Pi's answer is a throw (branch summaries), this says which, with V8's message: content
    that is neither a string nor an array is not iterable, a ``null`` block has no ``type``, a
    ``null``/missing ``text``, ``thinking``, ``name`` or ``arguments`` has no ``length``.
    """
    if not isinstance(message, dict):
        return None
    role = message.get("role")
    if role in ("system", "user", "custom", "toolResult"):
        content = message.get("content", UNDEFINED)
        if isinstance(content, str):
            return None
        if not isinstance(content, list):
            return JsTypeError("content is not iterable")
        return next((cannot_read(block, "type") for block in content if block is None), None)
    if role == "assistant":
        content = message.get("content", UNDEFINED)
        if isinstance(content, str):
            return None
        if not isinstance(content, list):
            return JsTypeError("assistant.content is not iterable")
        for block in content:
            if block is None:
                return cannot_read(block, "type")
            if not isinstance(block, dict):
                continue
            kind = block.get("type")
            field = _LENGTH_FIELDS.get(kind) if isinstance(kind, str) else None
            if field is not None and block.get(field) is None:
                return cannot_read(block.get(field, UNDEFINED), "length")
            if kind == "toolCall" and "arguments" not in block:
                return cannot_read(UNDEFINED, "length")  # JSON.stringify(undefined).length
    if role == "bashExecution":
        for key in ("command", "output"):
            if message.get(key) is None:
                return cannot_read(message.get(key, UNDEFINED), "length")
    return None


def estimate_tokens_with(message: Any, count_text: Callable[[str], int], image_tokens: int = 1200) -> int:
    """The same breakdown as :func:`estimate_tokens`, counted with another text counter."""
    return sum(image_tokens if part.text is None else count_text(part.text) for part in message_token_parts(message))


def _number(value: Any) -> float:
    """A usage field as JavaScript arithmetic sees it (missing -> NaN, which compares false)."""
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)):
        return value
    return math.nan


def calculate_context_tokens(usage: Any) -> float:
    """``usage.totalTokens`` when non-zero, else ``input + output + cacheRead + cacheWrite``.

    A usage with missing fields sums to NaN in Pi, which no comparison accepts; it is 0 here.
    """
    total = js_get(usage, "totalTokens")
    if js_truthy(total) and isinstance(total, (int, float)):
        return _plain(total)
    value = sum(_number(js_get(usage, key)) for key in ("input", "output", "cacheRead", "cacheWrite"))
    return 0 if math.isnan(value) else _plain(value)


def _plain(value: float) -> float:
    """Whole numbers as ``int`` (JSON writes ``1800``, not ``1800.0``)."""
    return int(value) if float(value).is_integer() else value


def assistant_usage(message: Any) -> Any | None:
    """The usage of a usable assistant response: not aborted/error, and a non-zero token count."""
    if js_get(message, "role") != "assistant" or "usage" not in message:  # JS: "usage" in msg
        return None
    usage = js_get(message, "usage")
    if js_get(message, "stopReason") in ("aborted", "error") or not js_truthy(usage):
        return None
    return usage if calculate_context_tokens(usage) > 0 else None


def get_last_assistant_usage(entries: Sequence[Any]) -> Any | None:
    """Pi's ``getLastAssistantUsage``: scan message entries backwards for a usable usage."""
    for entry in reversed(entries):
        if js_get(entry, "type") == "message":
            usage = assistant_usage(js_get(entry, "message"))
            if usage is not None:
                return usage
    return None


def estimate_context_tokens(
    messages: Sequence[Any], estimate: Callable[[Any], float] = estimate_tokens
) -> ContextEstimate:
    """Pi's ``estimateContextTokens``: last usable usage + estimates of the messages after it.

    ``estimate`` counts one message (:func:`pi_estimate_tokens` for Pi's NaN where Pi has one).
    """
    for index in range(len(messages) - 1, -1, -1):
        usage = assistant_usage(messages[index])
        if usage is not None:
            usage_tokens = calculate_context_tokens(usage)
            trailing = sum(estimate(m) for m in messages[index + 1 :])
            return ContextEstimate(usage_tokens + trailing, usage_tokens, trailing, index)
    estimated = sum(estimate(m) for m in messages)
    return ContextEstimate(estimated, 0, estimated, None)


def estimate_projected_context_tokens(projection: SessionProjection, branch_entries: Sequence[Any]) -> ContextEstimate:
    """Pi's ``estimateProjectedContextTokens``: the compaction trigger's view of the next request.

    A usage is trusted only if the entry that produced it comes after the latest ``context_edit``
    or ``compaction`` on the branch; otherwise the estimate is the replayed system message plus
    every non-system message (stale usage would count what was edited or compacted away).
    """
    estimate = estimate_context_tokens(projection.messages)
    if estimate.last_usage_index is not None:
        usage_entry_id: Any = UNDEFINED
        first = 0
        for projected in projection.entries:
            following = first + len(projected.messages)
            if estimate.last_usage_index < following:
                usage_entry_id = js_get(projected.source_entry, "id")
                break
            first = following
        usage_entry_index = -1
        if js_truthy(usage_entry_id):
            usage_entry_index = index_where(branch_entries, "id", usage_entry_id)
        latest_invalidating = -1
        for i in range(len(branch_entries) - 1, -1, -1):
            if js_get(branch_entries[i], "type") in ("context_edit", "compaction"):
                latest_invalidating = i
                break
        if usage_entry_index > latest_invalidating:
            return estimate
    system = current_system_message(projection.messages)
    tokens = estimate_tokens(system) if system is not None else 0
    tokens += sum(estimate_tokens(m) for m in projection.messages if js_get(m, "role") != "system")
    return ContextEstimate(tokens, 0, tokens, None)


def should_compact(context_tokens: float, context_window: float, settings: CompactionSettings) -> bool:
    """Pi's ``shouldCompact``: enabled and tokens *strictly* above ``window - reserveTokens``."""
    if not settings.enabled:
        return False
    return context_tokens > context_window - settings.reserve_tokens


def exceeds_compaction_threshold(context_tokens: float, context_window: float, settings: CompactionSettings) -> bool:
    """The agent's check around :func:`should_compact`: a model without a window (<= 0) never compacts."""
    if context_window <= 0:
        return False
    return should_compact(context_tokens, context_window, settings)
