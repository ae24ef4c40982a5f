"""Server-sent event framing, as both providers use it."""

from __future__ import annotations

from lsp_server.llm.sse import SseEvent, SseParser


def parse(*lines: str) -> list[SseEvent]:
    parser = SseParser()
    events = [e for line in lines if (e := parser.feed_line(line)) is not None]
    last = parser.flush()
    return [*events, last] if last is not None else events


def test_a_blank_line_ends_an_event() -> None:
    assert parse("data: one", "", "data: two", "") == [SseEvent("message", "one"), SseEvent("message", "two")]


def test_data_lines_are_joined_with_newlines() -> None:
    assert parse("data: a", "data: b", "") == [SseEvent("message", "a\nb")]


def test_only_one_space_after_the_colon_is_dropped() -> None:
    assert parse("data:x", "", "data:  y", "") == [SseEvent("message", "x"), SseEvent("message", " y")]


def test_event_names_the_event_and_does_not_leak_into_the_next() -> None:
    assert parse("event: message_stop", "data: {}", "", "data: 1", "") == [
        SseEvent("message_stop", "{}"),
        SseEvent("message", "1"),
    ]


def test_comments_and_unknown_fields_are_ignored() -> None:
    assert parse(": keep-alive", "id: 7", "retry: 10", "data: d", "") == [SseEvent("message", "d")]


def test_an_event_without_data_is_not_dispatched() -> None:
    assert parse("event: ping", "", "") == []


def test_the_last_event_counts_without_a_trailing_blank_line() -> None:
    assert parse("data: [DONE]") == [SseEvent("message", "[DONE]")]
