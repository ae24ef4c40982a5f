"""Values exchanged with a language model: the request, the reply, token usage, retry notices.

These are plain frozen dataclasses with no HTTP in them, so the compaction and branch-summary code
can depend on them (and on the :class:`~lsp_server.llm.client.LlmClient` protocol) without pulling in
httpx. Names follow Pi's ``AssistantMessage`` where Pi has one (``stopReason`` values, usage fields).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

StopReason = Literal["stop", "length", "toolUse", "error", "aborted"]
"""Pi's vocabulary for why a reply ended (``AssistantMessage.stopReason``)."""

ReasoningLevel = Literal["minimal", "low", "medium", "high", "xhigh"]
"""Pi's thinking levels other than ``off`` (``off`` is expressed as ``reasoning=None``)."""

MaxTokensField = Literal["max_tokens", "max_completion_tokens"]
"""Which body field carries an OpenAI-compatible request's output cap (OpenAI itself wants the second)."""

ABORTED_MESSAGE = "Request was aborted"
"""Pi's error text for an aborted request (``pi-ai`` providers)."""

Message = Mapping[str, Any]
"""One of Pi's LLM messages as JSON: ``{"role": "user"|"assistant"|"toolResult", "content": ...}``."""


@dataclass(frozen=True)
class Usage:
    """Token usage of one reply, in Pi's fields (``input`` excludes cached input, as in Pi)."""

    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0

    @property
    def total_tokens(self) -> int:
        return self.input + self.output + self.cache_read + self.cache_write

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input + other.input,
            self.output + other.output,
            self.cache_read + other.cache_read,
            self.cache_write + other.cache_write,
        )

    def to_json(self) -> dict[str, Any]:
        """Pi's usage object; cost is always zero because we do not price models."""
        return {
            "input": self.input,
            "output": self.output,
            "cacheRead": self.cache_read,
            "cacheWrite": self.cache_write,
            "totalTokens": self.total_tokens,
            "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
        }


@dataclass(frozen=True)
class CompletionRequest:
    """What to send: a system prompt and Pi-shaped messages, plus per-call options.

    ``model`` overrides the client's configured model. ``max_tokens=None`` lets the provider decide
    (Pi 1.6.0 sends no cap for summaries); the Anthropic adapter must send one and uses its
    configured default. ``session_id`` is routing information only: it is never used to enable
    prompt caching.
    """

    system: str
    messages: Sequence[Message]
    model: str | None = None
    max_tokens: int | None = None
    reasoning: ReasoningLevel | None = None
    session_id: str | None = None
    temperature: float | None = None

    @staticmethod
    def single_prompt(system: str, prompt: str, **options: Any) -> CompletionRequest:
        """The shape every summary call has: one user message with one text block."""
        message = {"role": "user", "content": [{"type": "text", "text": prompt}]}
        return CompletionRequest(system=system, messages=(message,), **options)


@dataclass(frozen=True)
class AssistantReply:
    """The outcome of one completion, success or not (errors are values, never exceptions).

    ``text`` is the reply's text blocks joined with ``\\n`` (Pi's ``contentText``); it is empty for
    ``error`` and ``aborted`` so a partial stream can never pass for a result. ``attempts`` counts the
    HTTP requests made (1 + retries).
    """

    text: str
    stop_reason: StopReason
    usage: Usage = field(default_factory=Usage)
    error_message: str | None = None
    has_tool_call: bool = False
    model: str = ""
    provider: str = ""
    attempts: int = 1

    @property
    def ok(self) -> bool:
        """A reply a summary may be made from: it stopped normally and called no tool."""
        return self.stop_reason == "stop" and not self.has_tool_call


@dataclass(frozen=True)
class RetryNotice:
    """Told to ``on_retry`` before each backoff sleep (Pi's ``onRetryScheduled``)."""

    attempt: int  # 1 for the first retry
    max_retries: int
    delay_s: float
    error_message: str


TextProgress = Callable[[int], None]
"""``on_text_delta(chars_so_far)``: characters of reply text received so far in this attempt."""

RetryCallback = Callable[[RetryNotice], None]
