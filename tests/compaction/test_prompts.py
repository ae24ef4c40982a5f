"""Summary prompts: Pi's structure (wrappers, headings, focus) with our own instruction wording."""

from __future__ import annotations

import re

import pytest

from lsp_server.compaction.prompts import (
    BRANCH_SUMMARY_TEMPLATE,
    SUMMARIZATION_SYSTEM_PROMPT,
    SUMMARY_TEMPLATE,
    TURN_PREFIX_TEMPLATE,
    UPDATE_SUMMARY_TEMPLATE,
    branch_prompt,
    error_failure,
    history_prompt,
    length_failure,
    tool_call_failure,
    turn_prefix_prompt,
)
from tests.support.pi_prose import require_pi_prose, sentences_of

PI_HEADINGS = [
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


def _headings(text: str) -> list[str]:
    return re.findall(r"^#{2,3} .+$", text, re.MULTILINE)


def test_history_prompt_wraps_the_conversation_before_the_template() -> None:
    assert history_prompt("[User]: hi") == f"<conversation>\n[User]: hi\n</conversation>\n\n{SUMMARY_TEMPLATE}"


def test_update_prompt_adds_the_previous_summary_block_and_the_update_template() -> None:
    text = history_prompt("[User]: hi", "OLD")
    assert text == (
        f"<conversation>\n[User]: hi\n</conversation>\n\n<previous-summary>\nOLD\n</previous-summary>\n\n"
        f"{UPDATE_SUMMARY_TEMPLATE}"
    )


def test_an_empty_previous_summary_is_not_an_update() -> None:
    assert history_prompt("c", "") == history_prompt("c")


def test_custom_instructions_go_last_as_additional_focus() -> None:
    assert history_prompt("c", "OLD", "Keep names.").endswith(
        f"{UPDATE_SUMMARY_TEMPLATE}\n\nAdditional focus: Keep names."
    )
    assert turn_prefix_prompt("c", "Keep names.").endswith("\n\nAdditional focus: Keep names.")
    assert branch_prompt("c", "Keep names.").endswith(f"{BRANCH_SUMMARY_TEMPLATE}\n\nAdditional focus: Keep names.")


def test_turn_prefix_prompt_uses_conversation_and_instructions_sections() -> None:
    assert turn_prefix_prompt("[User]: hi") == f"# Conversation\n[User]: hi\n\n# Instructions\n{TURN_PREFIX_TEMPLATE}"


def test_replaced_branch_instructions_are_the_custom_text_alone() -> None:
    assert (
        branch_prompt("c", "Only files.", replace_instructions=True)
        == "<conversation>\nc\n</conversation>\n\nOnly files."
    )
    assert branch_prompt("c", None, replace_instructions=True) == branch_prompt("c")


@pytest.mark.parametrize("template", [SUMMARY_TEMPLATE, UPDATE_SUMMARY_TEMPLATE])
def test_compaction_templates_ask_for_pis_sections_in_pis_order(template: str) -> None:
    assert _headings(template) == PI_HEADINGS
    assert "- [x] " in template and "- [ ] " in template and "- **[Decision]**: " in template and "\n1. " in template


def test_branch_template_has_no_critical_context() -> None:
    assert _headings(BRANCH_SUMMARY_TEMPLATE) == PI_HEADINGS[:-1]


def test_turn_prefix_template_asks_for_pis_three_sections() -> None:
    assert _headings(TURN_PREFIX_TEMPLATE) == [
        "## Original Request",
        "## Progress So Far",
        "## Context Needed to Continue",
    ]


def test_the_instruction_wording_is_ours_not_pis() -> None:
    """No sentence of Pi's summary instructions, read from the installed Pi (never written here), is ours."""
    pis = sentences_of(require_pi_prose()["summaryInstructions"])
    assert len(pis) > 20, "Pi's summary instructions were not read (tests/support/pi_prose_texts.mjs)"
    ours = (
        SUMMARIZATION_SYSTEM_PROMPT,
        SUMMARY_TEMPLATE,
        UPDATE_SUMMARY_TEMPLATE,
        TURN_PREFIX_TEMPLATE,
        BRANCH_SUMMARY_TEMPLATE,
    )
    assert sorted(sentence for sentence in pis if any(sentence in text for text in ours)) == []


def test_failure_messages_are_pis() -> None:
    assert error_failure("Summarization", None) == "Summarization failed: Unknown error"
    assert error_failure("Turn prefix summarization", "boom") == "Turn prefix summarization failed: boom"
    assert length_failure("Branch summarization") == (
        "Branch summarization failed: generation hit the token cap and the summary is incomplete"
    )
    assert tool_call_failure("Summarization") == "Summarization attempted to call a tool"
