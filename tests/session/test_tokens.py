"""Context tokens: Pi's chars/4 estimate, usage-backed estimates, the compaction trigger."""

from __future__ import annotations

from typing import Any

from lsp_server.session.estimates import (
    calculate_context_tokens,
    estimate_context_tokens,
    estimate_projected_context_tokens,
    estimate_tokens,
    estimate_tokens_with,
    exceeds_compaction_threshold,
    message_token_parts,
    should_compact,
)
from lsp_server.session.projection import build_session_projection
from lsp_server.vocabulary.compaction import CompactionSettings
from tests.session._entries import assistant, message, ts, usage, user


def test_characters_are_utf16_units() -> None:
    assert estimate_tokens(user("😀😀")) == 1  # 4 units
    assert estimate_tokens(user("😀😀x")) == 2  # 5 units -> ceil(5/4)


def test_an_image_counts_4800_characters() -> None:
    image = {"type": "image", "data": "AAAA", "mimeType": "image/png"}
    assert estimate_tokens(user([image])) == 1200


def test_tool_calls_count_name_and_json_arguments() -> None:
    call = {"type": "toolCall", "id": "1", "name": "read", "arguments": {"path": "a"}}
    message = {**assistant(), "content": [call]}
    assert estimate_tokens(message) == 4  # "read" + '{"path":"a"}' = 16 units


def test_system_messages_count_content_sections_and_tools() -> None:
    message = {"role": "system", "content": "ab", "sections": {"a": "cd", "gone": None},
               "toolsAdded": [{"name": "t"}], "timestamp": 0}  # fmt: skip
    assert [p.kind for p in message_token_parts(message)] == ["text", "section", "tools"]
    assert estimate_tokens(message) == 5  # 2 + 2 + len('[{"name":"t"}]') = 18


def test_unknown_roles_count_nothing() -> None:
    assert estimate_tokens({"role": "mystery", "content": "x" * 100}) == 0


def test_another_counter_sees_the_same_breakdown() -> None:
    message = user([{"type": "text", "text": "one two"}, {"type": "image", "data": "x", "mimeType": "image/png"}])
    assert estimate_tokens_with(message, lambda text: len(text.split()), image_tokens=7) == 9


def test_total_tokens_wins_else_the_parts_are_summed() -> None:
    assert calculate_context_tokens(usage(10, 5, total=99)) == 99
    assert calculate_context_tokens(usage(10, 5, total=0)) == 15


def test_context_estimate_uses_the_last_usable_usage_plus_later_estimates() -> None:
    messages = [
        user("q"),
        assistant(use=usage(100, 10)),
        assistant(stop="aborted", use=usage(900, 1)),
        user("abcd"),
    ]
    estimate = estimate_context_tokens(messages)
    assert (estimate.tokens, estimate.usage_tokens, estimate.trailing_tokens, estimate.last_usage_index) == (
        112,
        110,
        2,
        1,
    )


def test_without_usage_the_estimate_is_the_sum() -> None:
    estimate = estimate_context_tokens([user("abcd"), user("abcdefgh")])
    assert (estimate.tokens, estimate.last_usage_index) == (3, None)


def _session(*extra: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        message("s", None, {"role": "system", "content": "", "sections": {"p": "x" * 40}, "timestamp": 0}),
        message("u", "s", user("q" * 8)),
        message("a", "u", assistant("answer", use=usage(5000, 0))),
        *extra,
    ]


def test_projected_estimate_trusts_usage_after_the_last_edit() -> None:
    entries = _session(message("u2", "a", user("abcd"), 4))
    result = estimate_projected_context_tokens(build_session_projection(entries), entries)
    assert (result.tokens, result.last_usage_index) == (5001, 2)


def test_projected_estimate_ignores_usage_older_than_a_context_edit() -> None:
    edit = {"type": "context_edit", "id": "e", "parentId": "a", "timestamp": ts(5), "targetId": "u",
            "replacement": {"content": "abcd"}}  # fmt: skip
    entries = _session(edit)
    result = estimate_projected_context_tokens(build_session_projection(entries), entries)
    # system (40 chars = 10) + edited user (1) + assistant text (6 chars = 2); no usage
    assert (result.tokens, result.last_usage_index) == (13, None)


def test_should_compact_is_strictly_above_window_minus_reserve() -> None:
    settings = CompactionSettings(reserve_tokens=10_000)
    assert not should_compact(90_000, 100_000, settings)
    assert should_compact(90_001, 100_000, settings)
    assert not should_compact(99_999, 100_000, CompactionSettings(enabled=False))


def test_a_model_without_a_window_never_compacts() -> None:
    assert should_compact(1, 0, CompactionSettings())  # Pi's function alone says yes
    assert not exceeds_compaction_threshold(1, 0, CompactionSettings())
