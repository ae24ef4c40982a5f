"""Skill rules per profile: each test writes the smallest SKILL.md that shows one rule."""

from __future__ import annotations

from pathlib import Path

import pytest

from lsp_server.base.findings import Finding, Position, Range, Severity
from lsp_server.rules.skill_rules import check_skill_file, check_skill_text, suggest_name
from lsp_server.vocabulary.limits import Thresholds


def check(
    tmp_path: Path, text: str, profile: str = "pi", folder: str = "pdf-tools", name: str = "SKILL.md"
) -> list[Finding]:
    path = tmp_path / folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return list(check_skill_file(str(path), profile).findings)


def codes(findings: list[Finding]) -> list[str]:
    return [f.code for f in findings]


def only(findings: list[Finding], code: str) -> Finding:
    matching = [f for f in findings if f.code == code]
    assert len(matching) == 1, codes(findings)
    return matching[0]


VALID = "---\nname: pdf-tools\ndescription: Extract text from PDFs.\n---\nBody\n"


@pytest.mark.parametrize("profile", ["pi", "agentskills", "claude-code", "vscode"])
def test_a_valid_skill_has_no_findings(tmp_path: Path, profile: str) -> None:
    assert check(tmp_path, VALID, profile) == []


def test_pi_missing_description_is_pis_warning_and_a_not_loaded_error(tmp_path: Path) -> None:
    findings = check(tmp_path, "---\nname: pdf-tools\n---\n")
    warning, error = only(findings, "skill/description-missing"), only(findings, "skill/not-loaded")
    assert (warning.severity, warning.message) == (Severity.WARNING, "description is required")
    assert error.severity == Severity.ERROR and warning.range == Range(Position(0, 0), Position(0, 3))


def test_missing_frontmatter_points_at_the_first_line(tmp_path: Path) -> None:
    finding = only(check(tmp_path, "# Title\n", "agentskills"), "skill/frontmatter-missing")
    assert finding.range == Range(Position(0, 0), Position(0, 7))
    assert finding.message == "SKILL.md must start with YAML frontmatter (---)"


def test_unclosed_frontmatter_points_at_the_opening_fence(tmp_path: Path) -> None:
    finding = only(check(tmp_path, "---\ndescription: d\n"), "skill/frontmatter-unclosed")
    assert finding.range == Range(Position(0, 0), Position(0, 3))


def test_yaml_error_is_placed_where_pi_reports_it(tmp_path: Path) -> None:
    findings = check(tmp_path, "---\nname: x\ndescription: [oops\n---\n")
    finding = only(findings, "skill/yaml-error")
    assert finding.range.start == Position(2, 18)  # yaml line 2, column 19 -> file line 3
    assert finding.message.endswith("at line 3, column 19")  # file lines, as the position (Pi: line 2 of the YAML)
    assert "skill/not-loaded" in codes(findings)


def test_duplicate_keys_are_a_yaml_error(tmp_path: Path) -> None:
    finding = only(check(tmp_path, "---\ndescription: a\ndescription: b\n---\n"), "skill/yaml-error")
    assert finding.message == "Map keys must be unique at line 3, column 1" and finding.range.start == Position(2, 0)


def test_a_yaml_limit_is_a_yaml_error_naming_the_limit_without_claiming_what_pi_does(tmp_path: Path) -> None:
    text = "---\nname: x\ndescription: d\nmetadata: " + "[" * 150 + "]" * 150 + "\n---\n"
    findings = check(tmp_path, text)
    finding = only(findings, "skill/yaml-error")
    assert finding.message.startswith("Collections nested more than 100 deep (pi-context stops at this limit)")
    assert finding.range.start == Position(3, 109)  # the 100th "[" is the 101st collection, after the mapping
    assert "skill/not-loaded" not in codes(findings)


def test_description_too_long_counts_utf16_in_pi_and_code_points_in_agentskills(tmp_path: Path) -> None:
    text = "---\nname: pdf-tools\ndescription: " + "😀" * 513 + "\n---\n"
    assert only(check(tmp_path, text), "skill/description-too-long").message == (
        "description exceeds 1024 characters (1026)"
    )
    assert "skill/description-too-long" not in codes(check(tmp_path, text, "agentskills"))


def test_name_rules_point_at_the_name_value(tmp_path: Path) -> None:
    finding = only(check(tmp_path, "---\nname: Pdf_Tools\ndescription: d\n---\n"), "skill/name-invalid-chars")
    assert finding.range == Range(Position(1, 6), Position(1, 15))
    assert finding.data == {"fix": "rename-skill", "name": "pdf-tools", "nameSource": "frontmatter"}


def test_folder_names_are_validated_by_pi_when_name_is_absent(tmp_path: Path) -> None:
    finding = only(check(tmp_path, "---\ndescription: d\n---\n", folder="Bad_Name"), "skill/name-invalid-chars")
    assert finding.range == Range(Position(0, 0), Position(0, 3)) and finding.data["nameSource"] == "folder"


def test_pi_reports_a_non_string_name_it_ignores(tmp_path: Path) -> None:
    finding = only(check(tmp_path, "---\nname: 123\ndescription: d\n---\n"), "skill/name-not-string")
    assert finding.severity == Severity.INFORMATION and '"pdf-tools"' in finding.message


def test_agentskills_requires_name_matching_the_folder_after_nfkc(tmp_path: Path) -> None:
    text = "---\nname: cafe\u0301\ndescription: d\n---\n"
    assert "skill/name-directory-mismatch" not in codes(check(tmp_path, text, "agentskills", folder="caf\u00e9"))
    mismatch = only(check(tmp_path, VALID, "agentskills", folder="other"), "skill/name-directory-mismatch")
    assert mismatch.message == "Directory name 'other' must match skill name 'pdf-tools'"
    assert mismatch.data == {"fix": "rename-skill", "name": "other"}


def test_agentskills_accepts_unicode_lowercase_names(tmp_path: Path) -> None:
    assert check(tmp_path, "---\nname: мой-навык\ndescription: d\n---\n", "agentskills", folder="мой-навык") == []


def test_agentskills_reports_uppercase_separately(tmp_path: Path) -> None:
    findings = check(tmp_path, "---\nname: Pdf\ndescription: d\n---\n", "agentskills", folder="Pdf")
    assert only(findings, "skill/name-uppercase").message == "Skill name 'Pdf' must be lowercase"


def test_agentskills_rejects_keys_outside_the_spec(tmp_path: Path) -> None:
    text = "---\nname: pdf-tools\ndescription: d\ndisable-model-invocation: true\n---\n"
    finding = only(check(tmp_path, text, "agentskills"), "skill/unknown-key")
    assert finding.range == Range(Position(3, 0), Position(3, 24))
    assert finding.data == {"fix": "remove-key", "key": "disable-model-invocation"}
    assert check(tmp_path, text, "vscode") == [] and check(tmp_path, text, "claude-code") == []


def test_agentskills_compatibility_limit(tmp_path: Path) -> None:
    text = "---\nname: pdf-tools\ndescription: d\ncompatibility: " + "x" * 501 + "\n---\n"
    assert only(check(tmp_path, text, "agentskills"), "skill/compatibility-too-long").message == (
        "Compatibility exceeds 500 character limit (501 chars)"
    )


def test_pi_warns_when_disable_model_invocation_is_not_the_boolean_true(tmp_path: Path) -> None:
    text = "---\nname: pdf-tools\ndescription: d\ndisable-model-invocation: yes\n---\n"
    finding = only(check(tmp_path, text), "skill/boolean-value")
    assert finding.data == {"fix": "set-boolean", "key": "disable-model-invocation", "value": True}


def test_claude_code_accepts_yes_no_booleans_and_vscode_does_not(tmp_path: Path) -> None:
    text = "---\nname: pdf-tools\ndescription: d\nuser-invocable: off\n---\n"
    assert check(tmp_path, text, "claude-code") == []
    assert only(check(tmp_path, text, "vscode"), "skill/boolean-value").message == (
        "The 'user-invocable' attribute must be 'true' or 'false'."
    )


def test_unreachable_skill(tmp_path: Path) -> None:
    text = "---\nname: pdf-tools\ndescription: d\ndisable-model-invocation: true\nuser-invocable: false\n---\n"
    assert "skill/unreachable" in codes(check(tmp_path, text, "claude-code"))


def test_argument_hint_without_arguments(tmp_path: Path) -> None:
    text = "---\nname: pdf-tools\ndescription: d\nargument-hint: <file>\n---\nNo placeholder.\n"
    assert "skill/argument-hint-unused" in codes(check(tmp_path, text, "claude-code"))
    used = text.replace("No placeholder.", "Read $ARGUMENTS.")
    assert "skill/argument-hint-unused" not in codes(check(tmp_path, used, "claude-code"))


def test_pi_hints_that_arguments_are_not_substituted(tmp_path: Path) -> None:
    finding = only(check(tmp_path, VALID + "Use $ARGUMENTS here\n"), "skill/arguments-not-substituted")
    assert finding.range == Range(Position(5, 4), Position(5, 14))


def test_angle_brackets_in_description(tmp_path: Path) -> None:
    text = "---\nname: pdf-tools\ndescription: Reads <pdf> files\n---\n"
    assert "skill/description-angle-brackets" in codes(check(tmp_path, text, "agentskills"))
    assert check(tmp_path, text, "pi") == []


def test_missing_reference_points_at_the_link_target(tmp_path: Path) -> None:
    finding = only(check(tmp_path, VALID + "See [guide](refs/guide.md#part).\n"), "skill/missing-reference")
    assert finding.range == Range(Position(5, 12), Position(5, 30)) and "refs/guide.md" in finding.message


def test_existing_references_and_urls_are_fine(tmp_path: Path) -> None:
    (tmp_path / "pdf-tools" / "refs").mkdir(parents=True)
    (tmp_path / "pdf-tools" / "refs" / "guide.md").write_text("x")
    body = "[g](refs/guide.md) [w](https://example.com) [a](#top)\n```\n[x](nope.md)\n```\n"
    assert check(tmp_path, VALID + body) == []


def test_windows_separators_in_references(tmp_path: Path) -> None:
    finding = only(check(tmp_path, VALID + "Run `scripts\\run.py`.\n"), "skill/windows-path")
    assert finding.data == {"fix": "forward-slashes", "replacement": "scripts/run.py"}


def test_body_too_long_points_at_the_first_line_over_the_limit(tmp_path: Path) -> None:
    text = VALID + "line\n" * 600
    finding = only(check(tmp_path, text, "agentskills"), "skill/body-too-long")
    assert finding.range.start == Position(504, 0)


def test_loose_md_without_description_is_a_pi_hint(tmp_path: Path) -> None:
    findings = check(tmp_path, "---\nname: notes\n---\n", folder="skills", name="notes.md")
    assert codes(findings) == ["skill/candidate-ignored"]


def test_invalid_utf8_points_at_the_byte(tmp_path: Path) -> None:
    path = tmp_path / "pdf-tools" / "SKILL.md"
    path.parent.mkdir()
    path.write_bytes(b"\xef\xbb\xbf---\nname: pdf-tools\ndescription: caf\xe9\n---\n")
    finding = only(list(check_skill_file(str(path)).findings), "skill/invalid-utf8")
    assert finding.range.start == Position(2, 16)


def test_bom_does_not_shift_positions_of_files_read_from_disk(tmp_path: Path) -> None:
    finding = only(check(tmp_path, "\ufeff---\nname: X\ndescription: d\n---\n"), "skill/name-invalid-chars")
    assert finding.range.start == Position(1, 6)


def test_too_large_uses_the_threshold() -> None:
    result = check_skill_text("/x/s/SKILL.md", VALID, size=10, thresholds=Thresholds(skill_max_bytes=5))
    assert [f.code for f in result.findings] == ["skill/too-large"]


def test_unreadable_files_never_raise(tmp_path: Path) -> None:
    import os

    fifo = tmp_path / "f" / "SKILL.md"
    fifo.parent.mkdir()
    os.mkfifo(fifo)
    assert codes(list(check_skill_file(str(fifo)).findings)) == ["skill/unreadable", "skill/not-loaded"]
    (tmp_path / "d" / "SKILL.md").mkdir(parents=True)
    assert "skill/unreadable" in codes(list(check_skill_file(str(tmp_path / "d" / "SKILL.md")).findings))


def test_loaded_name_is_reported_for_collisions(tmp_path: Path) -> None:
    path = tmp_path / "x" / "SKILL.md"
    path.parent.mkdir()
    path.write_text(VALID)
    result = check_skill_file(str(path))
    assert (result.name, result.loaded, result.name_range) == (
        "pdf-tools",
        True,
        Range(Position(1, 6), Position(1, 15)),
    )


def test_suggested_names_are_valid() -> None:
    assert suggest_name("My  Skill__v2!") == "my-skill-v2"
    assert suggest_name("Café") == "cafe"
    assert suggest_name("---") == "skill"
