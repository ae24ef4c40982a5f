"""Pi's cut-point rules (pi-behavior.md §7.2), one test per rule, on the smallest session that shows it.

Sizes: 400 characters = 100 tokens (Pi's ``ceil(chars / 4)``).
"""

from __future__ import annotations

from lsp_server.compaction.cut_points import (
    CutPoint,
    find_cut_point,
    find_projected_cut_point,
    find_turn_start_index,
    is_recovery_omission_suffix,
)
from lsp_server.session.projection import build_session_projection
from tests.compaction._sessions import Chain

X = "x" * 400


def _cut(chain: Chain, keep: int, start: int = 0, end: int | None = None) -> CutPoint:
    return find_cut_point(chain.entries, start, len(chain.entries) if end is None else end, keep)


def test_no_cut_point_in_range_keeps_from_the_start() -> None:
    chain = Chain()
    chain.tool_result(X)
    assert _cut(chain, 10) == CutPoint(0, -1, False)


def test_everything_fits_keeps_from_the_first_cut_point() -> None:
    chain = Chain()
    chain.tool_result(X)
    chain.user(X)
    chain.assistant(X)
    assert _cut(chain, 10_000) == CutPoint(1, -1, False)


def test_cut_snaps_to_the_first_cut_point_at_or_after_the_crossing() -> None:
    chain = Chain()
    chain.user(X)
    chain.assistant(X, calls=(("read", {"path": "a"}),))
    chain.tool_result(X)  # crossing happens here (200 >= 150), but a tool result cannot start the kept range
    chain.user(X)
    assert _cut(chain, 150).first_kept_entry_index == 3


def test_trailing_tool_results_over_budget_keep_their_call() -> None:
    chain = Chain()
    chain.user(X)
    chain.assistant("calling", calls=(("read", {"path": "a"}),))
    chain.tool_result(X * 10)
    assert _cut(chain, 100) == CutPoint(1, 0, True)


def test_metadata_just_before_the_cut_is_kept() -> None:
    chain = Chain()
    chain.user(X)
    chain.assistant(X)
    chain.model_change()
    chain.user(X)
    assert _cut(chain, 100).first_kept_entry_index == 2


def test_walking_back_over_metadata_stops_at_a_compaction() -> None:
    chain = Chain()
    chain.user(X)
    chain.compaction("old", "e1")
    chain.model_change()
    chain.user(X)
    assert _cut(chain, 100).first_kept_entry_index == 2


def test_cutting_at_an_assistant_message_splits_its_turn() -> None:
    chain = Chain()
    chain.user(X)
    chain.assistant(X)
    chain.assistant(X)
    assert _cut(chain, 100) == CutPoint(2, 0, True)


def test_cutting_at_a_user_message_does_not_split() -> None:
    chain = Chain()
    chain.user(X)
    chain.assistant(X)
    chain.user(X)
    assert _cut(chain, 100) == CutPoint(2, -1, False)


def test_no_turn_start_inside_the_range_is_not_a_split_turn() -> None:
    chain = Chain()
    chain.user(X)
    chain.assistant(X)
    chain.assistant(X)
    assert _cut(chain, 100, start=1) == CutPoint(2, -1, False)


def test_a_compaction_is_neither_a_cut_point_nor_a_turn_start() -> None:
    chain = Chain()
    chain.user("u")
    chain.compaction("summary " + X, "e1")
    chain.assistant(X)
    assert find_turn_start_index(chain.entries, 2, 0) == 0
    assert _cut(chain, 100) == CutPoint(2, 0, True)


def test_token_estimates_count_utf16_units() -> None:
    chain = Chain()
    chain.user("😀" * 200)  # 400 UTF-16 units: 100 tokens
    chain.user("u")
    assert _cut(chain, 100).first_kept_entry_index == 0
    assert _cut(chain, 101).first_kept_entry_index == 0
    assert _cut(chain, 2).first_kept_entry_index == 0  # 1 + 100 crosses only at the first entry


def test_bash_and_custom_messages_start_turns() -> None:
    chain = Chain()
    chain.add("message", {"message": {"role": "bashExecution", "command": "ls", "output": "o", "timestamp": 1}})
    chain.assistant(X)
    chain.add("custom_message", {"customType": "ext", "content": "c", "display": True})
    assert find_turn_start_index(chain.entries, 1, 0) == 0
    assert find_turn_start_index(chain.entries, 2, 0) == 2


def test_projected_cut_ignores_entries_an_edit_omitted() -> None:
    chain = Chain()
    chain.user(X)
    chain.assistant(X * 10)
    chain.user(X)
    chain.edit("e2", None)
    projected = build_session_projection(chain.entries).entries
    # Omitted, the big assistant message costs nothing: the budget is only crossed at the first entry.
    assert find_projected_cut_point(projected, 0, len(projected), 150).first_kept_entry_index == 0


def test_an_omitted_recovery_attempt_after_the_cut_is_kept() -> None:
    chain = Chain()
    chain.user(X)
    chain.assistant(X)
    chain.user(X)
    chain.assistant(X * 5, stop="error")
    chain.edit("e4", None)
    projected = build_session_projection(chain.entries).entries
    # The budget is crossed at e3 (the attempt costs nothing once omitted); the rule moves the cut
    # past it so the omitted attempt stays in the kept range instead of being summarized.
    assert find_projected_cut_point(projected, 0, len(projected), 100) == CutPoint(3, 2, True)


def test_a_replacement_edit_outside_the_omitted_set_blocks_the_recovery_rule() -> None:
    chain = Chain()
    chain.user(X)
    chain.assistant(X * 5, stop="error")
    chain.edit("e2", None)
    chain.edit("e1", {"content": "rewritten"})
    projected = build_session_projection(chain.entries).entries
    assert not is_recovery_omission_suffix(projected[1:])
    assert is_recovery_omission_suffix(projected[1:3])
