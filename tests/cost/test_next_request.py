"""The next request priced: the byte-identical prefix, the cache's expiry, the expected reads and cost."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from lsp_server.cost.ledger import request_of
from lsp_server.cost.next_request import NextRequestCost, price_next_request
from lsp_server.cost.prices import ModelPrices, Rates
from lsp_server.js.values import js_get
from lsp_server.session.projection import build_session_projection
from lsp_server.session.tail import load_session
from lsp_server.session.tree import build_path
from lsp_server.tokens.pi import pi_text_tokens
from tests.budget._sessions import assistant, message, system, user

FIXTURES = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "pi"
RATES = Rates(3, 15, 0.3, 3.75)


def prices(*, mid: bool = False, lifetime: float | None = 300) -> Any:
    def prices_for(provider: str | None, model: str | None) -> ModelPrices:
        return ModelPrices(provider, model, RATES, (), "pi", lifetime, 3600, "pi", mid_conversation_system=mid)

    return prices_for


def reply(entry_id: str, parent: str, at_ms: int, *, model: str = "claude-test", **counts: Any) -> dict[str, Any]:
    usage = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, **counts}
    return message(
        entry_id, parent, {**assistant("answer " + entry_id), "model": model, "usage": usage, "timestamp": at_ms}
    )


def predict(branch: list[dict[str, Any]], **options: Any) -> NextRequestCost:
    projection = build_session_projection(branch, js_get(branch[-1], "id"), {e["id"]: e for e in branch})
    return price_next_request(branch, projection, prices(**options), pi_text_tokens)


PROMPT = {"preamble": "You are helpful.", "project_context": "<project_context>\nUse tabs.\n</project_context>"}


def two_turns(*, second_prompt: dict[str, Any] | None = None, model: str = "claude-test") -> list[dict[str, Any]]:
    branch = [
        message("s", None, system(PROMPT)),
        message("u", "s", user("first question")),
        reply("a", "u", 1_000, cacheWrite=900, input=3),
    ]
    parent = "a"
    if second_prompt is not None:
        branch.append(message("s2", "a", system(second_prompt, timestamp=2)))
        parent = "s2"
    branch.append(message("u2", parent, user("second question")))
    if model != "claude-test":
        branch[-1]["message"]["content"] = "second question"
        change = {"type": "model_change", "id": "m", "parentId": parent, "timestamp": "2025-01-01T00:00:03.000Z"}
        branch.insert(-1, {**change, "provider": "anthropic", "modelId": model})
        branch[-1]["parentId"] = "m"
    return branch


def test_an_unchanged_conversation_keeps_the_whole_previous_request_cached() -> None:
    predicted = predict(two_turns())
    assert predicted.prefix is not None and predicted.prefix.whole_previous
    assert (predicted.prefix.segments, predicted.prefix.previous_segments, predicted.prefix.next_segments) == (2, 2, 4)
    assert predicted.warm.cache_read == 900  # what the previous request read and wrote
    assert predicted.warm.cost is not None and predicted.cold.cost is not None
    assert predicted.warm.cost < predicted.cold.cost
    assert (
        predicted.cold.cache_read == 0
        and predicted.cold.new_input == predicted.warm.cache_read + predicted.warm.new_input
    )


def test_a_changed_section_rewrites_the_start_for_a_model_without_mid_conversation_system_messages() -> None:
    changed = {**PROMPT, "project_context": "<project_context>\nUse spaces.\n</project_context>"}
    predicted = predict(two_turns(second_prompt=changed))
    prefix = predicted.prefix
    assert prefix is not None and prefix.segments == 0 and not prefix.system_kept
    assert prefix.broken_at is not None and prefix.broken_at.kind == "system"
    text = "You are helpful.\n\n<project_context>\nUse "
    assert prefix.broken_offset == len(text) and prefix.chars == len(text)
    assert predicted.warm.cache_read == 0  # Anthropic reads only up to a breakpoint: none survives


def test_a_changed_section_is_a_patch_at_the_end_for_a_model_with_mid_conversation_system_messages() -> None:
    changed = {**PROMPT, "project_context": "<project_context>\nUse spaces.\n</project_context>"}
    predicted = predict(two_turns(second_prompt=changed), mid=True)
    prefix = predicted.prefix
    assert prefix is not None and prefix.whole_previous and prefix.system_kept
    assert prefix.broken_at is not None and prefix.broken_at.kind == "assistant"
    assert predicted.warm.cache_read == 900


def test_another_model_reads_nothing_from_the_previous_models_cache() -> None:
    predicted = predict(two_turns(model="claude-other"))
    assert not predicted.same_model and predicted.warm.cache_read == 0
    assert any("model changed" in note for note in predicted.notes)


def test_the_expiry_is_the_last_request_plus_the_models_cache_lifetime() -> None:
    predicted = predict(two_turns())
    assert predicted.expires_at_ms == 1_000 + 300_000
    assert predicted.expired(300_999) is False and predicted.expired(301_000) is True
    unknown = predict(two_turns(), lifetime=None)
    assert unknown.expires_at_ms is None and unknown.expired(10**13) is None


def test_without_an_earlier_request_everything_is_new_input() -> None:
    branch = [message("s", None, system(PROMPT)), message("u", "s", user("hello"))]
    predicted = predict(branch)
    assert predicted.previous is None and predicted.prefix is None
    assert predicted.warm == predicted.cold and predicted.cold.cache_read == 0


@pytest.mark.parametrize(("name", "stride"), [("before-compaction", 12), ("large-session", 12)])
def test_the_predicted_cache_reads_are_the_ones_the_provider_reported(name: str, stride: int) -> None:
    """Replayed over Pi's recorded Anthropic sessions: each reply's request predicted from the one before."""
    session = load_session(FIXTURES / f"{name}.jsonl")
    branch = build_path(session.entries, by_id=session.index.by_id)
    replies = [i for i, e in enumerate(branch) if js_get(js_get(e, "message"), "role") == "assistant"]
    exact = checked = 0
    for index in replies[1::stride]:
        upto = branch[:index]
        projection = build_session_projection(upto, js_get(upto[-1], "id"), {js_get(e, "id"): e for e in upto})
        predicted = price_next_request(upto, projection, prices(), pi_text_tokens)
        actual = request_of(branch[index], prices())
        assert actual is not None and actual.timestamp_ms is not None
        expected = 0 if predicted.expired(actual.timestamp_ms) else predicted.warm.cache_read
        checked += 1
        exact += expected == actual.usage.cache_read
        # Never a miss predicted where the provider hit the cache.
        assert not (expected == 0 and actual.usage.cache_read > 0), branch[index]["id"]
    assert checked >= 30 and exact >= 0.9 * checked
