"""``pi-context compact`` and ``branch-summary`` as a user runs them: real subprocesses on real files."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from lsp_server.base.money import format_usd
from tests.compaction._sessions import Chain, write_session
from tests.support.fake_llm_server import FakeLlmServer, ScriptedResponse

X = "x" * 400


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    agent = tmp_path / "agent"
    agent.mkdir()
    (agent / "settings.json").write_text(json.dumps({"compaction": {"keepRecentTokens": 150}}), encoding="utf-8")
    home = tmp_path / "home"
    home.mkdir()
    (tmp_path / "project").mkdir()  # the sessions' cwd exists here: no note that another folder stands for it
    out = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ANTHROPIC_", "PI_CODING_AGENT_DIR"))}
    return {**out, "HOME": str(home), "PI_CODING_AGENT_DIR": str(agent)}


@pytest.fixture
def session(tmp_path: Path) -> Path:
    chain = Chain()
    chain.user("Fix the crash in src/app.ts. " + X)
    chain.assistant("Reading it.", calls=(("read", {"path": "src/app.ts"}),))
    chain.tool_result(X)
    chain.user("Now update the docs. " + X)
    chain.assistant("Done.")
    return write_session(tmp_path / "session.jsonl", chain.entries, cwd=str(tmp_path / "project"))


def _start(env: dict[str, str], *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "lsp_server", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def _run(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "lsp_server", *args], capture_output=True, text=True, env=env, timeout=120, check=False
    )


def _last_entry(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8").splitlines()[-1])  # type: ignore[no-any-return]


def test_dry_run_prints_the_plan_and_summary_and_writes_nothing(env: dict[str, str], session: Path) -> None:
    before = session.read_bytes()
    done = _run(env, "compact", str(session), "--dry-run")
    assert done.returncode == 0, done.stderr
    assert "First kept entry: e4" in done.stdout and "Tokens before: " in done.stdout
    assert "Read files: src/app.ts" in done.stdout
    assert "Dry run: nothing written." in done.stdout and "--- summary ---\n## Goal" in done.stdout
    assert session.read_bytes() == before


def test_compact_appends_one_compaction_entry_and_says_so(env: dict[str, str], session: Path) -> None:
    before = session.read_bytes()
    done = _run(env, "compact", str(session), "--instructions", "Mention the docs.")
    assert done.returncode == 0, done.stderr
    entry = _last_entry(session)
    assert session.read_bytes().startswith(before) and session.read_bytes().count(b"\n") == before.count(b"\n") + 1
    assert entry["type"] == "compaction" and entry["parentId"] == "e5" and entry["firstKeptEntryId"] == "e4"
    assert f"Wrote compaction entry {entry['id']} (parent e5) to {session}." in done.stdout
    assert "Requested focus: Mention the docs." in entry["summary"]


def test_progress_is_one_plain_line_per_phase_when_stderr_is_not_a_terminal(env: dict[str, str], session: Path) -> None:
    done = _run(env, "compact", str(session))
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines() == [
        "pi-context: summarizing history (offline (extractive))",
        "pi-context: writing (offline (extractive))",
    ]


def test_json_output_reports_the_plan_and_the_entry(env: dict[str, str], session: Path) -> None:
    done = _run(env, "compact", str(session), "--json", "--dry-run")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["preparation"]["keptEntryIds"] == ["e4", "e5"]
    assert out["entry"]["type"] == "compaction" and out["written"] is False and out["dryRun"] is True


def test_compacting_at_another_leaf_parents_the_entry_there(env: dict[str, str], session: Path) -> None:
    done = _run(env, "compact", str(session), "--leaf", "e4", "--json")
    assert done.returncode == 0, done.stderr
    assert _last_entry(session)["parentId"] == "e4"


def test_an_unknown_leaf_fails_naming_the_file(env: dict[str, str], session: Path) -> None:
    done = _run(env, "compact", str(session), "--leaf", "nope")
    assert done.returncode == 1
    assert done.stderr.strip() == f"pi-context: {session}: Entry nope not found"


def test_a_session_too_small_fails_with_pis_reason(env: dict[str, str], tmp_path: Path) -> None:
    chain = Chain()
    chain.user("hi")
    path = write_session(tmp_path / "small.jsonl", chain.entries, cwd=str(tmp_path / "project"))
    done = _run(env, "compact", str(path))
    assert done.returncode == 1
    assert done.stderr.strip() == f"pi-context: {path}: Nothing to compact (session too small)"


def test_a_file_that_is_not_a_session_fails(env: dict[str, str], tmp_path: Path) -> None:
    path = tmp_path / "notes.jsonl"
    path.write_text('{"hello": 1}\n', encoding="utf-8")
    done = _run(env, "compact", str(path))
    assert done.returncode == 1 and done.stderr == f"pi-context: {path}: not a valid Pi session\n"


def test_a_bad_model_argument_is_a_usage_error(env: dict[str, str], session: Path) -> None:
    done = _run(env, "compact", str(session), "--model", "gpt-4")
    assert done.returncode == 2 and "expected offline, openai/<model id> or anthropic/<model id>" in done.stderr


def test_missing_arguments_are_a_usage_error(env: dict[str, str], session: Path) -> None:
    assert _run(env, "compact").returncode == 2
    assert _run(env, "branch-summary", str(session), "--from", "e5").returncode == 2


def test_per_model_settings_from_pis_settings_file_apply(env: dict[str, str], session: Path) -> None:
    settings = Path(env["PI_CODING_AGENT_DIR"]) / "settings.json"
    overrides = {"anthropic/claude-test": {"keepRecentTokens": 1}}
    settings.write_text(json.dumps({"compaction": {"keepRecentTokens": 150, "modelOverrides": overrides}}))
    done = _run(env, "compact", str(session), "--dry-run", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["preparation"]["firstKeptEntryId"] == "e5"


def test_an_openai_compatible_model_summarizes_over_http(env: dict[str, str], session: Path) -> None:
    with FakeLlmServer([ScriptedResponse(text="## Goal\nFix it")]) as server:
        done = _run({**env, "OPENAI_BASE_URL": server.openai_base_url}, "compact", str(session), "--model", "openai/m1")
        assert server.requests[0].body["model"] == "m1"
    assert done.returncode == 0, done.stderr
    assert _last_entry(session)["summary"].startswith("## Goal\nFix it\n\n<read-files>")


def test_a_model_failure_exits_1_and_writes_nothing(env: dict[str, str], session: Path) -> None:
    before = session.read_bytes()
    with FakeLlmServer([ScriptedResponse(text="cut", finish="length")]) as server:
        done = _run({**env, "OPENAI_BASE_URL": server.openai_base_url}, "compact", str(session), "--model", "openai/m")
    assert done.returncode == 1
    assert "Summarization failed: generation hit the token cap and the summary is incomplete" in done.stderr
    assert done.stderr.endswith(
        f"pi-context: {session}: Summarization failed: generation hit the token cap and the summary is "
        "incomplete: nothing written\n"
    )
    assert session.read_bytes() == before


def test_ctrl_c_while_the_model_works_cancels_and_writes_nothing(env: dict[str, str], session: Path) -> None:
    before = session.read_bytes()
    with FakeLlmServer([ScriptedResponse(text="a summary that stalls", stall_after_chunks=1)]) as server:
        process = _start(
            {**env, "OPENAI_BASE_URL": server.openai_base_url}, "compact", str(session), "--model", "openai/m"
        )
        try:
            assert server.wait_for(lambda rs: bool(rs) and rs[0].chunks_sent >= 1, timeout=60)
            process.send_signal(signal.SIGINT)
            _, stderr = process.communicate(timeout=60)
        finally:
            process.kill()
    assert process.returncode == 130, stderr
    assert "Compaction cancelled" in stderr and "nothing written" in stderr
    assert session.read_bytes() == before


def test_branch_summary_appends_under_the_target_and_reports_it(env: dict[str, str], tmp_path: Path) -> None:
    chain = Chain()
    chain.user("root", entry_id="r1")
    chain.assistant("answer", entry_id="r2")
    chain.user("try A " + X, entry_id="a1")
    chain.assistant("A failed", calls=(("edit", {"path": "a.ts"}),), entry_id="a2")
    path = write_session(tmp_path / "tree.jsonl", chain.entries)
    dry = _run(env, "branch-summary", str(path), "--from", "a2", "--to", "r2", "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert "Common ancestor: r2" in dry.stdout and "Dry run: nothing written." in dry.stdout
    summary = dry.stdout.split("\n--- summary ---\n", 1)[1].split("\n\n--- cost ---\n", 1)[0]
    adds = -(-len(summary.encode("utf-16-le")) // 8)  # Pi's chars/4 of the summary the entry would hold
    cost = dry.stdout.split("\n--- cost ---\n", 1)[1].splitlines()
    assert cost[0].startswith("1 summary call: ")
    assert cost[0].endswith("unknown at anthropic/claude-test's prices [unknown]")
    assert cost[1:] == [f"every later request carries {adds:,} more tokens (the summary)"]
    done = _run(env, "branch-summary", str(path), "--from", "a2", "--to", "r2")
    assert done.returncode == 0, done.stderr
    entry = _last_entry(path)
    assert entry["type"] == "branch_summary" and entry["parentId"] == "r2" and entry["fromId"] == "a2"
    assert entry["details"] == {"readFiles": [], "modifiedFiles": ["a.ts"]}
    assert entry["summary"].startswith("The user explored a different conversation branch before returning here.")


def test_branch_summary_says_pi_would_fail_and_names_the_entry(env: dict[str, str], tmp_path: Path) -> None:
    chain = Chain()
    chain.user("root", entry_id="r1")
    chain.assistant("answer", entry_id="r2")
    chain.user("try A", entry_id="a1")
    chain.assistant("A failed", entry_id="a2")
    chain.entries[2]["message"]["content"] = None  # Pi's estimateTokens: "content is not iterable"
    path = write_session(tmp_path / "tree.jsonl", chain.entries)
    before = path.read_bytes()
    done = _run(env, "branch-summary", str(path), "--from", "a2", "--to", "r2")
    assert done.returncode == 1
    assert "Pi would fail on this session: content is not iterable (entry a1)" in done.stderr
    assert "nothing written" in done.stderr
    assert path.read_bytes() == before


def test_branch_summary_to_the_current_position_does_nothing(env: dict[str, str], session: Path) -> None:
    done = _run(env, "branch-summary", str(session), "--from", "e5", "--to", "e5")
    assert done.returncode == 1 and "already the current position" in done.stderr


def _with_lone_surrogate(tmp_path: Path) -> Path:
    """A session whose first user text holds ``"\\ud800"`` (a lone surrogate, as JSON can spell it)."""
    chain = Chain()
    chain.user("Fix the crash in src/app.ts. MARK " + X)
    chain.assistant("Reading it.", calls=(("read", {"path": "src/app.ts"}),))
    chain.tool_result(X)
    chain.user("Now update the docs. " + X)
    chain.assistant("Done.")
    path = write_session(tmp_path / "surrogate.jsonl", chain.entries, cwd=str(tmp_path / "project"))
    path.write_bytes(path.read_bytes().replace(b"MARK", rb"\ud800"))
    return path


@pytest.mark.parametrize("json_output", [False, True], ids=["text", "json"])
def test_a_lone_surrogate_in_the_session_is_printed_escaped_after_one_write(
    env: dict[str, str], tmp_path: Path, json_output: bool
) -> None:
    session = _with_lone_surrogate(tmp_path)
    before = session.read_bytes()
    done = _run(env, "compact", str(session), *(["--json"] if json_output else []))
    assert done.returncode == 0, done.stderr
    assert session.read_bytes().count(b"\n") == before.count(b"\n") + 1  # exactly one entry appended
    entry = _last_entry(session)
    assert "\ud800" in entry["summary"]  # the summary quotes the text as it is
    assert "\\ud800" in done.stdout  # shown as its escape, not a crash
    if json_output:
        assert json.loads(done.stdout)["entry"]["summary"] == entry["summary"]  # still valid JSON, same text
    else:
        assert f"Wrote compaction entry {entry['id']}" in done.stdout


def test_branch_summary_help_describes_its_own_instructions(env: dict[str, str]) -> None:
    done = _run(env, "branch-summary", "--help")
    assert done.returncode == 0
    text = " ".join(done.stdout.split())
    assert "/compact" not in text and "branch summary in /tree" in text


BAD_URLS = [
    ("http://[::1", "is not a valid URL (Invalid IPv6 URL)"),
    ("http://127.0.0.1:99999", "has an invalid port '99999' (a number from 0 to 65535)"),
    ("ftp://127.0.0.1/", "must start with http:// or https:// (scheme: 'ftp')"),
]


@pytest.mark.parametrize(("url", "problem"), BAD_URLS)
@pytest.mark.parametrize("source", ["setting", "env"])
def test_a_bad_summarizer_url_is_one_line_and_exit_2(tmp_path: Path, url: str, problem: str, source: str) -> None:
    import shutil

    session = tmp_path / "s.jsonl"
    shutil.copy(Path(__file__).resolve().parents[2] / "examples" / "sessions" / "inventory-fix.jsonl", session)
    before = session.read_bytes()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PI_", "OPENAI_"))}
    env["HOME"] = str(tmp_path)
    args = [sys.executable, "-m", "lsp_server", "compact", str(session)]
    if source == "setting":
        settings = tmp_path / "settings.json"
        settings.write_text(json.dumps({"summarizer": {"mode": "endpoint", "url": url, "model": "m"}}))
        args += ["--settings", str(settings)]
    else:
        env.update({"OPENAI_BASE_URL": url, "OPENAI_API_KEY": "k"})
        args += ["--model", "openai/gpt-4o"]
    result = subprocess.run(args, capture_output=True, text=True, env=env, check=False, cwd=tmp_path, timeout=120)
    assert result.returncode == 2
    assert result.stderr == (
        f"pi-context: summarizer URL {url!r} {problem} (set by summarizer.url or $OPENAI_BASE_URL)\n"
    )
    assert session.read_bytes() == before


@pytest.fixture
def long_session(tmp_path: Path) -> Path:
    """Long enough that the summary removes more than it adds."""
    chain = Chain()
    for number in range(4):
        chain.user(f"Step {number}: fix the next crash. " + X * 5)
        chain.assistant("Fixed. " + X * 5)
    return write_session(tmp_path / "long.jsonl", chain.entries, cwd=str(tmp_path / "project"))


def test_dry_run_prints_what_the_summary_costs_and_what_it_saves(env: dict[str, str], long_session: Path) -> None:
    """The ``--- cost ---`` block, line by line, against the numbers ``--json`` gives for the same run."""
    session = long_session
    rates = {"input": 3, "output": 15, "cacheRead": 0.3, "cacheWrite": 3.75}
    models = {"providers": {"anthropic": {"modelOverrides": {"claude-test": {"cost": rates}},
                                          "models": [{"id": "claude-test"}]}}}  # fmt: skip
    (Path(env["PI_CODING_AGENT_DIR"]) / "models.json").write_text(json.dumps(models), encoding="utf-8")
    text = _run(env, "compact", str(session), "--dry-run")
    assert text.returncode == 0, text.stderr
    cost = json.loads(_run(env, "compact", str(session), "--dry-run", "--json").stdout)["economics"]
    assert cost["requests"] == 2  # the cut splits the last turn: history, then the turn's prefix
    assert cost["removedPerRequest"] > 0 and cost["breakEvenRequests"] is not None
    assert cost["summaryCost"] == pytest.approx((3 * cost["summaryInput"] + 15 * cost["summaryOutput"]) / 1e6)
    assert cost["savingPerRequest"] == pytest.approx(0.3 * cost["removedPerRequest"] / 1e6)
    block = text.stdout.split("\n--- cost ---\n", 1)[1].splitlines()
    assert block == [
        f"2 summary calls: {cost['summaryInput']:,} tokens in (uncached), {cost['summaryOutput']:,} out, "
        f"{format_usd(cost['summaryCost'])} at anthropic/claude-test's prices [models.json]",
        f"every later request carries {cost['removedPerRequest']:,} fewer tokens "
        f"({cost['contextBefore']:,} -> {cost['contextAfter']:,}), saving {format_usd(cost['savingPerRequest'])} each "
        f"with a warm cache; the first one rewrites the cache ({format_usd(cost['rewriteCost'])})",
        f"pays for itself after {cost['breakEvenRequests']} later requests",
    ]


def test_without_prices_the_cost_block_says_unknown(env: dict[str, str], long_session: Path) -> None:
    done = _run(env, "compact", str(long_session), "--dry-run")
    block = done.stdout.split("\n--- cost ---\n", 1)[1].splitlines()
    assert block[0].endswith("out, unknown at anthropic/claude-test's prices [unknown]")
    assert "saving unknown each with a warm cache; the first one rewrites the cache (unknown)" in block[1]
    assert block[2] == "break-even: unknown"


def test_a_summary_that_removes_less_than_it_adds_says_the_requests_grow(env: dict[str, str], session: Path) -> None:
    done = _run(env, "compact", str(session), "--dry-run", "--json")
    removed = json.loads(done.stdout)["economics"]["removedPerRequest"]
    assert removed < 0
    text = _run(env, "compact", str(session), "--dry-run").stdout.split("\n--- cost ---\n", 1)[1].splitlines()
    assert text[1:] == [
        f"every later request carries {-removed:,} more tokens: the summary is longer than the messages it replaces"
    ]


def test_a_summarizer_run_is_priced_at_its_models_prices_with_the_usage_its_provider_reported(
    env: dict[str, str], long_session: Path
) -> None:
    """Issue 22: the cost block of a real run used the session model's prices and Pi's estimates."""
    session_rates = {"input": 3, "output": 15, "cacheRead": 0.3, "cacheWrite": 3.75}
    summarizer_rates = {"input": 1, "output": 5, "cacheRead": 0.1, "cacheWrite": 1.25}
    models = {
        "providers": {
            "anthropic": {"models": [{"id": "claude-test", "cost": session_rates}]},
            "openai": {"models": [{"id": "summarizer-9", "cost": summarizer_rates}]},
        }
    }
    (Path(env["PI_CODING_AGENT_DIR"]) / "models.json").write_text(json.dumps(models), encoding="utf-8")
    usage = {"input": 1200, "output": 300, "cacheRead": 800}
    with FakeLlmServer(default=ScriptedResponse(text="## Goal\nFix crashes.", usage=usage)) as server:
        run_env = {**env, "OPENAI_BASE_URL": server.openai_base_url, "OPENAI_API_KEY": "sk-test"}
        done = _run(run_env, "compact", str(long_session), "--model", "openai/summarizer-9", "--dry-run", "--json")
        text = _run(run_env, "compact", str(long_session), "--model", "openai/summarizer-9", "--dry-run")
    assert done.returncode == 0, done.stderr
    cost = json.loads(done.stdout)["economics"]
    assert cost["requests"] == 2
    assert (cost["summaryModel"], cost["summaryPriceSource"], cost["summaryTokensSource"]) == (
        "openai/summarizer-9",
        "models.json",
        "reported",
    )
    assert (cost["summaryInput"], cost["summaryOutput"]) == (2 * 2000, 2 * 300)  # as the provider counted them
    per_call = (1 * 1200 + 5 * 300 + 0.1 * 800) / 1e6
    assert cost["summaryCost"] == pytest.approx(2 * per_call)
    assert (cost["model"], cost["priceSource"]) == ("anthropic/claude-test", "models.json")  # the savings' prices
    assert cost["savingPerRequest"] == pytest.approx(0.3 * cost["removedPerRequest"] / 1e6)
    block = text.stdout.split("\n--- cost ---\n", 1)[1].splitlines()
    assert block[0] == (
        "2 summary calls: 4,000 tokens in (uncached), 600 out as the provider reported, "
        f"{format_usd(2 * per_call)} at openai/summarizer-9's prices [models.json]"
    )
    assert " each with a warm cache at anthropic/claude-test's prices [models.json]; " in block[1]


def test_a_session_whose_cwd_is_not_here_says_which_folder_stands_for_its_project(
    env: dict[str, str], tmp_path: Path
) -> None:
    chain = Chain()
    chain.user("hi")
    path = write_session(tmp_path / "away.jsonl", chain.entries, cwd="/nowhere/project")
    done = _run(env, "compact", str(path), "--dry-run")
    assert done.stderr.startswith(
        f"pi-context: the session's cwd /nowhere/project does not exist here; using {os.getcwd()}; pass --cwd DIR "
        "to name the session's project\n"
    )
