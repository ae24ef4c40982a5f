"""What a save costs in prompt-cache terms: Pi's patch for a live session, the first difference for new ones."""

from __future__ import annotations

from lsp_server.cost.save_cost import (
    WorkspaceSection,
    first_difference,
    save_cache_impact,
    sections_pi_would_build,
    session_prompt_update,
)
from lsp_server.tokens.pair import TokenPair
from lsp_server.tokens.pi import pi_text_tokens


def test_the_kept_prefix_ends_at_the_first_differing_character() -> None:
    before = "You are helpful.\n\n<project_context>\nUse tabs.\n</project_context>"
    after = "You are helpful.\n\n<project_context>\nUse spaces.\n</project_context>"
    impact = save_cache_impact(before, after, "Updated section: spaces", len)
    assert impact.first_difference == len("You are helpful.\n\n<project_context>\nUse ")
    assert impact.kept == TokenPair(pi_text_tokens(after[: impact.first_difference]), impact.first_difference)
    assert impact.resent.estimate == len(after) - impact.first_difference
    assert impact.patch == TokenPair(pi_text_tokens("Updated section: spaces"), len("Updated section: spaces"))


def test_an_appended_section_keeps_the_whole_old_prompt() -> None:
    impact = save_cache_impact("abc", "abcdef", "p", len)
    assert (impact.first_difference, impact.kept.estimate, impact.resent.estimate) == (3, 3, 3)


def test_offsets_are_utf16_units_as_pi_counts() -> None:
    assert first_difference("😀a", "😀b") == 1  # one Python character before the difference
    impact = save_cache_impact("😀a", "😀b", "", len)
    assert impact.first_difference == 2  # two UTF-16 units


def test_equal_texts_have_no_difference() -> None:
    impact = save_cache_impact("same", "same", "", len)
    assert impact.first_difference is None and impact.resent == TokenPair(0, 0)


# --- one session: Pi's patch against what it recorded ------------------------------------------------

RECORDED = {
    "preamble": "Pi's own preamble.",
    "tools": "<tools>Pi's tool lines</tools>",
    "docs": "<docs>Pi's docs</docs>",
    "project_context": "<project_context>\nBe brief.\n</project_context>",
    "skills": "<skills>\nPi's introduction.\n<available_skills>\nold\n</available_skills>\n</skills>",
    "cwd": "<cwd>\n/p\n</cwd>",
}


def workspace(**texts: str) -> list[WorkspaceSection]:
    ours = {
        "preamble": WorkspaceSection("preamble", "Our preamble.", True),
        "tools": WorkspaceSection("tools", "<tools>our tool lines</tools>", True),
        "project_context": WorkspaceSection("project_context", RECORDED["project_context"], False),
        "skills": WorkspaceSection(
            "skills", "<skills>\nOur introduction.\n<available_skills>\nold\n</available_skills>\n</skills>", False
        ),
        "cwd": WorkspaceSection("cwd", RECORDED["cwd"], False),
    }
    for name, text in texts.items():
        ours[name] = WorkspaceSection(name, text, False)
    return list(ours.values())


def test_pis_own_prose_is_taken_from_the_recording_and_only_file_changes_make_a_patch() -> None:
    built = sections_pi_would_build(RECORDED, workspace())
    assert built == RECORDED  # our wording of the preamble, tools and skills intro is not a change; docs kept
    skills = "<skills>\nOur introduction.\n<available_skills>\nnew\n</available_skills>\n</skills>"
    changed = sections_pi_would_build(RECORDED, workspace(skills=skills))
    assert changed["skills"] == "<skills>\nPi's introduction.\n<available_skills>\nnew\n</available_skills>\n</skills>"


def test_a_session_gets_the_patch_pi_would_record_in_either_mode() -> None:
    messages = [{"role": "system", "content": "", "sections": RECORDED, "timestamp": 1}, {"role": "user"}]
    new = "<project_context>\nBe thorough.\n</project_context>"
    for mid, mode in ((True, "patch"), (False, "replay")):
        update = session_prompt_update(messages, workspace(project_context=new), mid_conversation_system=mid, count=len)
        assert update is not None and update.mode == mode
        assert update.patch == {"project_context": new}
        assert update.rendered_update == f'Updated system prompt section "project_context":\n\n{new}'
        before = "\n\n".join(RECORDED.values())
        assert update.impact.first_difference == before.index("brief")
        assert update.message == {"role": "system", "content": "", "sections": {"project_context": new}, "timestamp": 0}


def test_nothing_to_patch_without_recorded_sections_or_changes() -> None:
    assert session_prompt_update([{"role": "user"}], workspace(), mid_conversation_system=False, count=len) is None
    messages = [{"role": "system", "content": "", "sections": RECORDED, "timestamp": 1}]
    same = session_prompt_update(messages, workspace(), mid_conversation_system=False, count=len)
    assert same is not None and (same.patch, same.message, same.impact.first_difference) == ({}, None, None)
