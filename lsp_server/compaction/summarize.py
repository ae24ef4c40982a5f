"""Writing the summary: Pi's ``compact`` / ``generateSummary`` over any :class:`LlmClient`.

Given a preparation (:mod:`lsp_server.compaction.prepare`), one or two model calls produce the
summary text, as Pi 1.6.0 makes them:

* not a split turn (or an empty turn prefix): one call over the history, with the *update*
  template when an earlier summary exists;
* a split turn: the history part is the history call's answer when there are history messages,
  else the previous summary, else ``No prior history.`` (no call); a second call summarizes the
  turn prefix; both are joined by Pi's split-turn separator.

The file lists (``<read-files>``, ``<modified-files>``) are appended and the usage of both calls
summed the way Pi sums it. Every request has Pi's options: no prompt caching (our adapters never
cache), a routing session id (a fresh UUIDv7 per request unless the caller gives one), the
session's thinking level only when the model reasons and the level is not ``off``, and no output
cap (the provider decides; the Anthropic adapter sends its own default).

Where an older Pi release did otherwise, :attr:`SummaryOptions.rules` says which release to be
(docs/pi-versions.md): before 1.4.0 each call is capped (80% of ``reserveTokens`` for the history,
50% for the turn prefix, never above the model's ``maxTokens``) and the turn prefix is asked without
the custom instructions; before 1.2.0 the conversation keeps the thinking; before 1.5.0 two calls'
usage has no ``cost.totalFromProvider``.

Failures are values (:class:`SummaryFailure`) carrying Pi's message: an ``error`` reply, a
``length`` stop (an incomplete summary must never become a checkpoint) or a tool call. A cancelled
run is a failure with ``cancelled=True``. Callers write nothing unless they get a result.
"""

from __future__ import annotations

import math
import os
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal, cast

from lsp_server.compaction.file_ops import compute_file_lists, format_file_operations
from lsp_server.compaction.prepare import CompactionPreparation
from lsp_server.compaction.prompts import (
    NO_PRIOR_HISTORY,
    SPLIT_TURN_JOIN,
    SUMMARIZATION_LABEL,
    SUMMARIZATION_SYSTEM_PROMPT,
    TURN_PREFIX_LABEL,
    error_failure,
    history_prompt,
    length_failure,
    tool_call_failure,
    turn_prefix_prompt,
)
from lsp_server.compaction.serialize import serialize_conversation
from lsp_server.js.values import is_nullish, js_to_string, js_truthy
from lsp_server.llm.client import CancelToken, LlmClient
from lsp_server.llm.types import AssistantReply, CompletionRequest, ReasoningLevel, RetryNotice, Usage
from lsp_server.session.messages import Message, convert_to_llm
from lsp_server.vocabulary.pi_releases import CURRENT, PiRules

Phase = Literal[
    "preparing",
    "summarizing history",
    "summarizing turn prefix",
    "summarizing branch",
    "writing",
]

CANCELLED_MESSAGE: Final = "Compaction cancelled"
NO_FIRST_KEPT_ID: Final = "First kept entry has no UUID - session may need migration"


@dataclass(frozen=True)
class Progress:
    """One progress report: the phase, reply characters received so far, or a retry about to wait."""

    phase: Phase
    chars: int = 0
    retry: RetryNotice | None = None


ProgressCallback = Callable[[Progress], None]


@dataclass(frozen=True)
class SummaryOptions:
    """Per-run request options (Pi's ``customInstructions``, ``thinkingLevel``, ``model.reasoning``)."""

    custom_instructions: str | None = None
    thinking_level: str | None = None  # the session's level ("off" sends none)
    model_reasoning: bool = False  # the model accepts a reasoning level
    session_id: str | None = None  # routing only; a fresh UUIDv7 per request when None
    rules: PiRules = CURRENT  # the Pi release whose summary requests these are
    model_max_tokens: float | None = None  # the model's maxTokens (caps a summary before Pi 1.4.0)


DEFAULT_OPTIONS: Final = SummaryOptions()


@dataclass(frozen=True)
class SummaryText:
    text: str
    usage: Usage


@dataclass(frozen=True)
class SummaryFailure:
    """Why no summary was produced; ``message`` is Pi's text (or ours for a cancellation)."""

    message: str
    cancelled: bool = False


@dataclass(frozen=True)
class CompactionResult:
    """Pi's ``CompactionResult``: what the ``compaction`` entry will hold."""

    summary: str
    first_kept_entry_id: Any
    tokens_before: float
    usage: dict[str, Any]
    read_files: list[str]
    modified_files: list[str]

    @property
    def details(self) -> dict[str, list[str]]:
        return {"readFiles": self.read_files, "modifiedFiles": self.modified_files}

    def to_json(self) -> dict[str, Any]:
        return {
            "summary": self.summary,
            "firstKeptEntryId": self.first_kept_entry_id,
            "tokensBefore": self.tokens_before,
            "usage": self.usage,
            "details": self.details,
        }


def uuid7(now_ms: int | None = None) -> str:
    """A UUIDv7 (time-ordered), what Pi uses to route one-off summary requests."""
    ms = int(time.time() * 1000) if now_ms is None else now_ms
    rand = int.from_bytes(os.urandom(10), "big")
    value = (ms & ((1 << 48) - 1)) << 80
    value |= 0x7 << 76
    value |= ((rand >> 62) & 0xFFF) << 64
    value |= 0b10 << 62
    value |= rand & ((1 << 62) - 1)
    return str(uuid.UUID(int=value))


def usage_json(usages: Sequence[Usage], rules: PiRules = CURRENT) -> dict[str, Any]:
    """Pi's usage object for one reply, or Pi's ``combineUsage`` of two (which adds ``totalFromProvider``
    from Pi 1.5.0 on)."""
    if len(usages) == 1:
        return usages[0].to_json()
    total = Usage()
    for usage in usages:
        total = total + usage
    out = total.to_json()
    if rules.has("usage-total-from-provider"):
        out["cost"] = {**out["cost"], "totalFromProvider": False}
    return out


def output_cap(fraction_or_tokens: float, options: SummaryOptions, *, of_reserve: float | None = None) -> int | None:
    """A summary call's ``maxTokens`` before Pi 1.4.0 (``None`` from 1.4.0 on: no cap).

    ``Math.min(Math.floor(fraction * reserveTokens), model.maxTokens > 0 ? model.maxTokens : Infinity)``
    with ``of_reserve`` (the compaction's ``reserveTokens``); a fixed number of tokens without it (4096
    for a branch summary).
    """
    if options.rules.has("summary-uncapped"):
        return None
    cap = float(math.floor(fraction_or_tokens * of_reserve)) if of_reserve is not None else fraction_or_tokens
    model_max = options.model_max_tokens
    if model_max is not None and model_max > 0:
        cap = min(cap, model_max)
    return int(cap) if math.isfinite(cap) else None


def reasoning_for(options: SummaryOptions) -> ReasoningLevel | None:
    """The thinking level sent with a summary request (Pi: model reasons, level set and not ``off``)."""
    level = options.thinking_level
    if options.model_reasoning and level and level != "off":
        return cast(ReasoningLevel, level)
    return None


def summary_request(prompt: str, options: SummaryOptions, max_tokens: int | None = None) -> CompletionRequest:
    """One summary call: our system prompt, one user message, no caching; no output cap unless given."""
    return CompletionRequest.single_prompt(
        SUMMARIZATION_SYSTEM_PROMPT,
        prompt,
        max_tokens=max_tokens,
        reasoning=reasoning_for(options),
        session_id=options.session_id or uuid7(),
    )


def reply_failure(reply: AssistantReply, label: str, cancel: CancelToken | None) -> SummaryFailure | None:
    """Pi's ``getSummarizationFailure`` plus the tool-call check; an abort is a cancellation."""
    if reply.stop_reason == "aborted" or (cancel is not None and cancel.cancelled):
        return SummaryFailure(CANCELLED_MESSAGE, cancelled=True)
    if reply.stop_reason == "error":
        return SummaryFailure(error_failure(label, reply.error_message))
    if reply.stop_reason == "length":
        return SummaryFailure(length_failure(label))
    if reply.has_tool_call:
        return SummaryFailure(tool_call_failure(label))
    return None


async def summarize_once(
    client: LlmClient,
    prompt: str,
    label: str,
    phase: Phase,
    options: SummaryOptions,
    cancel: CancelToken | None,
    on_progress: ProgressCallback | None,
    max_tokens: int | None = None,
) -> SummaryText | SummaryFailure:
    if cancel is not None and cancel.cancelled:
        return SummaryFailure(CANCELLED_MESSAGE, cancelled=True)

    def on_chars(chars: int) -> None:
        if on_progress is not None:
            on_progress(Progress(phase, chars=chars))

    def on_retry(notice: RetryNotice) -> None:
        if on_progress is not None:
            on_progress(Progress(phase, retry=notice))

    if on_progress is not None:
        on_progress(Progress(phase))
    request = summary_request(prompt, options, max_tokens)
    reply = await client.complete(request, cancel=cancel, on_text_delta=on_chars, on_retry=on_retry)
    failure = reply_failure(reply, label, cancel)
    if failure is not None:
        return failure
    return SummaryText(reply.text, reply.usage)


def conversation_text(messages: Sequence[Message], rules: PiRules = CURRENT) -> str:
    """The transcript the summarizer reads: ``convertToLlm`` then Pi's serialization."""
    return serialize_conversation(convert_to_llm(list(messages)), rules)


async def generate_summary(
    messages: Sequence[Message],
    client: LlmClient,
    *,
    previous_summary: Any = None,
    options: SummaryOptions = DEFAULT_OPTIONS,
    cancel: CancelToken | None = None,
    on_progress: ProgressCallback | None = None,
    reserve_tokens: float | None = None,
) -> SummaryText | SummaryFailure:
    """Pi's ``generateSummaryWithUsage``: the history call (update mode with a previous summary)."""
    text = conversation_text(messages, options.rules)
    prompt = history_prompt(text, previous_summary, options.custom_instructions)
    cap = output_cap(0.8, options, of_reserve=reserve_tokens) if reserve_tokens is not None else None
    return await summarize_once(
        client, prompt, SUMMARIZATION_LABEL, "summarizing history", options, cancel, on_progress, cap
    )


async def generate_turn_prefix_summary(
    messages: Sequence[Message],
    client: LlmClient,
    *,
    options: SummaryOptions = DEFAULT_OPTIONS,
    cancel: CancelToken | None = None,
    on_progress: ProgressCallback | None = None,
    reserve_tokens: float | None = None,
) -> SummaryText | SummaryFailure:
    """The turn-prefix call of a split turn (its failures carry the ``Turn prefix`` label)."""
    prompt = turn_prefix_prompt(conversation_text(messages, options.rules), turn_prefix_instructions(options))
    cap = output_cap(0.5, options, of_reserve=reserve_tokens) if reserve_tokens is not None else None
    return await summarize_once(
        client, prompt, TURN_PREFIX_LABEL, "summarizing turn prefix", options, cancel, on_progress, cap
    )


def turn_prefix_instructions(options: SummaryOptions) -> str | None:
    """The custom instructions the turn prefix is asked with (none before Pi 1.4.0)."""
    return options.custom_instructions if options.rules.has("turn-prefix-instructions") else None


def summary_prompts(
    preparation: CompactionPreparation, custom_instructions: Any = None, rules: PiRules = CURRENT
) -> list[str]:
    """The user prompt of each summary call :func:`compact` makes, in order, without calling a model.

    For pricing a compaction before it runs (the chat's preview, where Pi summarizes): a split turn
    sends the history (when there is any) and then the turn prefix, anything else the history alone.
    """
    previous = preparation.previous_summary
    text = conversation_text(preparation.messages_to_summarize, rules)
    history = history_prompt(text, previous, custom_instructions)
    if preparation.is_split_turn and preparation.turn_prefix_messages:
        options = SummaryOptions(custom_instructions=custom_instructions, rules=rules)
        prefix_text = conversation_text(preparation.turn_prefix_messages, rules)
        prefix = turn_prefix_prompt(prefix_text, turn_prefix_instructions(options))
        return [history, prefix] if preparation.messages_to_summarize else [prefix]
    return [history]


async def compact(
    preparation: CompactionPreparation,
    client: LlmClient,
    *,
    options: SummaryOptions = DEFAULT_OPTIONS,
    cancel: CancelToken | None = None,
    on_progress: ProgressCallback | None = None,
) -> CompactionResult | SummaryFailure:
    """Pi's ``compact(preparation, …)``: the summary text and the entry's fields, or a failure."""
    previous = preparation.previous_summary
    usages: list[Usage] = []
    split = bool(preparation.is_split_turn and preparation.turn_prefix_messages)
    if split and not preparation.messages_to_summarize:
        # Pi: previousSummary ?? "No prior history." (an empty previous summary stays empty).
        summary = NO_PRIOR_HISTORY if is_nullish(previous) else js_to_string(previous)
    else:  # the history call: always, except for a split turn with nothing before it
        history = await generate_summary(
            preparation.messages_to_summarize,
            client,
            previous_summary=previous,
            options=options,
            cancel=cancel,
            on_progress=on_progress,
            reserve_tokens=preparation.settings.reserve_tokens,
        )
        if isinstance(history, SummaryFailure):
            return history
        summary = history.text
        usages.append(history.usage)
    if split:
        prefix = await generate_turn_prefix_summary(
            preparation.turn_prefix_messages,
            client,
            options=options,
            cancel=cancel,
            on_progress=on_progress,
            reserve_tokens=preparation.settings.reserve_tokens,
        )
        if isinstance(prefix, SummaryFailure):
            return prefix
        usages.append(prefix.usage)
        summary += SPLIT_TURN_JOIN + prefix.text
    lists = compute_file_lists(preparation.file_ops)
    summary += format_file_operations(lists.read_files, lists.modified_files)
    if not js_truthy(preparation.first_kept_entry_id):
        return SummaryFailure(NO_FIRST_KEPT_ID)
    return CompactionResult(
        summary=summary,
        first_kept_entry_id=preparation.first_kept_entry_id,
        tokens_before=preparation.tokens_before,
        usage=usage_json(usages, options.rules),
        read_files=lists.read_files,
        modified_files=lists.modified_files,
    )
