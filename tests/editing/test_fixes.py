"""Quick fixes, one test per fix: apply it to the smallest broken file, re-run the rules, the rule is clean."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from lsp_server.editing.fixes import FIXABLE_CODES, compute_fixes, trim_at_word_boundary
from lsp_server.editing.text import apply_edits
from lsp_server.js.strings import js_len
from lsp_server.rules.registry import RULES
from lsp_server.rules.skill_rules import check_skill_text
from tests.editing.conftest import Skills


def test_every_rule_with_a_fix_in_the_registry_has_a_fix_builder() -> None:
    assert {code for code, rule in RULES.items() if rule.fix} <= FIXABLE_CODES


# -- name ----------------------------------------------------------------------------------------


def test_make_the_name_valid_fixes_invalid_characters_and_hyphens(skills: Skills) -> None:
    text = "---\nname: -PDF--Tools!-\ndescription: d\n---\n"
    path = skills.write(text)
    for code in ("skill/name-invalid-chars", "skill/name-hyphen-edge", "skill/name-consecutive-hyphens"):
        fixed = skills.apply(path, text, "pi", code, "Make the name valid")
        assert fixed == "---\nname: pdf-tools\ndescription: d\n---\n"


def test_one_make_valid_action_answers_every_name_rule_it_fixes(skills: Skills) -> None:
    text = "---\nname: -PDF--Tools-\ndescription: d\n---\n"
    fix = skills.fix(skills.write(text), text, "pi", "skill/name-hyphen-edge", "Make the name valid")
    assert sorted(f.code for f in fix.findings) == [
        "skill/name-consecutive-hyphens",
        "skill/name-hyphen-edge",
        "skill/name-invalid-chars",
    ]
    assert fix.preferred


def test_lowercase_the_name_fixes_uppercase_in_the_spec_profile(skills: Skills) -> None:
    text = "---\nname: PDF-Tools\ndescription: d\n---\n"
    path = skills.write(text)
    fixed = skills.apply(path, text, "agentskills", "skill/name-uppercase", "Lowercase the name: 'pdf-tools'")
    assert "name: pdf-tools\n" in fixed


def test_lowercasing_is_not_offered_when_it_leaves_the_name_invalid(skills: Skills) -> None:
    text = "---\nname: PDF Tools\ndescription: d\n---\n"
    titles = [fix.title for fix in skills.fixes(skills.write(text), text, "pi", "skill/name-invalid-chars")]
    assert not any(title.startswith("Lowercase") for title in titles)
    assert "Make the name valid: 'pdf-tools'" in titles


def test_make_the_name_valid_cuts_a_long_name_to_64(skills: Skills) -> None:
    text = f"---\nname: {'a' * 70}\ndescription: d\n---\n"
    fixed = skills.apply(skills.write(text), text, "pi", "skill/name-too-long")
    assert f"name: {'a' * 64}\n" in fixed


def test_rename_the_skill_to_its_folder_fixes_a_directory_mismatch(skills: Skills) -> None:
    text = "---\nname: other\ndescription: d\n---\n"
    path = skills.write(text)
    for profile in ("agentskills", "vscode"):
        fixed = skills.apply(path, text, profile, "skill/name-directory-mismatch", "Rename the skill to 'pdf-tools'")
        assert "name: pdf-tools\n" in fixed


def test_rename_the_folder_to_the_name_fixes_a_directory_mismatch(skills: Skills) -> None:
    text = "---\nname: other\ndescription: d\n---\n"
    path = skills.write(text)
    fix = skills.fix(path, text, "agentskills", "skill/name-directory-mismatch", "Rename the folder")
    assert fix.rename is not None and not fix.edits
    assert (fix.rename.old_path, fix.rename.new_path) == (str(path.parent), str(path.parent.parent / "other"))
    os.rename(fix.rename.old_path, fix.rename.new_path)
    moved = Path(fix.rename.new_path) / "SKILL.md"
    assert "skill/name-directory-mismatch" not in skills.codes(moved, moved.read_text(), "agentskills")


def test_the_folder_is_not_renamed_onto_an_existing_folder(skills: Skills) -> None:
    text = "---\nname: other\ndescription: d\n---\n"
    path = skills.write(text)
    (path.parent.parent / "other").mkdir()
    titles = [fix.title for fix in skills.fixes(path, text, "agentskills", "skill/name-directory-mismatch")]
    assert titles == ["Rename the skill to 'pdf-tools' (its folder name)"]


def test_renaming_to_an_invalid_folder_name_is_not_offered(skills: Skills) -> None:
    text = "---\nname: other\ndescription: d\n---\n"
    path = skills.write(text, folder="PDF Tools")
    titles = [fix.title for fix in skills.fixes(path, text, "vscode", "skill/name-directory-mismatch")]
    assert titles == ["Rename the folder to 'other'"]


def test_an_invalid_folder_name_gets_a_name_line_or_a_folder_rename(skills: Skills) -> None:
    text = "---\ndescription: d\n---\n"
    path = skills.write(text, folder="PDF Tools")
    fixed = skills.apply(path, text, "pi", "skill/name-invalid-chars", "Add name: pdf-tools")
    assert fixed == "---\nname: pdf-tools\ndescription: d\n---\n"
    fix = skills.fix(path, text, "pi", "skill/name-invalid-chars", "Rename the folder to 'pdf-tools'")
    assert fix.rename is not None and fix.rename.new_path == str(path.parent.parent / "pdf-tools")


def test_a_name_that_is_not_a_string_is_replaced_or_quoted(skills: Skills) -> None:
    text = "---\nname: 2024\ndescription: d\n---\n"
    path = skills.write(text)
    assert "name: pdf-tools\n" in skills.apply(path, text, "pi", "skill/name-not-string", "Set the name")
    assert 'name: "2024"\n' in skills.apply(path, text, "pi", "skill/name-not-string", "Quote the name")


def test_an_empty_name_is_filled_in_after_the_colon(skills: Skills) -> None:
    text = "---\nname:   # todo\ndescription: d\n---\n"
    fixed = skills.apply(skills.write(text), text, "vscode", "skill/name-not-string")
    assert fixed == "---\nname: pdf-tools   # todo\ndescription: d\n---\n"


def test_add_name_inserts_the_first_key_with_the_mappings_indentation(skills: Skills) -> None:
    text = "---\n  description: d\n---\n"
    fixed = skills.apply(skills.write(text), text, "agentskills", "skill/name-missing")
    assert fixed == "---\n  name: pdf-tools\n  description: d\n---\n"


def test_a_name_needing_quotes_is_written_quoted(skills: Skills) -> None:
    text = "---\nname: x\ndescription: d\n---\n"
    fixed = skills.apply(skills.write(text, folder="123"), text, "agentskills", "skill/name-directory-mismatch")
    assert 'name: "123"\n' in fixed


# -- description ---------------------------------------------------------------------------------


def test_add_description_inserts_a_placeholder_after_the_name(skills: Skills) -> None:
    text = "---\nname: pdf-tools\nlicense: MIT\n---\nBody\n"
    fixed = skills.apply(skills.write(text), text, "pi", "skill/description-missing")
    assert fixed.startswith("---\nname: pdf-tools\ndescription: Describe what")
    assert "skill/not-loaded" not in skills.codes(skills.write(fixed), fixed, "pi")


def test_add_description_goes_below_a_multi_line_name(skills: Skills) -> None:
    text = "---\nname: >-\n  pdf-tools\nlicense: MIT\n---\n"
    fixed = skills.apply(skills.write(text), text, "pi", "skill/description-missing")
    assert fixed.startswith("---\nname: >-\n  pdf-tools\ndescription: ")


def test_add_description_in_an_empty_frontmatter(skills: Skills) -> None:
    text = "---\n---\nBody\n"
    fixed = skills.apply(skills.write(text), text, "pi", "skill/description-missing")
    assert fixed.startswith("---\ndescription: Describe what")


def test_a_blank_description_gets_a_placeholder(skills: Skills) -> None:
    text = "---\nname: pdf-tools\ndescription: '  '\n---\n"
    fixed = skills.apply(skills.write(text), text, "pi", "skill/description-missing")
    assert "description: Describe what this skill does and when to use it.\n" in fixed


def test_a_description_yaml_reads_as_a_number_is_quoted(skills: Skills) -> None:
    text = "---\nname: pdf-tools\ndescription: 3.14\n---\n"
    fix = skills.fix(skills.write(text), text, "pi", "skill/description-missing")
    assert fix.title == 'Quote the description: "3.14"' and fix.preferred
    assert 'description: "3.14"\n' in skills.apply(skills.write(text), text, "pi", "skill/description-missing")


def test_a_list_description_is_replaced_including_its_items(skills: Skills) -> None:
    text = "---\nname: pdf-tools\ndescription:\n- a\n- b\n---\n"
    fixed = skills.apply(skills.write(text), text, "pi", "skill/description-missing")
    assert fixed == "---\nname: pdf-tools\ndescription: Describe what this skill does and when to use it.\n---\n"


def test_a_file_without_frontmatter_gets_a_whole_block(skills: Skills) -> None:
    text = "# PDF tools\n"
    fixed = skills.apply(skills.write(text), text, "pi", "skill/description-missing")
    assert fixed.startswith("---\nname: pdf-tools\ndescription: Describe what")
    assert fixed.endswith("---\n\n# PDF tools\n")


def test_insert_frontmatter_answers_the_spec_profiles_missing_frontmatter(skills: Skills) -> None:
    text = "# PDF tools\n"
    path = skills.write(text)
    fixed = skills.apply(path, text, "agentskills", "skill/frontmatter-missing")
    assert skills.codes(path, fixed, "agentskills") == []


def test_a_loose_skill_candidate_gets_a_description(skills: Skills) -> None:
    text = "---\nname: helper\n---\nBody\n"
    path = skills.write(text, folder=".pi/skills", name="helper.md")
    skills.apply(path, text, "pi", "skill/candidate-ignored")


def test_trim_the_description_at_a_word_boundary(skills: Skills) -> None:
    text = f"---\nname: pdf-tools\ndescription: {'lorem ipsum ' * 100}\n---\n"
    path = skills.write(text)
    for profile in ("pi", "agentskills", "claude-code"):
        fixed = skills.apply(path, text, profile, "skill/description-too-long")
        assert check_skill_text(str(path), fixed, profile).findings == ()
    written = fixed.split("description: ")[1].split("\n")[0].rstrip()
    assert written.endswith(" lorem ipsum") and len(written) == 1019


def test_trim_never_splits_a_surrogate_pair() -> None:
    assert trim_at_word_boundary("😀" * 600, 1024) == "😀" * 512
    assert trim_at_word_boundary("a" + "😀" * 600, 1024) == "a" + "😀" * 511


def test_trim_keeps_a_text_within_the_limit() -> None:
    assert trim_at_word_boundary("short", 1024) == "short"


def test_trim_cuts_at_the_last_space_and_drops_trailing_punctuation() -> None:
    assert trim_at_word_boundary("alpha beta, gamma", 12) == "alpha beta"


def test_a_block_scalar_description_is_trimmed_in_place(skills: Skills) -> None:
    text = "---\nname: pdf-tools\ndescription: |\n" + "  word word\n" * 120 + "license: MIT\n---\n"
    fixed = skills.apply(skills.write(text), text, "pi", "skill/description-too-long")
    assert fixed.endswith('word"\nlicense: MIT\n---\n')


def test_trim_compatibility_to_500(skills: Skills) -> None:
    text = f"---\nname: pdf-tools\ndescription: d\ncompatibility: {'needs git ' * 60}\n---\n"
    fixed = skills.apply(skills.write(text), text, "agentskills", "skill/compatibility-too-long")
    assert skills.codes(skills.write(fixed), fixed, "agentskills") == []


def test_a_compatibility_yaml_reads_as_a_number_is_quoted(skills: Skills) -> None:
    text = "---\nname: pdf-tools\ndescription: d\ncompatibility: 3\n---\n"
    fixed = skills.apply(skills.write(text), text, "agentskills", "skill/compatibility-not-string")
    assert 'compatibility: "3"\n' in fixed


# -- structure -----------------------------------------------------------------------------------


def test_close_the_frontmatter_before_the_markdown(skills: Skills) -> None:
    text = "---\nname: pdf-tools\ndescription: d\n# Title\nBody\n"
    fixed = skills.apply(skills.write(text), text, "pi", "skill/frontmatter-unclosed")
    assert fixed == "---\nname: pdf-tools\ndescription: d\n---\n# Title\nBody\n"


def test_close_the_frontmatter_at_the_first_blank_line(skills: Skills) -> None:
    text = "---\nname: pdf-tools\ndescription: d\n\nBody: text\n"
    fixed = skills.apply(skills.write(text), text, "agentskills", "skill/frontmatter-unclosed")
    assert fixed == "---\nname: pdf-tools\ndescription: d\n---\n\nBody: text\n"


def test_close_the_frontmatter_at_the_end_of_a_file_without_a_final_newline(skills: Skills) -> None:
    text = "---\nname: pdf-tools\ndescription: d"
    fixed = skills.apply(skills.write(text), text, "pi", "skill/frontmatter-unclosed")
    assert fixed == "---\nname: pdf-tools\ndescription: d\n---\n"


def test_remove_an_unknown_key_with_its_nested_block(skills: Skills) -> None:
    text = "---\nname: pdf-tools\ndescription: d\nhooks:\n  pre:\n    - run: x\nlicense: MIT\n---\n"
    fixed = skills.apply(skills.write(text), text, "agentskills", "skill/unknown-key", "Remove 'hooks'")
    assert fixed == "---\nname: pdf-tools\ndescription: d\nlicense: MIT\n---\n"


@pytest.mark.parametrize("profile", ["agentskills", "claude-code", "vscode"])
def test_remove_an_unknown_key_under_each_strict_profile(skills: Skills, profile: str) -> None:
    text = "---\nname: pdf-tools\ndescription: d\ncolour: blue\n---\n"
    fixed = skills.apply(skills.write(text), text, profile, "skill/unknown-key")
    assert fixed == "---\nname: pdf-tools\ndescription: d\n---\n"


def test_remove_all_unknown_keys_at_once(skills: Skills) -> None:
    text = "---\nname: pdf-tools\nfoo: 1\ndescription: d\nbar: |\n  x\n---\n"
    fixed = skills.apply(skills.write(text), text, "agentskills", "skill/unknown-key", "Remove all 2 unknown keys")
    assert fixed == "---\nname: pdf-tools\ndescription: d\n---\n"


def test_set_a_boolean_keeps_what_the_user_meant(skills: Skills) -> None:
    text = "---\nname: pdf-tools\ndescription: d\ndisable-model-invocation: yes\n---\n"
    path = skills.write(text)
    fix = skills.fix(path, text, "pi", "skill/boolean-value")
    assert fix.title == "Set disable-model-invocation: true" and fix.preferred
    skills.apply(path, text, "pi", "skill/boolean-value")


def test_a_boolean_nobody_can_guess_gets_both_choices_and_no_preference(skills: Skills) -> None:
    text = "---\nname: pdf-tools\ndescription: d\nuser-invocable: maybe\n---\n"
    fixes = skills.fixes(skills.write(text), text, "vscode", "skill/boolean-value")
    assert [(fix.title, fix.preferred) for fix in fixes] == [
        ("Set user-invocable: true", False),
        ("Set user-invocable: false", False),
    ]


def test_forward_slashes_in_a_windows_path(skills: Skills) -> None:
    text = "---\nname: pdf-tools\ndescription: d\n---\nRun `scripts\\fill.py` or see [form](docs\\form.md).\n"
    path = skills.write(text)
    (path.parent / "docs").mkdir()
    (path.parent / "docs" / "form.md").write_text("x")
    fixes = skills.fixes(path, text, "pi", "skill/windows-path")
    assert [fix.title for fix in fixes] == [
        "Use forward slashes: 'docs/form.md'",
        "Use forward slashes: 'scripts/fill.py'",
    ]
    fixed = apply_edits(text, [edit for fix in fixes for edit in fix.edits])
    assert skills.codes(path, fixed, "pi") == []


# -- file shapes ---------------------------------------------------------------------------------


def test_a_crlf_file_stays_crlf(skills: Skills) -> None:
    text = "---\r\nname: pdf-tools\r\n---\r\nBody\r\n"
    fixed = skills.apply(skills.write(text), text, "pi", "skill/description-missing")
    assert (
        fixed
        == "---\r\nname: pdf-tools\r\ndescription: Describe what this skill does and when to use it.\r\n---\r\nBody\r\n"
    )


def test_a_bom_stays_first(skills: Skills) -> None:
    text = "\ufeffBody\n"
    fixed = skills.apply(skills.write(text), text, "pi", "skill/description-missing")
    assert fixed.startswith("\ufeff---\nname: pdf-tools\n")


def test_a_bom_file_with_frontmatter_is_fixed_in_place(skills: Skills) -> None:
    text = "\ufeff---\nname: PDF\ndescription: d\n---\n"
    fixed = skills.apply(skills.write(text), text, "pi", "skill/name-invalid-chars")
    assert fixed == "\ufeff---\nname: pdf\ndescription: d\n---\n"


def test_an_anchor_on_a_replaced_value_is_kept(skills: Skills) -> None:
    text = "---\nname: &n PDF\ndescription: d\nmetadata:\n  id: *n\n---\n"
    fixed = skills.apply(skills.write(text), text, "pi", "skill/name-invalid-chars")
    assert "name: &n pdf\n" in fixed


def test_a_flow_mapping_frontmatter_gets_no_line_edits(skills: Skills) -> None:
    text = "---\n{name: pdf-tools, description: d, colour: blue}\n---\n"
    assert skills.fixes(skills.write(text), text, "agentskills", "skill/unknown-key") == []


def test_fixes_are_computed_from_the_text_given_not_from_the_disk(skills: Skills) -> None:
    path = skills.write("---\nname: pdf-tools\ndescription: d\n---\n")
    text = "---\nname: PDF\ndescription: d\n---\n"
    assert compute_fixes(str(path), text, "pi")[0].title == "Lowercase the name: 'pdf'"


def test_wanted_limits_the_findings_fixed(skills: Skills) -> None:
    text = "---\nname: PDF\n---\n"
    path = skills.write(text)
    fixes = compute_fixes(str(path), text, "pi", wanted=lambda f: f.code == "skill/description-missing")
    assert [fix.title for fix in fixes] == ["Add a placeholder description"]


def test_every_offered_fix_reduces_its_rule_and_keeps_the_yaml_valid(skills: Skills) -> None:
    """A sweep over awkward files and every profile (the per-rule tests above pin the exact edits)."""
    corpus = [
        "---\nname: -A--b-\ndescription:\nfoo: [1,\n  2]\n---\n",
        "\ufeff---\r\nname: PDF\r\ndisable-model-invocation: On\r\nbar: |\r\n  x\r\n\r\n---\r\nBody `a\\b.md`\r\n",
        "---\ndescription: 'x'\ncompatibility: 10\nuser-invocable: 0\n",
        "---\nname: ~\ndescription: 2020-01-01\n---\n",
        "no frontmatter at all",
        "",
    ]
    for number, text in enumerate(corpus):
        path = skills.write(text, folder=f"Skill {number}")
        for profile in ("pi", "agentskills", "claude-code", "vscode"):
            before = skills.codes(path, text, profile)
            for fix in compute_fixes(str(path), text, profile):
                after = skills.codes(path, apply_edits(text, fix.edits), profile) if not fix.rename else []
                for code in {f.code for f in fix.findings}:
                    assert after.count(code) < before.count(code), (text, profile, fix.title)
                assert after.count("skill/yaml-error") <= before.count("skill/yaml-error")


def test_a_fixed_description_counts_in_utf16_like_pi(skills: Skills) -> None:
    text = f"---\nname: pdf-tools\ndescription: {'ab 😀 ' * 300}\n---\n"
    fixed = skills.apply(skills.write(text), text, "pi", "skill/description-too-long")
    value = fixed.split("description: ")[1].split("\n")[0].strip('"')
    assert js_len(value) <= 1024


def test_under_vscode_making_the_name_valid_keeps_it_matching_the_folder(skills: Skills) -> None:
    """VS Code warns when a skill's name is not its folder's: no name fix may trade one warning for that."""
    text = "---\nname: PDF Tools\ndescription: d\n---\n"
    path = skills.write(text, folder="pdf")
    fixes = skills.fixes(path, text, "vscode", "skill/name-invalid-chars")
    titles = [fix.title for fix in fixes]
    assert titles[0] == "Rename the skill to 'pdf' (its folder name)"
    combined = next(fix for fix in fixes if fix.title.startswith("Make the name valid: 'pdf-tools'"))
    assert combined.title.endswith("and rename the folder to match")
    assert combined.rename is not None and combined.rename.new_path == str(path.parent.parent / "pdf-tools")
    for fix in fixes:
        assert fix.rename is not None or "name: pdf\n" in skills.apply(
            path, text, "vscode", "skill/name-invalid-chars", fix.title
        )


def test_under_pi_the_name_fix_does_not_touch_the_folder(skills: Skills) -> None:
    text = "---\nname: PDF Tools\ndescription: d\n---\n"
    fix = skills.fix(skills.write(text, folder="pdf"), text, "pi", "skill/name-invalid-chars")
    assert fix.title == "Make the name valid: 'pdf-tools'" and fix.rename is None
