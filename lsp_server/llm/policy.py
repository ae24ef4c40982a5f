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
* ``total_s`` bounds the whole call, retries and sleeps included; a retry that could not start
  before the deadline is not attempted.
"""

from __future__ import annotations

import email.utils
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass


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
    read_idle_s: float = 120.0  # longest silence allowed between two received bytes
    total_s: float = 600.0  # the whole call, retries included


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
