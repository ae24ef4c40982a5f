"""When to give up, when to try again, and how long to wait: the retry and timeout policy.

The policy mirrors Pi's (``retryAssistantCall`` in pi-ai plus its provider settings) where Pi has
one, and is stricter where the brief asks:

* retried: HTTP 429 (unless the body says the quota or billing is exhausted), HTTP 5xx, connection
  failures (refused, reset, dropped) and read-idle timeouts, a stream that ends before its final
  event, and provider error events that say "overloaded"/"api_error". A connection dropped
  *mid-stream after text arrived* is retried too, from scratch (Pi does the same: its retry
  wraps the whole call); the partial text is discarded and ``on_retry`` tells the UI to reset.
* never retried: any other 4xx, a ``length`` or tool-call stop, a content-filter stop, an abort.
* waits: ``base_delay_s * 2**(n-1)`` capped at ``max_delay_s``; a server's ``retry-after`` /
  ``retry-after-ms`` replaces that, but a request to wait longer than ``max_retry_after_s`` ends the
  call with an error at once (Pi's ``maxRetryDelayMs`` behaviour) instead of sleeping for minutes.
* ``total_s`` (the deadline) bounds the whole call, retries and sleeps included; a retry that
  could not start before the deadline is not attempted. ``read_idle_s`` bounds each silence,
  waiting for the answer to start included, so a server that accepts a request and never answers
  costs one idle limit per attempt.
* a reply is read up to :func:`output_cap` characters (``OUTPUT_CHARS_PER_TOKEN`` per token of the
  output limit, several times what a complete answer can hold) and one stream line (or one
  non-streamed body) up to :data:`MAX_LINE_CHARS`; past either the attempt stops with an error that
  is not retried (a flood would flood again), so memory stays flat whatever the server sends.

The error messages name the setting and the flag that raise each limit (``IDLE_LIMIT``,
``DEADLINE``), so a user who meets one knows what to change.
"""

from __future__ import annotations

import email.utils
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

OUTPUT_CHARS_PER_TOKEN: Final = 16  # 4 characters a token, 4 times the output limit
MAX_LINE_CHARS: Final = 1 << 20  # one stream line, one event's data, one non-streamed body
IDLE_LIMIT: Final = "summarizer.timeoutSeconds or --timeout"
DEADLINE: Final = "summarizer.deadlineSeconds or --deadline"


@dataclass(frozen=True)
class RetryPolicy:
    max_retries: int = 3  # Pi's retry.maxRetries default
    base_delay_s: float = 2.0  # Pi's retry.baseDelayMs default
    max_delay_s: float = 60.0
    max_retry_after_s: float = 60.0  # Pi's retry.provider.maxRetryDelayMs default

    def backoff_s(self, attempt: int) -> float:
        """Delay before retry number ``attempt`` (1-based) when the server gave no hint."""
        return float(min(self.base_delay_s * 2 ** max(0, attempt - 1), self.max_delay_s))


@dataclass(frozen=True)
class Timeouts:
    connect_s: float = 10.0
    read_idle_s: float = 30.0  # longest silence allowed, waiting for the answer to start included
    total_s: float = 120.0  # the deadline: the whole call, retries and waits included


def output_cap(max_tokens: int) -> int:
    """The most reply characters read for an output limit of ``max_tokens`` tokens."""
    return OUTPUT_CHARS_PER_TOKEN * max(1, max_tokens)


def idle_message(seconds: float) -> str:
    return f"Request timed out: no data for {seconds:g}s (the idle limit; raise {IDLE_LIMIT})"


def deadline_message(seconds: float) -> str:
    return (
        f"Request timed out after {seconds:g}s (the deadline for the whole call, retries and waits included; "
        f"raise {DEADLINE})"
    )


def too_long_message(cap: int, max_tokens: int) -> str:
    return (
        f"Reply too long: more than {cap:,} characters streamed ({OUTPUT_CHARS_PER_TOKEN} per token of the "
        f"{max_tokens:,}-token output limit); stopped reading it"
    )


def line_too_long_message() -> str:
    return f"Reply not readable: a stream line or body longer than {MAX_LINE_CHARS:,} characters; stopped reading it"


_QUOTA_PATTERN = re.compile(r"insufficient_quota|quota exceeded|out of budget|billing|usage limit", re.IGNORECASE)
_TRANSIENT_PATTERN = re.compile(
    r"overloaded|rate.?limit|too many requests|server.?error|internal.?error|api_error|"
    r"service.?(?:is.?)?(?:temporarily.?)?unavailable|timed? ?out|network.?error|connection",
    re.IGNORECASE,
)


def is_retryable_status(status: int, body: str) -> bool:
    """429 and 5xx are transient; a 429 that reports an exhausted quota is not."""
    if status == 429:
        return _QUOTA_PATTERN.search(body) is None
    return 500 <= status <= 599


def is_transient_error_text(text: str) -> bool:
    """For errors reported inside a 200 stream (OpenRouter error chunks, Anthropic error events)."""
    return _TRANSIENT_PATTERN.search(text) is not None and _QUOTA_PATTERN.search(text) is None


def parse_retry_after(headers: Mapping[str, str], *, now: float | None = None) -> float | None:
    """Seconds the server asks us to wait: ``retry-after-ms``, else ``retry-after`` (seconds or a date)."""
    lowered = {k.lower(): v for k, v in headers.items()}
    ms = lowered.get("retry-after-ms")
    if ms is not None:
        try:
            return max(0.0, float(ms) / 1000.0)
        except ValueError:
            pass
    value = lowered.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    current = time.time() if now is None else now
    return max(0.0, when.timestamp() - current)
