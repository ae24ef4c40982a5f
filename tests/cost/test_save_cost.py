"""What a save costs in prompt-cache terms: Pi's patch for a live session, the first difference for new ones."""

from __future__ import annotations

from lsp_server.cost.save_cost import first_difference, save_cache_impact
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
