"""Branch summaries (pi-behavior.md §10): collect, budgeted preparation, generation, placement."""

from __future__ import annotations

import asyncio

import pytest

from lsp_server.compaction.branch import (
    BranchSummary,
    PiWouldFail,
    branch_token_budget,
    collect_entries_for_branch_summary,
    generate_branch_summary,
    prepare_branch_entries,
    summary_parent_for_target,
)
from lsp_server.compaction.prompts import BRANCH_SUMMARY_PREAMBLE
from lsp_server.compaction.summarize import SummaryFailure
from lsp_server.conformance.ops_summaries import ScriptedClient
from tests.compaction._sessions import Chain


def _tree() -> Chain:
    """r1 -> r2 -> (a1 -> a2 -> a3) and (b1 -> b2)."""
    chain = Chain()
    chain.user("root", entry_id="r1")
    chain.assistant("root answer", entry_id="r2")
    chain.user("try A", entry_id="a1")
    chain.assistant("A", calls=(("edit", {"path": "a.ts"}),), entry_id="a2")
    chain.tool_result("edited", entry_id="a3")
    chain.user("try B", entry_id="b1", parent="r2")
    chain.assistant("B", entry_id="b2")
    return chain


def _ids(entries: list[dict[str, object]]) -> list[object]:
    return [e["id"] for e in entries]


def test_no_old_leaf_collects_nothing() -> None:
    result = collect_entries_for_branch_summary(_tree().entries, None, "b2")
    assert result.entries == [] and result.common_ancestor_id is None


def test_collects_from_the_old_leaf_back_to_the_common_ancestor_oldest_first() -> None:
    result = collect_entries_for_branch_summary(_tree().entries, "a3", "b2")
    assert result.common_ancestor_id == "r2"
    assert _ids(result.entries) == ["a1", "a2", "a3"]


def test_moving_down_the_same_branch_leaves_nothing_behind() -> None:
    result = collect_entries_for_branch_summary(_tree().entries, "r2", "a3")
    assert result.entries == [] and result.common_ancestor_id == "r2"


def test_tool_results_are_never_part_of_a_branch_summary() -> None:
    prepared = prepare_branch_entries(collect_entries_for_branch_summary(_tree().entries, "a3", "b2").entries)
    assert [m["role"] for m in prepared.messages] == ["user", "assistant"]


def test_newest_messages_are_kept_first_within_the_budget() -> None:
    chain = Chain()
    chain.user("x" * 400)  # 100 tokens
    chain.user("y" * 400)
    chain.user("z" * 40)  # 10 tokens
    prepared = prepare_branch_entries(chain.entries, 150)
    assert [m["content"][0] for m in prepared.messages] == ["y", "z"]
    assert prepared.total_tokens == 110


def test_a_summary_is_squeezed_in_over_budget_only_below_90_percent() -> None:
    for used_tokens, squeezed in ((134, True), (135, False)):
        chain = Chain()
        chain.branch_summary("S" * 400, "zz")
        chain.assistant("A" * (used_tokens * 4))
        prepared = prepare_branch_entries(chain.entries, 150)
        assert (prepared.messages[0]["role"] == "branchSummary") is squeezed


def test_file_operations_are_collected_before_the_budget_check() -> None:
    chain = Chain()
    chain.assistant("w" * 800, calls=(("write", {"path": "over-budget.ts"}),))
    chain.user("u" * 400)
    prepared = prepare_branch_entries(chain.entries, 100)
    assert len(prepared.messages) == 1
    assert list(prepared.file_ops.written) == ["over-budget.ts"]


def test_file_lists_carry_over_from_pi_made_branch_summaries_only() -> None:
    chain = Chain()
    chain.branch_summary("pi", "zz", details={"readFiles": ["pi.ts"], "modifiedFiles": ["m.ts"]})
    chain.branch_summary("hook", "zz", details={"readFiles": ["hook.ts"], "modifiedFiles": []}, fromHook=True)
    prepared = prepare_branch_entries(chain.entries)
    assert prepared.file_ops.to_json() == {"read": ["pi.ts"], "written": [], "edited": ["m.ts"]}


def test_context_edits_remove_or_replace_what_the_summary_sees() -> None:
    chain = Chain()
    chain.user("gone")
    chain.assistant("old text")
    chain.edit("e1", None)
    chain.edit("e2", {"content": "new text"})
    prepared = prepare_branch_entries(chain.entries)
    assert prepared.messages == [{**chain.entries[1]["message"], "content": [{"type": "text", "text": "new text"}]}]


def test_no_messages_means_no_content_to_summarize_and_no_call() -> None:
    client = ScriptedClient(["unused"])
    chain = Chain()
    chain.tool_result("only a tool result")
    result = asyncio.run(generate_branch_summary(chain.entries, client))
    assert result == BranchSummary("No content to summarize")
    assert client.requests == []


def test_the_summary_is_the_preamble_the_reply_and_the_file_lists() -> None:
    client = ScriptedClient(["## Goal\nTry A"])
    entries = collect_entries_for_branch_summary(_tree().entries, "a3", "b2").entries
    result = asyncio.run(generate_branch_summary(entries, client))
    assert isinstance(result, BranchSummary)
    assert result.summary == f"{BRANCH_SUMMARY_PREAMBLE}## Goal\nTry A\n\n<modified-files>\na.ts\n</modified-files>"
    assert result.details == {"readFiles": [], "modifiedFiles": ["a.ts"]}


def test_a_failed_reply_is_returned_with_the_branch_label() -> None:
    client = ScriptedClient([{"text": "", "stopReason": "error", "errorMessage": "boom"}])
    entries = collect_entries_for_branch_summary(_tree().entries, "a3", "b2").entries
    result = asyncio.run(generate_branch_summary(entries, client))
    assert result == SummaryFailure("Branch summarization failed: boom")


def test_the_budget_is_the_window_minus_the_reserve() -> None:
    assert branch_token_budget(200_000, 16_384) == 183_616
    assert branch_token_budget(None) == branch_token_budget(0) == 128_000 - 16_384


def test_a_user_message_target_puts_the_summary_under_its_parent() -> None:
    entries = {e["id"]: e for e in _tree().entries}
    assert summary_parent_for_target(entries["b1"]) == "r2"
    assert summary_parent_for_target(entries["r1"]) is None  # a new root
    assert summary_parent_for_target(entries["b2"]) == "b2"


def test_a_message_pi_cannot_count_fails_the_summary_as_pi_fails_naming_the_entry() -> None:
    client = ScriptedClient(["unused"])
    entries = [
        {
            "type": "message",
            "id": "m1",
            "parentId": None,
            "timestamp": "t",
            "message": {"role": "user", "content": "a"},
        },
        {
            "type": "message",
            "id": "m2",
            "parentId": "m1",
            "timestamp": "t",
            "message": {"role": "user", "content": None},
        },
    ]
    with pytest.raises(PiWouldFail, match=r"^content is not iterable$") as failure:
        prepare_branch_entries(entries)
    assert failure.value.entry_id == "m2"
    result = asyncio.run(generate_branch_summary(entries, client))
    assert result == SummaryFailure("Pi would fail on this session: content is not iterable (entry m2)")
    assert client.requests == []  # no model call for a session Pi itself cannot summarize
