"""Breakdown arithmetic: exact apportioning, reconciliation with provider usage, categories that add up."""

from __future__ import annotations

import pytest

from lsp_server.budget.breakdown import (
    FREE,
    PI_ESTIMATOR,
    RESERVE,
    UNATTRIBUTED,
    Tally,
    estimator_info,
    finish,
    reconcile,
)
from lsp_server.budget.parts import apportion
from lsp_server.tokens.counter import choose_counter


def test_apportion_adds_up_to_the_total() -> None:
    assert sum(apportion(1001, [3, 5, 7, 11])) == 1001


def test_apportion_gives_leftovers_to_the_largest_remainders_then_the_earliest() -> None:
    assert apportion(10, [1, 1, 1]) == [4, 3, 3]
    assert apportion(10, [1, 2]) == [3, 7]


def test_apportion_with_zero_weights_gives_everything_to_the_first_part() -> None:
    assert apportion(5, [0, 0]) == [5, 0]


def test_apportion_of_nothing_is_nothing() -> None:
    assert apportion(0, [4, 4]) == [0, 0]
    assert apportion(3, []) == []


def _tally(**tokens: int) -> Tally:
    tally = Tally()
    for category, value in tokens.items():
        tally.add(category.replace("_", "."), value)
    return tally


def test_usage_above_the_estimates_becomes_an_unattributed_category() -> None:
    reconciled, info, note = reconcile(_tally(messages_user=60, messages_assistant=40), 130)
    assert reconciled.rows[UNATTRIBUTED][0] == 30
    assert reconciled.total() == 130
    assert (info.usage_tokens, info.estimated_tokens, info.method) == (130, 100, "unattributed")
    assert note is not None and "30" in note


def test_usage_below_the_estimates_scales_them_down_to_the_usage() -> None:
    reconciled, info, note = reconcile(_tally(messages_user=60, messages_assistant=40), 50)
    assert reconciled.rows["messages.user"][0] == 30
    assert reconciled.rows["messages.assistant"][0] == 20
    assert UNATTRIBUTED not in reconciled.rows
    assert info.method == "scaled"
    assert note is not None and "0.500" in note


def test_usage_below_the_estimates_scales_the_messages_and_keeps_the_system_prompts_count() -> None:
    covered = _tally(system_preamble=300, system_cwd=100, messages_user=60, messages_assistant=40)
    reconciled, info, note = reconcile(covered, 450)
    assert (reconciled.rows["system.preamble"][0], reconciled.rows["system.cwd"][0]) == (300, 100)
    assert (reconciled.rows["messages.user"][0], reconciled.rows["messages.assistant"][0]) == (30, 20)
    assert reconciled.total() == 450 and info.method == "scaled"
    assert note is not None and "keeps its 400" in note and "0.500" in note


def test_the_same_stored_prompt_has_one_count_whatever_the_usage() -> None:
    counts = {
        reconcile(_tally(system_preamble=800, messages_user=900), usage)[0].rows["system.preamble"][0]
        for usage in (850, 1_100, 1_300, 1_700, 2_500)
    }
    assert counts == {800}


def test_usage_below_the_system_prompts_own_estimate_scales_everything() -> None:
    reconciled, _, note = reconcile(_tally(system_preamble=300, messages_user=100), 200)
    assert (reconciled.rows["system.preamble"][0], reconciled.rows["messages.user"][0]) == (150, 50)
    assert note is not None and "those categories are scaled by 0.500" in note


def test_usage_equal_to_the_estimates_changes_nothing() -> None:
    reconciled, info, note = reconcile(_tally(messages_user=60), 60)
    assert (reconciled.total(), info.method, note) == (60, "exact", None)


def test_scaling_keeps_item_counts() -> None:
    tally = Tally()
    tally.add("messages.user", 100)
    tally.add("messages.user", 100)
    reconciled, _, _ = reconcile(tally, 50)
    assert reconciled.rows["messages.user"] == [50, 2]


@pytest.mark.parametrize(
    ("used", "reserve", "free", "overflow"),
    [
        (1_000, 200, 8_800, 0),  # fits with room to spare
        (9_900, 100, 0, 0),  # past the threshold: only part of the reserve is left
        (10_000, 0, 0, 0),  # exactly the window
        (12_500, 0, 0, 2_500),  # over the window
    ],
)
def test_categories_add_up_to_the_window_plus_overflow(used: int, reserve: int, free: int, overflow: int) -> None:
    breakdown = finish(_tally(messages_user=used), estimator=PI_ESTIMATOR, window=10_000, reserve_tokens=200)
    assert (breakdown.used, breakdown.reserve, breakdown.free, breakdown.overflow) == (used, reserve, free, overflow)
    assert breakdown.total == 10_000 + overflow


def test_the_reserve_and_free_categories_are_always_present_and_last() -> None:
    breakdown = finish(Tally(), estimator=PI_ESTIMATOR, window=100, reserve_tokens=30)
    assert [(c.id, c.tokens) for c in breakdown.categories] == [(RESERVE, 30), (FREE, 70)]


def test_empty_categories_are_left_out() -> None:
    tally = Tally()
    tally.add("messages.user", 0, None)
    tally.add("messages.assistant", 0)
    breakdown = finish(tally, estimator=PI_ESTIMATOR, window=100, reserve_tokens=0)
    assert [c.id for c in breakdown.categories] == ["messages.assistant", RESERVE, FREE]


def test_categories_are_ordered_system_then_messages_then_other() -> None:
    tally = Tally()
    tally.add(UNATTRIBUTED, 1, None)
    tally.add("messages.toolResult", 1)
    tally.add("messages.user", 1)
    tally.add("system.preamble", 1, None)
    ids = [c.id for c in finish(tally, estimator=PI_ESTIMATOR, window=100, reserve_tokens=0).categories]
    assert ids == ["system.preamble", "messages.user", "messages.toolResult", UNATTRIBUTED, RESERVE, FREE]


def test_the_estimator_label_names_the_family() -> None:
    info = estimator_info(choose_counter("weighted", "claude"))
    assert (info.name, info.family, info.exact, info.label) == (
        "weighted",
        "claude",
        False,
        "weighted estimate (claude family)",
    )


def test_the_estimator_label_carries_the_fallback_note() -> None:
    info = estimator_info(choose_counter("exact", "claude"))
    assert info.name == "weighted"
    assert info.note is not None and "claude" in info.note
