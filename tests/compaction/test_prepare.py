"""Pi's ``prepareCompaction`` rules (pi-behavior.md §7.3), one test per rule."""

from __future__ import annotations

from lsp_server.compaction.prepare import (
    ALREADY_COMPACTED,
    NOTHING_TO_COMPACT,
    nothing_to_compact_reason,
    prepare_compaction,
)
from lsp_server.js.values import UNDEFINED
from lsp_server.vocabulary.compaction import CompactionSettings
from tests.compaction._sessions import Chain, usage

X = "x" * 400  # 100 tokens
KEEP_100 = CompactionSettings(keep_recent_tokens=100)


def _roles(messages: list[dict[str, object]]) -> list[object]:
    return [m["role"] for m in messages]


def test_nothing_when_the_branch_ends_with_a_compaction() -> None:
    chain = Chain()
    chain.user(X)
    chain.assistant(X)
    chain.compaction("s", "e2")
    assert prepare_compaction(chain.entries, KEEP_100) is None
    assert nothing_to_compact_reason(chain.entries) == ALREADY_COMPACTED


def test_nothing_when_everything_fits_in_keep_recent_tokens() -> None:
    chain = Chain()
    chain.user("hi")
    chain.assistant("hello")
    assert prepare_compaction(chain.entries, CompactionSettings()) is None
    assert nothing_to_compact_reason(chain.entries) == NOTHING_TO_COMPACT


def test_history_is_everything_before_the_cut() -> None:
    chain = Chain()
    chain.user(X)
    chain.assistant(X)
    chain.user(X)
    prep = prepare_compaction(chain.entries, KEEP_100)
    assert prep is not None
    assert prep.first_kept_entry_id == "e3"
    assert _roles(prep.messages_to_summarize) == ["user", "assistant"]
    assert prep.turn_prefix_messages == []
    assert prep.previous_summary is UNDEFINED
    assert "previousSummary" not in prep.to_json()


def test_a_previous_compaction_gives_the_summary_and_the_start_of_the_range() -> None:
    chain = Chain()
    chain.user("summarized long ago " + X)
    chain.assistant(X)
    chain.compaction("OLD", "e2")
    chain.user(X)
    chain.assistant(X)
    chain.user(X)
    prep = prepare_compaction(chain.entries, KEEP_100)
    assert prep is not None
    assert prep.previous_summary == "OLD"
    # e1 was summarized by the previous compaction: only the kept e2 and what follows count.
    assert prep.messages_to_summarize[0]["content"] == [{"type": "text", "text": X}]
    assert _roles(prep.messages_to_summarize) == ["assistant", "user", "assistant"]


def test_tokens_before_ignores_usage_older_than_a_context_edit() -> None:
    chain = Chain()
    chain.user(X)
    chain.assistant(X, use=usage(90_000, 100))
    chain.edit("e1", {"content": "short"})
    chain.user(X)
    prep = prepare_compaction(chain.entries, KEEP_100)
    assert prep is not None
    assert prep.tokens_before == 2 + 100 + 100  # the estimate, not 90,100


def test_tokens_before_trusts_usage_after_the_last_edit() -> None:
    chain = Chain()
    chain.user(X)
    chain.assistant(X, use=usage(90_000, 100))
    chain.user(X)
    prep = prepare_compaction(chain.entries, KEEP_100)
    assert prep is not None
    assert prep.tokens_before == 90_100 + 100


def test_system_messages_are_not_summarized() -> None:
    chain = Chain()
    chain.system({"preamble": "You are P."})
    chain.user(X)
    chain.assistant(X)
    chain.user(X)
    prep = prepare_compaction(chain.entries, KEEP_100)
    assert prep is not None
    assert _roles(prep.messages_to_summarize) == ["user", "assistant"]


def test_file_lists_carry_over_from_a_pi_made_compaction() -> None:
    chain = Chain()
    chain.user(X)
    chain.compaction("OLD", "e1", details={"readFiles": ["r.ts", "m.ts"], "modifiedFiles": ["m.ts"]})
    chain.assistant(X, calls=(("write", {"path": "w.ts"}),))
    chain.user(X)
    prep = prepare_compaction(chain.entries, KEEP_100)
    assert prep is not None
    assert prep.file_ops.to_json() == {"read": ["r.ts", "m.ts"], "written": ["w.ts"], "edited": ["m.ts"]}
    assert prep.file_lists.to_json() == {"readFiles": ["r.ts"], "modifiedFiles": ["m.ts", "w.ts"]}


def test_file_lists_of_an_extension_made_compaction_are_not_carried() -> None:
    chain = Chain()
    chain.user(X)
    chain.compaction("HOOK", "e1", details={"readFiles": ["r.ts"], "modifiedFiles": []}, fromHook=True)
    chain.assistant(X)
    chain.user(X)
    prep = prepare_compaction(chain.entries, KEEP_100)
    assert prep is not None
    assert prep.file_lists.to_json() == {"readFiles": [], "modifiedFiles": []}


def test_a_split_turn_sends_the_turn_prefix_separately() -> None:
    chain = Chain()
    chain.user(X)
    chain.assistant(X)
    chain.user("the turn " + X)
    chain.assistant("reading", calls=(("read", {"path": "in-prefix.ts"}),))
    chain.tool_result(X)
    chain.assistant(X)
    prep = prepare_compaction(chain.entries, KEEP_100)
    assert prep is not None
    assert prep.is_split_turn
    assert prep.first_kept_entry_id == "e6"
    assert _roles(prep.messages_to_summarize) == ["user", "assistant"]
    assert _roles(prep.turn_prefix_messages) == ["user", "assistant", "toolResult"]
    assert prep.file_lists.read_files == ["in-prefix.ts"]


def test_kept_entries_run_from_the_first_kept_entry_without_stored_system_messages() -> None:
    chain = Chain()
    chain.user(X)
    chain.assistant(X)
    chain.model_change()
    chain.user(X)
    chain.system({"cwd": "/p"})
    chain.assistant("ok")
    prep = prepare_compaction(chain.entries, KEEP_100)
    assert prep is not None
    assert prep.first_kept_entry_id == "e3"  # the metadata before the cut is kept with it
    assert prep.kept_entry_ids == ["e3", "e4", "e6"]
