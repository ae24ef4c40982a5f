"""Pi reads what we write: our compaction and branch-summary entries, read back by Pi 1.6.0 itself.

Each test writes an entry with our code into a real session file, then asks the oracle (Pi's own
``loadEntriesFromFile`` and ``buildSessionContext`` on that file) what the model would see next.
Pi must accept the file as it is (no repair), start the context with our summary (after the
stored system message) and keep exactly the entries we reported as kept.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

from lsp_server.compaction.operations import (
    BranchOutcome,
    CompactionOutcome,
    plan_branch_summary,
    plan_compaction,
    run_branch_summary,
    run_compaction,
)
from lsp_server.compaction.prepare import CompactionPreparation
from lsp_server.llm.factory import build_client
from lsp_server.llm.summarizer_config import SummarizerConfig
from lsp_server.session.writer import load_for_append
from lsp_server.vocabulary.compaction import CompactionSettings
from tests.compaction._oracle import ask_pi, oracle_command
from tests.compaction._sessions import Chain, append_lines, write_session
from tests.support.fake_llm_server import FakeLlmServer, ScriptedResponse

X = "x" * 400


def _session(tmp_path: Path) -> Path:
    chain = Chain()
    chain.system({"preamble": "You are a coding agent.", "cwd": "<cwd>\n/tmp/project\n</cwd>"})
    chain.user("Fix the crash in src/app.ts. " + X)
    chain.assistant("Reading it.", calls=(("read", {"path": "src/app.ts"}),))
    chain.tool_result(X)
    chain.assistant("Guarded the null.", calls=(("edit", {"path": "src/app.ts"}),))
    chain.tool_result("ok")
    chain.user("Now update the docs. " + X)
    chain.assistant("Updating docs/guide.md.", calls=(("write", {"path": "docs/guide.md"}),))
    chain.tool_result("ok")
    chain.assistant("Done.")
    return write_session(tmp_path / "session.jsonl", chain.entries)


def _compact(path: Path, config: SummarizerConfig) -> CompactionOutcome:
    plan = plan_compaction(load_for_append(str(path)), CompactionSettings(keep_recent_tokens=150))
    assert not isinstance(plan, str), plan

    async def go() -> CompactionOutcome:
        client = build_client(config, os.environ)
        try:
            return await run_compaction(plan, client)
        finally:
            await client.aclose()

    outcome = asyncio.run(go())
    assert outcome.failure is None and outcome.written is not None, outcome.failure
    return outcome


def _pi_context(path: Path) -> Any:
    return ask_pi({"op": "build_session_context", "jsonlFile": str(path), "relativize": False})


def _assert_pi_starts_with_our_summary(path: Path, outcome: CompactionOutcome) -> None:
    assert outcome.entry is not None and outcome.plan is not None
    preparation: CompactionPreparation = outcome.plan.preparation
    loaded = ask_pi({"op": "load_session_file", "path": str(path), "relativize": False})
    assert loaded["fileChanged"] is False  # Pi needs no repair
    assert loaded["entries"][-1] == outcome.entry
    context = _pi_context(path)
    assert context["contextEntryIds"] == [outcome.entry["id"], *preparation.kept_entry_ids]
    roles = [m["role"] for m in context["messages"]]
    assert roles[:2] == ["system", "compactionSummary"]
    assert context["messages"][1]["summary"] == outcome.entry["summary"]
    assert context["messages"][1]["tokensBefore"] == preparation.tokens_before


def test_pi_reads_an_offline_compaction(tmp_path: Path) -> None:
    oracle_command()
    path = _session(tmp_path)
    outcome = _compact(path, SummarizerConfig())
    _assert_pi_starts_with_our_summary(path, outcome)
    assert outcome.entry is not None
    assert outcome.entry["systemMessage"]["sections"]["preamble"] == "You are a coding agent."


def test_pi_reads_a_compaction_summarized_over_http(tmp_path: Path) -> None:
    oracle_command()
    path = _session(tmp_path)
    with FakeLlmServer([ScriptedResponse(text="## Goal\nFix the crash and update the docs")]) as server:
        outcome = _compact(path, SummarizerConfig(kind="openai", model="m", base_url=server.openai_base_url))
    _assert_pi_starts_with_our_summary(path, outcome)


def test_pi_continues_from_our_compaction_in_its_next_compaction(tmp_path: Path) -> None:
    oracle_command()
    path = _session(tmp_path)
    outcome = _compact(path, SummarizerConfig())
    assert outcome.entry is not None
    more = Chain(leaf=outcome.entry["id"], first_number=20)  # the conversation goes on after resuming
    more.user("Next task. " + X)
    more.assistant("On it. " + X)
    append_lines(path, more.entries)
    answer = ask_pi(
        {"op": "prepare_compaction", "jsonlFile": str(path), "settings": {"keepRecentTokens": 50}, "brief": True}
    )
    assert answer["preparation"]["previousSummary"] == outcome.entry["summary"]
    assert set(outcome.entry["details"]["readFiles"]) <= set(answer["preparation"]["fileOps"]["read"])


def test_pi_reads_our_branch_summary_at_the_target(tmp_path: Path) -> None:
    oracle_command()
    chain = Chain()
    chain.user("root question", entry_id="r1")
    chain.assistant("root answer", entry_id="r2")
    chain.user("try approach A " + X, entry_id="a1")
    chain.assistant("A looks bad", calls=(("edit", {"path": "a.ts"}),), entry_id="a2")
    chain.user("try approach B", entry_id="b1", parent="r2")
    chain.assistant("B works", entry_id="b2")
    path = write_session(tmp_path / "tree.jsonl", chain.entries)
    plan = plan_branch_summary(load_for_append(str(path)), "b2", "a1")  # back to A's user message
    assert not isinstance(plan, str)

    async def go() -> BranchOutcome:
        client = build_client(SummarizerConfig(), os.environ)
        try:
            return await run_branch_summary(plan, client)
        finally:
            await client.aclose()

    outcome = asyncio.run(go())
    assert outcome.entry is not None and outcome.written is not None
    assert outcome.entry["parentId"] == "r2"  # a user-message target: its parent, as navigateTree does
    context = _pi_context(path)
    assert context["contextEntryIds"] == ["r1", "r2", outcome.entry["id"]]
    summary_message = context["messages"][-1]
    assert summary_message["role"] == "branchSummary"
    assert summary_message["summary"] == outcome.entry["summary"]
    assert summary_message["fromId"] == "b2"
    collected = ask_pi(
        {"op": "collect_entries_for_branch_summary", "jsonlFile": str(path), "oldLeafId": "b2", "targetId": "a1"}
    )
    assert collected["entryIds"] == [e["id"] for e in plan.collection.entries]
