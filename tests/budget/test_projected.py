"""The projected request: what the model receives next, message by message, and its wire form."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lsp_server import protocol
from lsp_server.budget.budget import BudgetConfig
from lsp_server.budget.models import ModelWindows, WindowOverrides
from lsp_server.budget.parts import llm_message_text
from lsp_server.budget.projected import SessionAnalysis, analyze_session
from lsp_server.context.model import ContextFile
from lsp_server.js.values import UNDEFINED
from lsp_server.project.budget_answers import budget_result, projected_result
from lsp_server.prompt.assembly import AssembledPrompt, PromptInputs, assemble_prompt
from lsp_server.prompt.system_messages import current_system_message, system_message_text
from lsp_server.session.estimates import estimate_tokens
from lsp_server.session.tail import load_session
from tests.budget._sessions import assistant, chain, entry, message, system, tool, usage, user, write_session


def _analyze(
    tmp_path: Path, entries: list[dict[str, Any]], prompt: AssembledPrompt | None = None, leaf: Any = UNDEFINED
) -> SessionAnalysis:
    session = load_session(write_session(tmp_path / "s.jsonl", entries))
    config = BudgetConfig(windows=ModelWindows(overrides=WindowOverrides(forced=100_000)))
    return analyze_session(session.entries, leaf, by_id=session.index.by_id, config=config, workspace_prompt=prompt)


def _mixed() -> list[dict[str, Any]]:
    bash = {"role": "bashExecution", "command": "ls", "output": "a", "exitCode": 0, "timestamp": 5}
    hidden = {**bash, "command": "env", "excludeFromContext": True}
    entries = chain(
        ("s0", system({"preamble": "Be brief.", "cwd": "<cwd>\n/p\n</cwd>"}, [tool("read")])),
        ("u1", user("hello", timestamp=11)),
        ("a1", assistant("hi", use=usage(500, 5))),
        ("b1", bash),
        ("b2", hidden),
    )
    stored = {**entries[0]["message"], "timestamp": 6000}  # Pi 1.6.0 carries the prompt state across a compaction
    entries.append(
        entry(
            "compaction",
            "c1",
            "b2",
            6,
            summary="all so far",
            firstKeptEntryId="b1",
            tokensBefore=900,
            systemMessage=stored,
        )
    )
    entries.append(entry("branch_summary", "bs1", "c1", 7, fromId="zz", summary="side quest"))
    entries.append(entry("custom_message", "cm1", "bs1", 8, customType="note", content="fyi", display=True))
    entries.append(message("u2", "cm1", user("go on"), 9))
    return entries


def test_messages_are_what_the_model_receives_with_their_kind_marked(tmp_path: Path) -> None:
    request = _analyze(tmp_path, _mixed()).request
    assert [(m.role, m.kind, m.entry_id) for m in request.messages] == [
        ("user", "compactionSummary", "c1"),
        ("user", "bashExecution", "b1"),
        ("user", "branchSummary", "bs1"),
        ("user", "custom", "cm1"),
        ("user", "user", "u2"),
    ]


def test_wrapped_messages_carry_pis_wrapper_text(tmp_path: Path) -> None:
    request = _analyze(tmp_path, _mixed()).request
    summary = request.messages[0]
    assert summary.text.startswith("The conversation history before this point was compacted")
    assert summary.text.endswith("all so far\n</summary>")
    assert request.messages[1].text == "Ran `ls`\n```\na\n```"


def test_pi_counts_the_agent_message_and_the_estimator_what_is_sent(tmp_path: Path) -> None:
    request = _analyze(tmp_path, _mixed()).request
    summary = request.messages[0]
    assert summary.pi_tokens == estimate_tokens({"role": "compactionSummary", "summary": "all so far"})
    assert summary.tokens > summary.pi_tokens  # the wrapper is sent and counted


def test_messages_keep_their_entry_type_and_timestamp(tmp_path: Path) -> None:
    entries = chain(("u1", user("hello", timestamp=1234)))
    request = _analyze(tmp_path, entries).request
    assert (request.messages[0].entry_type, request.messages[0].timestamp) == ("message", 1234)


def test_the_system_part_is_the_stored_prompt_replayed(tmp_path: Path) -> None:
    entries = _mixed()
    request = _analyze(tmp_path, entries).request
    replayed = current_system_message([entries[0]["message"]])
    assert replayed is not None
    assert request.system.origin == "session"
    assert request.system.rendered == system_message_text(replayed)
    assert [s.name for s in request.system.sections] == ["preamble", "cwd", "#tools"]
    assert request.system.pi_tokens == estimate_tokens(replayed)


def test_the_totals_are_the_system_plus_every_message(tmp_path: Path) -> None:
    request = _analyze(tmp_path, _mixed()).request
    assert request.pi_tokens == request.system.pi_tokens + sum(m.pi_tokens for m in request.messages)
    assert request.tokens == request.system.tokens + sum(m.tokens for m in request.messages)


def _prompt() -> AssembledPrompt:
    return assemble_prompt(
        PromptInputs(cwd="/p", context_files=(ContextFile("/p/AGENTS.md", "Use tabs."),), package_dir="/opt/pi")
    )


def test_the_workspace_prompt_stands_in_when_the_session_stores_none(tmp_path: Path) -> None:
    prompt = _prompt()
    request = _analyze(tmp_path, chain(("u1", user("hi"))), prompt).request
    assert request.system.origin == "workspace"
    assert request.system.rendered == prompt.text
    context = next(s for s in request.system.sections if s.name == "project_context")
    assert context.sources == ("/p/AGENTS.md",)


def test_a_stored_section_equal_to_the_workspaces_gets_its_source_files(tmp_path: Path) -> None:
    prompt = _prompt()
    stored = {section.name: section.text for section in prompt.sections}
    request = _analyze(tmp_path, chain(("s0", system(stored)), ("u1", user("hi"))), prompt).request
    context = next(s for s in request.system.sections if s.name == "project_context")
    assert (request.system.origin, context.sources) == ("session", ("/p/AGENTS.md",))


def test_a_stored_section_that_differs_from_the_workspace_has_no_sources(tmp_path: Path) -> None:
    prompt = _prompt()
    stored = {"project_context": "something older"}
    request = _analyze(tmp_path, chain(("s0", system(stored)), ("u1", user("hi"))), prompt).request
    assert request.system.sections[0].sources == ()


def test_another_leaf_gives_that_branchs_request(tmp_path: Path) -> None:
    entries = chain(("u1", user("root")), ("a1", assistant("one")))
    entries.append(message("a2", "u1", assistant("two"), 5))
    request = _analyze(tmp_path, entries, leaf="a1").request
    assert (request.leaf_id, [m.entry_id for m in request.messages]) == ("a1", ["u1", "a1"])


def test_the_thinking_level_and_model_come_from_the_path(tmp_path: Path) -> None:
    entries = chain(("u1", user("hi")))
    entries.append(entry("thinking_level_change", "t1", "u1", 2, thinkingLevel="high"))
    entries.append(entry("model_change", "m1", "t1", 3, provider="openai", modelId="gpt-4o"))
    request = _analyze(tmp_path, entries).request
    assert (request.thinking_level, request.model.name) == ("high", "openai/gpt-4o")


def test_message_text_marks_what_is_not_text() -> None:
    text = llm_message_text(
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "hmm"},
                {"type": "text", "text": "Reading."},
                {"type": "toolCall", "id": "c", "name": "read", "arguments": {"path": "a.py"}},
                {"type": "image", "data": "", "mimeType": "image/png"},
            ],
        }
    )
    assert text == '[thinking] hmm\nReading.\n[tool call] read {"path":"a.py"}\n[image]'


def test_the_wire_forms_are_valid_protocol_payloads(tmp_path: Path) -> None:
    analysis = _analyze(tmp_path, _mixed())
    budget = budget_result(analysis.budget).wire()
    request = projected_result(analysis.request, session="/s.jsonl", cwd="/p", agent_dir="/a", project_trusted=True)
    payload = request.wire()
    assert protocol.ContextBudgetResult.model_validate(budget).context_tokens == analysis.budget.context_tokens
    assert protocol.ProjectedRequestResult.model_validate(payload).total.pi == analysis.request.pi_tokens
    assert payload["messages"][0]["kind"] == "compactionSummary"
    assert budget["systemOrigin"] == "session"
    assert sum(c["tokens"] for c in budget["pi"]["categories"]) == budget["window"] + budget["pi"]["overflow"]


def test_the_wire_model_says_where_the_window_came_from(tmp_path: Path) -> None:
    analysis = _analyze(tmp_path, chain(("u1", user("hi"))))
    model = budget_result(analysis.budget).model
    assert (model.context_window, model.window_source, model.source) == (100_000, "settings", "settings")
