"""``compact`` and ``branch-summary`` against the red team's model servers: a clear error, the file untouched.

Real subprocesses on real files, the model a real server on 127.0.0.1: one that floods deltas, one
that trickles a word every half second, one that accepts the request and never answers (issue 22:
"four 120 s timeouts and backoff"). Each run ends with one line naming the limit it met and the
setting or flag that raises it, and the session is byte-identical. No assertion depends on time;
the trickle is long enough (30 s) that only the deadline can end it first.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from lsp_server.llm.policy import deadline_message, idle_message, output_cap, too_long_message
from lsp_server.vocabulary.providers import DEFAULT_MAX_TOKENS
from tests.cli.test_compact import _run
from tests.compaction._sessions import Chain, write_session
from tests.support.fake_llm_server import FakeLlmServer, ScriptedResponse

TRICKLE = ScriptedResponse(chunks=[f"word{n} " for n in range(60)], chunk_delay_s=0.5)


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    agent = tmp_path / "agent"
    agent.mkdir()
    (agent / "settings.json").write_text(json.dumps({"compaction": {"keepRecentTokens": 150}}), encoding="utf-8")
    out = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ANTHROPIC_", "PI_CODING_AGENT_DIR"))}
    return {**out, "HOME": str(tmp_path), "PI_CODING_AGENT_DIR": str(agent)}


@pytest.fixture
def session(tmp_path: Path) -> Path:
    chain = Chain()
    chain.user("Fix the crash in src/app.ts. " + "x" * 400)
    chain.assistant("Reading it.", calls=(("read", {"path": "src/app.ts"}),))
    chain.tool_result("x" * 400)
    chain.user("Now update the docs. " + "x" * 400)
    chain.assistant("Done.")
    return write_session(tmp_path / "session.jsonl", chain.entries, cwd=str(tmp_path / "project"))


def _settings(tmp_path: Path, server: FakeLlmServer, **summarizer: Any) -> str:
    values = {"mode": "endpoint", "url": server.openai_base_url, "model": "m", "retries": 0, **summarizer}
    path = tmp_path / "pi-context-settings.json"
    path.write_text(json.dumps({"summarizer": values}), encoding="utf-8")
    return str(path)


def test_a_flooding_model_ends_with_the_output_limit_and_writes_nothing(
    env: dict[str, str], session: Path, tmp_path: Path
) -> None:
    before = session.read_bytes()
    with FakeLlmServer([ScriptedResponse(text="## Goal\n", flood_chars=50_000_000)]) as server:
        done = _run(env, "compact", str(session), "--settings", _settings(tmp_path, server, retries=2), "--json")
        assert len(server.requests) == 1  # not retried: a flood would flood again
    assert done.returncode == 1, done.stderr
    message = too_long_message(output_cap(DEFAULT_MAX_TOKENS), DEFAULT_MAX_TOKENS)
    assert f"Summarization failed: {message}" in done.stderr
    assert json.loads(done.stdout)["failure"].startswith(f"Summarization failed: {message}: nothing written to ")
    assert session.read_bytes() == before


def test_a_trickling_model_ends_at_the_deadline_flag(env: dict[str, str], session: Path, tmp_path: Path) -> None:
    before = session.read_bytes()
    with FakeLlmServer([TRICKLE]) as server:
        done = _run(env, "compact", str(session), "--settings", _settings(tmp_path, server), "--deadline", "2")
        assert server.requests[0].chunks_sent < 60
    assert done.returncode == 1, done.stderr
    assert f"Summarization failed: {deadline_message(2)}" in done.stderr
    assert "raise summarizer.deadlineSeconds or --deadline" in done.stderr
    assert session.read_bytes() == before


def test_a_trickling_model_ends_at_the_deadline_setting(env: dict[str, str], session: Path, tmp_path: Path) -> None:
    before = session.read_bytes()
    with FakeLlmServer([TRICKLE]) as server:
        settings = _settings(tmp_path, server, deadlineSeconds=2)
        done = _run(env, "compact", str(session), "--settings", settings)
    assert done.returncode == 1, done.stderr
    assert f"Summarization failed: {deadline_message(2)}" in done.stderr
    assert session.read_bytes() == before


def test_a_model_that_accepts_and_never_answers_costs_one_idle_limit_per_attempt(
    env: dict[str, str], session: Path, tmp_path: Path
) -> None:
    before = session.read_bytes()
    with FakeLlmServer(default=ScriptedResponse(silent=True)) as server:
        settings = _settings(tmp_path, server, retries=1)
        done = _run(env, "compact", str(session), "--settings", settings, "--timeout", "0.5")
        assert [r.outcome for r in server.requests] == ["stalled", "stalled"]
    assert done.returncode == 1, done.stderr
    assert f"retry 1/1 in 2.0s: {idle_message(0.5)}" in done.stderr  # the retry, announced with its reason ...
    assert f"Summarization failed: {idle_message(0.5)}" in done.stderr  # ... and the error, naming the knob
    assert session.read_bytes() == before


def test_branch_summary_has_the_same_limits(env: dict[str, str], tmp_path: Path) -> None:
    chain = Chain()
    chain.user("root", entry_id="r1")
    chain.assistant("answer", entry_id="r2")
    chain.user("try A " + "x" * 400, entry_id="a1")
    chain.assistant("A failed", entry_id="a2")
    path = write_session(tmp_path / "tree.jsonl", chain.entries)
    before = path.read_bytes()
    with FakeLlmServer([TRICKLE]) as server:
        settings = _settings(tmp_path, server)
        done = _run(
            env, "branch-summary", str(path), "--from", "a2", "--to", "r2", "--settings", settings, "--deadline", "1"
        )
    assert done.returncode == 1, done.stderr
    assert deadline_message(1) in done.stderr
    assert path.read_bytes() == before


def test_help_shows_both_time_limits_with_their_defaults(env: dict[str, str]) -> None:
    for command in ("compact", "branch-summary"):
        shown = " ".join(_run(env, command, "--help").stdout.split())
        assert "--timeout SECONDS the idle limit" in shown and "(default: summarizer.timeoutSeconds, 30)" in shown
        assert "--deadline SECONDS the deadline for the whole model call" in shown
        assert "(default: summarizer.deadlineSeconds, 120)" in shown
        assert "16 characters per token of its output limit" in shown
