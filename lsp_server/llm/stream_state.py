"""What every adapter's stream reader produces: the outcome of one HTTP attempt.

An adapter feeds SSE events (or, when a server ignores ``stream: true``, one JSON body) into its
state object; the state knows the wire format, the HTTP client knows retries and timeouts.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from lsp_server.llm.sse import SseEvent
from lsp_server.llm.types import StopReason, Usage


@dataclass(frozen=True)
class AttemptResult:
    """One HTTP attempt's outcome, with what the retry loop needs to decide."""

    text: str
    stop_reason: StopReason
    usage: Usage = field(default_factory=Usage)
    error_message: str | None = None
    has_tool_call: bool = False
    model: str = ""
    retryable: bool = False
    retry_after_s: float | None = None


def failed(message: str, *, retryable: bool, model: str = "", retry_after_s: float | None = None) -> AttemptResult:
    """An error attempt: never carries text, so partial output cannot leak into a result."""
    return AttemptResult(
        text="",
        stop_reason="error",
        error_message=message,
        model=model,
        retryable=retryable,
        retry_after_s=retry_after_s,
    )


class StreamState(Protocol):
    @property
    def done(self) -> bool:
        """The terminal event arrived; nothing after it matters."""
        ...

    @property
    def text_chars(self) -> int:
        """Characters of reply text so far (for progress)."""
        ...

    def on_event(self, event: SseEvent) -> None: ...

    def on_full_response(self, body: Any) -> None: ...

    def result(self) -> AttemptResult:
        """The outcome once the stream ended (cleanly or not)."""
        ...


def as_int(value: Any) -> int:
    """A token count from JSON: numbers only (``null``, strings, booleans count as 0)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0
    return int(value)


def as_dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []
