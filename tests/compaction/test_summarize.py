"""Summary generation (Pi's ``compact``): calls, joins, usage, request options, progress.

The model is the conformance harness's scripted stand-in (it replies with given texts and records
requests); failures over real HTTP are in ``test_llm_faults.py``.
"""

from __future__ import annotations

import asyncio
import re
import uuid

from lsp_server.compaction.prepare import CompactionPreparation, prepare_compaction
from lsp_server.compaction.summarize import (
    CompactionResult,
    Progress,
    SummaryFailure,
    SummaryOptions,
    compact,
    uuid7,
)
from lsp_server.conformance.ops_summaries import ScriptedClient
from lsp_server.llm.client import CancelToken
from lsp_server.vocabulary.compaction import CompactionSettings
from tests.compaction._sessions import Chain

X = "x" * 400
KEEP_100 = CompactionSettings(keep_recent_tokens=100)


def _prepare(chain: Chain) -> CompactionPreparation:
    prep = prepare_compaction(chain.entries, KEEP_100)
    assert prep is not None
    return prep


def _not_split() -> CompactionPreparation:
    chain = Chain()
    chain.user(X)
    chain.assistant(X, calls=(("edit", {"path": "src/a.ts"}),))
    chain.user(X)
    return _prepare(chain)


def _split(history: bool = True) -> CompactionPreparation:
    chain = Chain()
    if history:
        chain.user(X)
        chain.assistant(X)
    chain.user("turn " + X)
    chain.assistant("reading", calls=(("read", {"path": "r.ts"}),))
    chain.assistant(X)
    return _prepare(chain)


def _run(prep: CompactionPreparation, client: ScriptedClient, **kw: object) -> CompactionResult | SummaryFailure:
    return asyncio.run(compact(prep, client, **kw))  # type: ignore[arg-type]


def test_one_call_when_the_turn_is_not_split_and_file_lists_are_appended() -> None:
    client = ScriptedClient(["## Goal\nFix it"])
    result = _run(_not_split(), client)
    assert isinstance(result, CompactionResult)
    assert len(client.requests) == 1
    assert result.summary == "## Goal\nFix it\n\n<modified-files>\nsrc/a.ts\n</modified-files>"
    assert result.details == {"readFiles": [], "modifiedFiles": ["src/a.ts"]}
    assert result.first_kept_entry_id == "e3"


def test_a_split_turn_without_history_makes_one_call_and_says_no_prior_history() -> None:
    client = ScriptedClient(["PREFIX"])
    prep = _split(history=False)
    assert prep.messages_to_summarize == []
    result = _run(prep, client)
    assert isinstance(result, CompactionResult)
    assert len(client.requests) == 1
    assert client.requests[0].messages[0]["content"][0]["text"].startswith("# Conversation\n")
    assert result.summary.startswith("No prior history.\n\n---\n\n**Turn Context (split turn):**\n\nPREFIX")


def test_a_split_turn_without_history_keeps_the_previous_summary() -> None:
    client = ScriptedClient(["PREFIX"])
    chain = Chain()
    chain.user(X)
    chain.compaction("PREVIOUS", "e2", entry_id="e2")  # keeps nothing before it
    chain.user("turn " + X)
    chain.assistant(X)
    result = _run(_prepare(chain), client)
    assert isinstance(result, CompactionResult)
    assert result.summary == "PREVIOUS\n\n---\n\n**Turn Context (split turn):**\n\nPREFIX"


def test_a_split_turn_with_history_makes_two_calls_and_sums_their_usage() -> None:
    client = ScriptedClient([{"text": "HISTORY", "inputTokens": 7, "outputTokens": 3}, "PREFIX"])
    result = _run(_split(), client)
    assert isinstance(result, CompactionResult)
    assert [r.messages[0]["content"][0]["text"][:14] for r in client.requests] == ["<conversation>", "# Conversation"]
    assert result.summary.startswith("HISTORY\n\n---\n\n**Turn Context (split turn):**\n\nPREFIX")
    assert result.usage["input"] == 107 and result.usage["output"] == 13 and result.usage["totalTokens"] == 120
    assert result.usage["cost"]["totalFromProvider"] is False


def test_requests_have_no_output_cap_and_a_fresh_routing_id_each() -> None:
    client = ScriptedClient(["H", "P"])
    _run(_split(), client)
    ids = [r.session_id for r in client.requests]
    assert all(r.max_tokens is None for r in client.requests)
    assert len(set(ids)) == 2
    assert all(i is not None and uuid.UUID(i).version == 7 for i in ids)


def test_reasoning_is_sent_only_for_a_reasoning_model_with_a_level_that_is_not_off() -> None:
    sent = []
    for reasoning, level in ((True, "high"), (True, "off"), (False, "high"), (True, None)):
        client = ScriptedClient(["S"])
        _run(_not_split(), client, options=SummaryOptions(thinking_level=level, model_reasoning=reasoning))
        sent.append(client.requests[0].reasoning)
    assert sent == ["high", None, None, None]


def test_a_cancelled_run_calls_no_model_and_is_a_cancellation() -> None:
    token = CancelToken()
    token.cancel()
    client = ScriptedClient(["S"])
    result = _run(_not_split(), client, cancel=token)
    assert isinstance(result, SummaryFailure) and result.cancelled
    assert client.requests == []


def test_progress_reports_each_phase_in_order() -> None:
    phases: list[str] = []

    def record(progress: Progress) -> None:
        if not phases or phases[-1] != progress.phase:
            phases.append(progress.phase)

    _run(_split(), ScriptedClient(["H", "P"]), on_progress=record)
    assert phases == ["summarizing history", "summarizing turn prefix"]


def test_uuid7_carries_the_time_and_version() -> None:
    value = uuid.UUID(uuid7(1_735_689_600_000))
    assert value.version == 7
    assert value.int >> 80 == 1_735_689_600_000
    assert re.fullmatch(r"[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}", str(value))
