"""Retry classification, backoff and retry-after parsing."""

from __future__ import annotations

from email.utils import formatdate

from lsp_server.llm.policy import RetryPolicy, is_retryable_status, is_transient_error_text, parse_retry_after


def test_backoff_doubles_and_is_capped() -> None:
    policy = RetryPolicy(base_delay_s=2, max_delay_s=5)
    assert [policy.backoff_s(n) for n in (1, 2, 3, 4)] == [2, 4, 5, 5]


def test_429_and_5xx_are_retryable_other_4xx_are_not() -> None:
    assert [is_retryable_status(s, "") for s in (429, 500, 503, 529, 400, 401, 404, 408)] == [
        True,
        True,
        True,
        True,
        False,
        False,
        False,
        False,
    ]


def test_a_429_reporting_exhausted_quota_is_not_retryable() -> None:
    assert not is_retryable_status(429, '{"error": {"code": "insufficient_quota"}}')


def test_transient_stream_errors_are_recognised() -> None:
    assert is_transient_error_text('{"type": "overloaded_error", "message": "Overloaded"}')
    assert not is_transient_error_text('{"type": "invalid_request_error", "message": "prompt is too long"}')


def test_retry_after_in_seconds_milliseconds_and_http_date() -> None:
    assert parse_retry_after({"Retry-After": "3"}) == 3.0
    assert parse_retry_after({"retry-after-ms": "250", "retry-after": "9"}) == 0.25
    assert parse_retry_after({"retry-after": formatdate(1000.0 + 30, usegmt=True)}, now=1000.0) == 30.0
    assert parse_retry_after({"retry-after": "soon"}) is None
    assert parse_retry_after({}) is None
