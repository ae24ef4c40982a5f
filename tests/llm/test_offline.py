"""The offline extractive summarizer: Pi's summary structures filled from the conversation text."""

from __future__ import annotations

import json
from pathlib import Path

from lsp_server.llm.client import CancelToken
from lsp_server.llm.offline import EXTRACTIVE_NOTE, OfflineSummarizer, summarize_extractively
from lsp_server.llm.offline_prompt import parse_headings, parse_summary_prompt, parse_tool_calls, parse_turns
from lsp_server.llm.types import CompletionRequest

GOLDEN = Path(__file__).resolve().parents[1] / "conformance" / "golden"
FULL = (
    "## Goal\n\n## Constraints & Preferences\n\n## Progress\n### Done\n\n### In Progress\n\n### Blocked\n\n"
    "## Key Decisions\n\n## Next Steps\n\n## Critical Context\n"
)
BRANCH = FULL.replace("## Critical Context\n", "")
TURN_PREFIX = "## Original Request\n\n## Progress So Far\n\n## Context Needed to Continue\n"

CONVERSATION = "\n\n".join(
    [
        "[User]: Fix the crash in src/app.ts. Do not change the public API.",
        "[Assistant]: Reading the file.",
        '[Assistant tool calls]: read(path="src/app.ts"); read(path="README.md")',
        "[Tool result]: line 1\nTypeError: cannot read properties of undefined\nline 3",
        "[Assistant]: I decided to guard the call because the config may be missing.",
        '[Assistant tool calls]: edit(path="src/app.ts", oldText="a; b", newText="c, d"); bash(command="npm test")',
        "[Tool result]: all tests pass",
        "[User]: Now update the docs too.",
        "[Assistant]: Next I will update docs/guide.md with the new behaviour.",
    ]
)


def history_prompt(conversation: str, instructions: str = FULL, previous: str | None = None) -> str:
    text = f"<conversation>\n{conversation}\n</conversation>\n\n"
    if previous is not None:
        text += f"<previous-summary>\n{previous}\n</previous-summary>\n\n"
    return text + instructions


def section(summary: str, title: str) -> list[str]:
    """The lines under a heading, up to the next heading."""
    lines = summary.split("\n")
    start = next(i for i, line in enumerate(lines) if line.lstrip("#").strip() == title) + 1
    end = next((i for i in range(start, len(lines)) if lines[i].startswith("#")), len(lines))
    return [line for line in lines[start:end] if line]


def test_initial_summary_has_the_requested_headings_in_order() -> None:
    summary = summarize_extractively(history_prompt(CONVERSATION))
    assert [line for line in summary.split("\n") if line.startswith("#")] == [
        "## Goal",
        "## Constraints & Preferences",
        "## Progress",
        "### Done",
        "### In Progress",
        "### Blocked",
        "## Key Decisions",
        "## Next Steps",
        "## Critical Context",
    ]


def test_summary_says_it_is_extractive_under_critical_context() -> None:
    summary = summarize_extractively(history_prompt(CONVERSATION))
    assert section(summary, "Critical Context")[-1] == f"- {EXTRACTIVE_NOTE}"
    assert summary.count(EXTRACTIVE_NOTE) == 1


def test_goal_is_the_first_and_latest_user_request() -> None:
    summary = summarize_extractively(history_prompt(CONVERSATION))
    assert section(summary, "Goal") == [
        "- Fix the crash in src/app.ts. Do not change the public API.",
        "- Now update the docs too.",
    ]
    assert section(summary, "In Progress") == ["- [ ] Now update the docs too."]


def test_files_read_and_modified_are_listed_separately_and_sorted() -> None:
    context = section(summarize_extractively(history_prompt(CONVERSATION)), "Critical Context")
    assert context[:2] == ["- Files read: `README.md`", "- Files modified: `src/app.ts`"]


def test_edits_writes_and_commands_are_done_items() -> None:
    assert section(summarize_extractively(history_prompt(CONVERSATION)), "Done") == [
        "- [x] Edited `src/app.ts`",
        "- [x] Ran `npm test`",
    ]


def test_user_constraints_are_kept() -> None:
    assert section(summarize_extractively(history_prompt(CONVERSATION)), "Constraints & Preferences") == [
        "- Do not change the public API."
    ]


def test_a_decision_with_because_is_split_into_decision_and_reason() -> None:
    assert section(summarize_extractively(history_prompt(CONVERSATION)), "Key Decisions") == [
        "- **I decided to guard the call**: because the config may be missing."
    ]


def test_tool_errors_since_the_last_file_change_are_blocked() -> None:
    failing = CONVERSATION + "\n\n[Tool result]: Error: ENOENT docs/guide.md not found"
    assert section(summarize_extractively(history_prompt(failing)), "Blocked") == [
        "- Error: ENOENT docs/guide.md not found"
    ]


def test_errors_before_a_later_file_change_are_not_blocked() -> None:
    assert section(summarize_extractively(history_prompt(CONVERSATION)), "Blocked") == ["- (none)"]


def test_next_steps_come_from_the_last_assistant_message() -> None:
    assert section(summarize_extractively(history_prompt(CONVERSATION)), "Next Steps") == [
        "1. Next I will update docs/guide.md with the new behaviour."
    ]


def test_empty_sections_say_none() -> None:
    summary = summarize_extractively(history_prompt("[User]: hello there friend"))
    assert section(summary, "Blocked") == ["- (none)"]


def test_update_keeps_previous_items_and_adds_new_ones() -> None:
    previous = (
        "## Goal\n- Port the parser to Rust\n\n## Progress\n### Done\n- [x] Wrote `parser.rs`\n\n"
        "## Critical Context\n- Files read: `old.txt`\n- " + EXTRACTIVE_NOTE + "\n\n"
        "<read-files>\nspec.md\n</read-files>\n\n<modified-files>\nparser.rs\n</modified-files>"
    )
    summary = summarize_extractively(history_prompt(CONVERSATION, previous=previous))
    assert section(summary, "Goal")[0] == "- Port the parser to Rust"
    assert section(summary, "Done")[:2] == ["- [x] Wrote `parser.rs`", "- [x] Edited `src/app.ts`"]
    assert section(summary, "Critical Context")[:2] == [
        "- Files read: `README.md`, `spec.md`",
        "- Files modified: `parser.rs`, `src/app.ts`",
    ]
    assert summary.count(EXTRACTIVE_NOTE) == 1


def test_turn_prefix_uses_its_three_headings() -> None:
    prompt = f"# Conversation\n{CONVERSATION}\n\n# Instructions\n{TURN_PREFIX}"
    summary = summarize_extractively(prompt)
    assert [line for line in summary.split("\n") if line.startswith("#")] == [
        "## Original Request",
        "## Progress So Far",
        "## Context Needed to Continue",
    ]
    assert section(summary, "Original Request")[0] == "- Fix the crash in src/app.ts. Do not change the public API."
    assert "- [x]" not in summary
    assert section(summary, "Context Needed to Continue")[-1] == f"- {EXTRACTIVE_NOTE}"


def test_branch_summary_has_no_critical_context_and_ends_with_the_note() -> None:
    summary = summarize_extractively(history_prompt(CONVERSATION, instructions=BRANCH))
    assert "## Critical Context" not in summary
    assert summary.endswith(f"\n\nNote: {EXTRACTIVE_NOTE}")


def test_additional_focus_is_kept_in_the_context() -> None:
    summary = summarize_extractively(history_prompt(CONVERSATION, instructions=FULL + "\n\nAdditional focus: the docs"))
    assert "- Requested focus: the docs" in section(summary, "Critical Context")


def test_instructions_without_headings_get_the_default_structure() -> None:
    summary = summarize_extractively(history_prompt(CONVERSATION, instructions="Summarize briefly."))
    assert summary.startswith("## Goal\n")
    assert "## Critical Context" in summary


def test_a_compaction_summary_inside_the_conversation_is_merged() -> None:
    wrapped = "[User]: Earlier history:\n\n<summary>\n## Goal\n- Ship v2\n</summary>"
    summary = summarize_extractively(history_prompt(wrapped + "\n\n[User]: continue please"))
    assert section(summary, "Goal") == ["- Ship v2", "- continue please"]


def test_output_is_deterministic() -> None:
    prompt = history_prompt(CONVERSATION)
    assert summarize_extractively(prompt) == summarize_extractively(prompt)


def test_output_is_bounded_for_a_huge_conversation() -> None:
    turns = [
        f"[User]: Please use approach {i} because it must work.\n\n"
        f'[Assistant tool calls]: write(path="f{i}.py", content="x")'
        for i in range(3000)
    ]
    summary = summarize_extractively(history_prompt("\n\n".join(turns)))
    assert len(summary) < 12_000
    assert "- Files modified: `f0.py`" in summary and " and 2980 more" in summary


def test_every_golden_pi_prompt_gets_every_heading_it_asks_for() -> None:
    prompts = [
        request["promptText"]
        for op in ("compact", "branch_summary")
        for line in (GOLDEN / f"{op}.jsonl").read_text().splitlines()
        for request in json.loads(line)["result"].get("requests", [])
    ]
    assert prompts
    for prompt in prompts:
        summary = summarize_extractively(prompt)
        asked = parse_headings(parse_summary_prompt(prompt).instructions)
        wanted = [f"{'#' * h.level} {h.title}" for h in asked] or [h for h in FULL.split("\n") if h]
        assert [line for line in summary.split("\n") if line.startswith("#")] == wanted
        assert EXTRACTIVE_NOTE in summary


def test_tool_call_lines_parse_with_json_arguments() -> None:
    calls = parse_tool_calls('edit(path="a; b.py", text="x, y=z"); bash(command="ls", timeout=5)')
    assert [(c.name, c.arguments) for c in calls] == [
        ("edit", {"path": "a; b.py", "text": "x, y=z"}),
        ("bash", {"command": "ls", "timeout": 5}),
    ]


def test_a_marker_only_starts_a_part_after_a_blank_line() -> None:
    turns = parse_turns("[User]: first\n[Assistant]: quoted inside\n\n[Assistant]: real")
    assert [(t.role, t.text) for t in turns] == [("user", "first\n[Assistant]: quoted inside"), ("assistant", "real")]


async def test_offline_client_answers_like_a_model() -> None:
    client = OfflineSummarizer()
    progress: list[int] = []
    reply = await client.complete(
        CompletionRequest.single_prompt("system", history_prompt(CONVERSATION)), on_text_delta=progress.append
    )
    assert (reply.stop_reason, reply.provider, reply.has_tool_call, reply.ok) == ("stop", "offline", False, True)
    assert progress == [len(reply.text)]
    assert reply.usage.total_tokens == 0


async def test_offline_client_honours_a_cancelled_token() -> None:
    token = CancelToken()
    token.cancel()
    reply = await OfflineSummarizer().complete(CompletionRequest.single_prompt("s", "p"), cancel=token)
    assert (reply.stop_reason, reply.text) == ("aborted", "")


def test_a_request_the_agent_answered_last_is_done_not_in_progress() -> None:
    conversation = "\n\n".join(
        [
            "[User]: Fix the crash in src/app.ts.",
            '[Assistant tool calls]: edit(path="src/app.ts", oldText="a", newText="b")',
            "[Tool result]: Successfully replaced text in src/app.ts.",
            "[User]: Use a guard clause instead.",
            '[Assistant tool calls]: edit(path="src/app.ts", oldText="b", newText="c")',
            "[Tool result]: Successfully replaced text in src/app.ts.",
            "[Assistant]: The crash is fixed with a guard clause; all tests pass.",
        ]
    )
    summary = summarize_extractively(history_prompt(conversation))
    assert section(summary, "In Progress") == ["- (none)"]
    assert "- [x] Use a guard clause instead." in section(summary, "Done")
    assert section(summary, "Next Steps") == ["- (none)"]


def test_a_request_still_being_worked_on_stays_in_progress() -> None:
    conversation = "\n\n".join(
        [
            "[User]: Use a guard clause instead.",
            '[Assistant tool calls]: edit(path="src/app.ts", oldText="b", newText="c")',
            "[Tool result]: Successfully replaced text in src/app.ts.",
        ]
    )
    summary = summarize_extractively(history_prompt(conversation))
    assert section(summary, "In Progress") == ["- [ ] Use a guard clause instead."]
    assert section(summary, "Next Steps") == ["1. Continue with the latest request: Use a guard clause instead."]
