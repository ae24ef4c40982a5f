"""Hover content per rule: the key's documentation, and what Pi makes of this file's value."""

from __future__ import annotations

from pathlib import Path

from lsp_server.base.findings import Position, Range
from lsp_server.editing.hovers import HoverInfo, context_file_hover, hover_at, to_plaintext
from tests.editing.conftest import Skills


def hover(skills: Skills, text: str, line: int, column: int, profile: str = "pi", folder: str = "pdf") -> HoverInfo:
    path: Path = skills.write(text, folder=folder)
    info = hover_at(str(path), text, Position(line, column), profile)
    assert info is not None
    return info


def test_a_key_hover_lists_every_agents_handling(skills: Skills) -> None:
    info = hover(skills, "---\nlicense: MIT\n---\n", 1, 2)
    assert info.range == Range(Position(1, 0), Position(1, 7))
    assert "- **Agent Skills spec (skills-ref)**: optional; keep it short" in info.markdown
    assert "- **Pi**: ignored (Pi reads only name, description and disable-model-invocation)" in info.markdown


def test_the_active_profiles_agent_comes_first(skills: Skills) -> None:
    info = hover(skills, "---\nlicense: MIT\n---\n", 1, 2, profile="vscode")
    assert info.markdown.split("\n- ")[1].startswith("**VS Code**")


def test_the_name_hover_shows_the_folder_fallback(skills: Skills) -> None:
    info = hover(skills, "---\nname: ''\ndescription: d\n---\n", 1, 1)
    assert 'This is the string "": Pi ignores it and uses the folder name.' in info.markdown
    assert "Pi uses the name `pdf` (the folder name)." in info.markdown


def test_the_name_hover_repeats_pis_warnings(skills: Skills) -> None:
    info = hover(skills, "---\nname: PDF\ndescription: d\n---\n", 1, 7)
    assert "Pi warns: name contains invalid characters (must be lowercase a-z, 0-9, hyphens only)." in info.markdown


def test_the_name_length_is_counted_in_utf16_units(skills: Skills) -> None:
    info = hover(skills, "---\nname: 😀\ndescription: d\n---\n", 1, 1)
    assert "Length: 2 of 64 UTF-16 units (1 characters)" in info.markdown


def test_the_description_hover_says_whether_pi_loads_the_skill(skills: Skills) -> None:
    info = hover(skills, "---\nname: pdf\ndescription: 12\n---\n", 2, 14)
    assert info.markdown.startswith("This is the number 12, not a string: Pi treats the description as missing.")
    assert "Pi does not load this skill: the description is missing or blank." in info.markdown


def test_the_description_hover_estimates_its_tokens(skills: Skills) -> None:
    info = hover(skills, "---\ndescription: abcdefghi\n---\n", 1, 2)
    assert "Length: 9 of 1024 UTF-16 units · about 3 tokens in every request" in info.markdown


def test_an_over_long_description_is_flagged(skills: Skills) -> None:
    info = hover(skills, f"---\ndescription: {'a' * 1025}\n---\n", 1, 2)
    assert "1025 of 1024 UTF-16 units · **over the limit**" in info.markdown


def test_disable_model_invocation_true_hides_the_skill_in_pi(skills: Skills) -> None:
    info = hover(skills, "---\ndescription: d\ndisable-model-invocation: true\n---\n", 2, 27)
    assert info.markdown.startswith("`true`: Pi leaves this skill out of the skill listing")


def test_a_quoted_true_does_not_hide_the_skill_in_pi(skills: Skills) -> None:
    info = hover(skills, '---\ndescription: d\ndisable-model-invocation: "true"\n---\n', 2, 28)
    assert info.markdown.startswith(
        'This is the string "true", not the boolean `true`: Pi keeps the skill in the listing.'
    )
    assert "Claude Code reads it as true." in info.markdown


def test_an_unknown_key_says_nobody_reads_it(skills: Skills) -> None:
    info = hover(skills, "---\ncolour: blue\n---\n", 1, 1)
    assert info.markdown.startswith("**`colour`** · not a key of the spec, Pi, Claude Code or VS Code")


def test_plaintext_has_no_markup(skills: Skills) -> None:
    assert to_plaintext("**`name`** · string") == "name · string"


def test_no_hover_outside_keys_and_values(skills: Skills) -> None:
    path = skills.write("---\nname: x\n\n---\nBody\n")
    for line, column in ((0, 1), (2, 0), (4, 1)):
        assert hover_at(str(path), "---\nname: x\n\n---\nBody\n", Position(line, column)) is None


def test_an_empty_value_is_not_hovered_on_the_next_line(skills: Skills) -> None:
    text = "---\nname:\ndescription: d\n---\n"
    info = hover(skills, text, 2, 0)
    assert info.markdown.startswith("**`description`**")


def test_a_context_file_that_wins_its_folder_shows_its_cost(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("# Rules\nabcd\n")
    (tmp_path / "CLAUDE.md").write_text("x")
    info = context_file_hover(str(tmp_path / "AGENTS.md"), "# Rules\nabcd\n", Position(0, 3))
    assert info is not None and info.range == Range(Position(0, 0), Position(0, 7))
    verdict = "Pi takes this file for its folder: Pi sends it with every request; about 4 tokens (Pi's estimate)."
    assert verdict in info.markdown
    assert "- `AGENTS.md`: used\n- `AGENTS.MD`: absent\n- `CLAUDE.md`: ignored: an earlier name wins" in info.markdown


def test_a_shadowed_context_file_names_the_winner(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("a")
    (tmp_path / "CLAUDE.md").write_text("b")
    info = context_file_hover(str(tmp_path / "CLAUDE.md"), "b", Position(0, 0))
    assert info is not None and "Pi ignores this file: `AGENTS.md` in the same folder comes first." in info.markdown


def test_a_context_file_has_a_hover_on_its_first_line_only(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("a\nb\n")
    assert context_file_hover(str(tmp_path / "AGENTS.md"), "a\nb\n", Position(1, 0)) is None
