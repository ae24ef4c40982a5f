"""Compaction over real HTTP (the fake LLM server on 127.0.0.1, both wire formats) with faults.

The promise under test: a summary is written only from a complete, normal reply, and after every
failure (error status, rate limit past the retries, a dropped stream, a ``length`` stop, a tool
call, a timeout, a cancellation) the session file is byte-identical to before. After a success
the written line is a valid Pi entry that our own loader reads back as the new leaf.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import pytest

from lsp_server.compaction.operations import (
    BranchOutcome,
    CompactionOutcome,
    plan_branch_summary,
    plan_compaction,
    run_branch_summary,
    run_compaction,
)
from lsp_server.llm.client import CancelToken
from lsp_server.llm.factory import build_client
from lsp_server.llm.summarizer_config import SummarizerConfig
from lsp_server.session.entries import CompactionEntry, parse_entry
from lsp_server.session.tail import load_session
from lsp_server.session.writer import load_for_append
from lsp_server.vocabulary.compaction import CompactionSettings
from tests.compaction._sessions import Chain, write_session
from tests.support.fake_llm_server import FakeLlmServer, ScriptedResponse

X = "x" * 400
KEY = "sk-test-0123456789"
CAP = "Summarization failed: generation hit the token cap and the summary is incomplete"


def _dropping() -> ScriptedResponse:
    """A stream cut after its first text chunk, before the reply is complete."""
    return ScriptedResponse(text="partial text", chunks=["partial ", "text"], drop_after_chunks=1)


@pytest.fixture(params=["openai", "anthropic"])
def wire(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def server() -> Any:
    with FakeLlmServer() as fake:
        yield fake


@pytest.fixture
def session_file(tmp_path: Path) -> Path:
    chain = Chain()
    chain.user("Fix the crash in src/app.ts. " + X)
    chain.assistant("Reading.", calls=(("read", {"path": "src/app.ts"}),))
    chain.tool_result(X)
    chain.user("Now the docs. " + X)
    chain.assistant("Done.")  # the cut falls on the user message above: one summary call, no split turn
    return write_session(tmp_path / "session.jsonl", chain.entries)


def _config(wire: str, server: FakeLlmServer, **overrides: Any) -> SummarizerConfig:
    base = server.openai_base_url if wire == "openai" else server.anthropic_base_url
    options: dict[str, Any] = {
        "kind": wire,
        "model": "test-model",
        "base_url": base,
        "api_key": KEY,
        "max_retries": 2,
        "base_delay_s": 0.01,
        "max_delay_s": 0.02,
        "read_idle_timeout_s": 5.0,
        "total_timeout_s": 30.0,
        **overrides,
    }
    return SummarizerConfig(**options)


def _compact(path: Path, config: SummarizerConfig, cancel: CancelToken | None = None) -> CompactionOutcome:
    plan = plan_compaction(load_for_append(str(path)), CompactionSettings(keep_recent_tokens=100))
    assert not isinstance(plan, str), plan

    async def go() -> CompactionOutcome:
        client = build_client(config, os.environ)
        try:
            return await run_compaction(plan, client, cancel=cancel)
        finally:
            await client.aclose()

    return asyncio.run(go())


def _fails_and_leaves_file(path: Path, outcome: CompactionOutcome | BranchOutcome, before: bytes, text: str) -> None:
    assert outcome.failure is not None and text in outcome.failure, outcome.failure
    assert str(path) in outcome.failure
    assert outcome.written is None
    assert path.read_bytes() == before


def test_a_successful_summary_is_written_as_a_valid_pi_entry(wire: str, server: Any, session_file: Path) -> None:
    server.enqueue(ScriptedResponse(text="## Goal\nFix the crash", chunks=["## Goal\n", "Fix the crash"]))
    before = session_file.read_bytes()
    outcome = _compact(session_file, _config(wire, server))
    assert outcome.failure is None and outcome.written is not None
    assert session_file.read_bytes() == before + outcome.written.line
    reloaded = load_session(session_file)
    assert reloaded.problems == [] and reloaded.index.leaf_id == outcome.entry["id"]  # type: ignore[index]
    model = parse_entry(reloaded.entries[-1])
    assert isinstance(model, CompactionEntry)
    assert model.summary == "## Goal\nFix the crash\n\n<read-files>\nsrc/app.ts\n</read-files>"
    assert model.first_kept_entry_id == "e4" and model.parent_id == "e5"
    body = server.requests[0].body
    assert "cache_control" not in str(body) and "prompt_cache_key" not in body


def test_server_errors_past_the_retries_write_nothing(wire: str, server: Any, session_file: Path) -> None:
    server.enqueue(*[ScriptedResponse(status=500) for _ in range(3)])
    before = session_file.read_bytes()
    outcome = _compact(session_file, _config(wire, server))
    _fails_and_leaves_file(session_file, outcome, before, "Summarization failed: 500")
    assert len(server.requests) == 3


def test_a_rate_limit_then_success_is_retried_and_written(wire: str, server: Any, session_file: Path) -> None:
    server.enqueue(ScriptedResponse(status=429, retry_after=0.01), ScriptedResponse(text="S"))
    outcome = _compact(session_file, _config(wire, server))
    assert outcome.failure is None and outcome.written is not None
    assert [r.outcome for r in server.requests] == ["error-status", "completed"]


def test_a_dropped_stream_is_retried_from_scratch(wire: str, server: Any, session_file: Path) -> None:
    server.enqueue(_dropping(), ScriptedResponse(text="Whole"))
    outcome = _compact(session_file, _config(wire, server))
    assert outcome.written is not None and outcome.entry is not None
    assert outcome.entry["summary"].startswith("Whole\n\n")


def test_a_stream_dropped_every_time_writes_nothing(wire: str, server: Any, session_file: Path) -> None:
    server.enqueue(*[_dropping() for _ in range(3)])
    before = session_file.read_bytes()
    outcome = _compact(session_file, _config(wire, server))
    _fails_and_leaves_file(session_file, outcome, before, "Summarization failed: ")


def test_a_length_stop_writes_nothing(wire: str, server: Any, session_file: Path) -> None:
    server.enqueue(ScriptedResponse(text="half a summ", finish="length"))
    before = session_file.read_bytes()
    outcome = _compact(session_file, _config(wire, server))
    _fails_and_leaves_file(session_file, outcome, before, CAP)


def test_a_tool_call_writes_nothing(wire: str, server: Any, session_file: Path) -> None:
    server.enqueue(ScriptedResponse(text="", finish="tool", tool_call={"name": "read", "arguments": {"path": "a"}}))
    before = session_file.read_bytes()
    outcome = _compact(session_file, _config(wire, server))
    _fails_and_leaves_file(session_file, outcome, before, "Summarization attempted to call a tool")


def test_a_timeout_writes_nothing(wire: str, server: Any, session_file: Path) -> None:
    server.enqueue(ScriptedResponse(text="slow summary text", stall_after_chunks=1))
    before = session_file.read_bytes()
    outcome = _compact(session_file, _config(wire, server, read_idle_timeout_s=0.3, max_retries=0))
    _fails_and_leaves_file(session_file, outcome, before, "timed out")


def test_cancelling_mid_summary_writes_nothing(wire: str, server: Any, session_file: Path) -> None:
    server.enqueue(ScriptedResponse(text="a summary that never ends", stall_after_chunks=1))
    before = session_file.read_bytes()
    token = CancelToken()

    async def go() -> CompactionOutcome:
        plan = plan_compaction(load_for_append(str(session_file)), CompactionSettings(keep_recent_tokens=100))
        assert not isinstance(plan, str)
        client = build_client(_config(wire, server), os.environ)

        async def cancel_when_streaming() -> None:
            await asyncio.to_thread(server.wait_for, lambda rs: bool(rs) and rs[0].chunks_sent >= 1)
            token.cancel()

        canceller = asyncio.ensure_future(cancel_when_streaming())
        try:
            return await run_compaction(plan, client, cancel=token)
        finally:
            await canceller
            await client.aclose()

    outcome = asyncio.run(go())
    _fails_and_leaves_file(session_file, outcome, before, "Compaction cancelled")
    assert outcome.cancelled


def test_a_branch_summary_over_http_is_appended_at_the_target(wire: str, server: Any, tmp_path: Path) -> None:
    chain = Chain()
    chain.user("root", entry_id="r1")
    chain.assistant("answer", entry_id="r2")
    chain.user("try A", entry_id="a1")
    chain.assistant("A", entry_id="a2")
    path = write_session(tmp_path / "tree.jsonl", chain.entries)
    server.enqueue(ScriptedResponse(text="## Goal\nTried A"), ScriptedResponse(status=400))
    plan = plan_branch_summary(load_for_append(str(path)), "a2", "r2")
    assert not isinstance(plan, str)

    async def go() -> BranchOutcome:
        client = build_client(_config(wire, server), os.environ)
        try:
            return await run_branch_summary(plan, client)
        finally:
            await client.aclose()

    outcome = asyncio.run(go())
    assert outcome.entry is not None and outcome.written is not None
    assert outcome.entry["parentId"] == "r2" and outcome.entry["fromId"] == "a2"
    assert load_session(path).index.leaf_id == outcome.entry["id"]
    before = path.read_bytes()
    second = plan_branch_summary(load_for_append(str(path)), outcome.entry["id"], "a2")
    assert not isinstance(second, str)

    async def fail() -> BranchOutcome:
        client = build_client(_config(wire, server), os.environ)
        try:
            return await run_branch_summary(second, client)
        finally:
            await client.aclose()

    _fails_and_leaves_file(path, asyncio.run(fail()), before, "Branch summarization failed: 400")
