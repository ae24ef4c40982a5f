"""The profile table is the one source: the type, the settings, the extension and the docs agree with it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any, get_args

import pytest

from lsp_server.editing.fixes import compute_fixes
from lsp_server.editing.keys import AGENTS, PROFILE_KEYS
from lsp_server.rules.registry import RULES
from lsp_server.rules.skill_rules import check_skill_text
from lsp_server.settings.pi_context import PiContextSettings, parse_pi_context_settings
from lsp_server.vocabulary.profiles import (
    CLAUDE_CODE_BOOLEANS,
    DEFAULT_PROFILE,
    PROFILE_TABLE,
    PROFILES,
    YAML_BOOLEANS,
    ProfileId,
    check_profile,
    guess_boolean,
)

ROOT = Path(__file__).resolve().parents[2]


def _package_setting(key: str) -> dict[str, Any]:
    package = json.loads((ROOT / "vscode-extension" / "package.json").read_text(encoding="utf-8"))
    setting: dict[str, Any] = package["contributes"]["configuration"]["properties"][key]
    return setting


def test_the_profile_type_lists_exactly_the_table_ids_in_order() -> None:
    assert get_args(ProfileId) == PROFILES == tuple(row.id for row in PROFILE_TABLE)
    assert DEFAULT_PROFILE in PROFILES


def test_the_settings_accept_exactly_the_profiles_of_the_table() -> None:
    schema = PiContextSettings.model_json_schema(by_alias=True)["properties"]["ruleProfile"]
    assert schema["enum"] == list(PROFILES)
    assert schema["default"] == DEFAULT_PROFILE
    for row in PROFILE_TABLE:
        assert f'"{row.id}": {row.summary}' in schema["description"]
    settings, problems = parse_pi_context_settings({"ruleProfile": "cursor"})
    assert settings.rule_profile == DEFAULT_PROFILE
    assert [problem.key_path for problem in problems] == [("ruleProfile",)]


def test_the_extension_offers_the_profiles_of_the_table() -> None:
    setting = _package_setting("piContext.ruleProfile")
    assert setting["enum"] == list(PROFILES)
    assert setting["enumDescriptions"] == [row.summary for row in PROFILE_TABLE]
    assert setting["default"] == DEFAULT_PROFILE


def test_the_settings_doc_lists_the_profiles_of_the_table() -> None:
    row = next(
        line
        for line in (ROOT / "docs" / "settings.md").read_text(encoding="utf-8").splitlines()
        if line.startswith("| `ruleProfile` |")
    )
    assert row.split(" | ")[1] == " \\| ".join(f"`{profile}`" for profile in PROFILES)


def test_the_check_command_offers_the_profiles_of_the_table() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "lsp_server", "check", "--help"], capture_output=True, text=True, check=True
    )
    assert "{" + ",".join(PROFILES) + "}" in done.stdout


def test_every_rule_gives_every_profile_a_severity_or_none() -> None:
    for rule in RULES.values():
        assert set(rule.severities) == set(PROFILES), rule.code


def test_every_profile_speaks_for_an_agent_the_hovers_know() -> None:
    assert all(row.agent in AGENTS for row in PROFILE_TABLE)


def test_a_profile_offers_exactly_the_keys_it_accepts() -> None:
    for row in PROFILE_TABLE:
        if row.allowed_keys is not None:
            assert set(PROFILE_KEYS[row.id]) == set(row.allowed_keys), row.id


def test_what_a_profile_leaves_to_its_editor_are_skill_rules_it_reports() -> None:
    for row in PROFILE_TABLE:
        assert bool(row.editor_reports) == bool(row.editor_clients), row.id
        for code in row.editor_reports:
            assert code.startswith("skill/") and RULES[code].severity(row.id) is not None, (row.id, code)


def test_an_unknown_profile_name_is_refused_with_the_table_ids() -> None:
    with pytest.raises(ValueError, match=", ".join(PROFILES)):
        check_profile("cursor")
    assert check_profile("claude-code") == "claude-code"


# -- boolean spellings: one reading for the rule, the quick fix and the hover ------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [(True, True), (False, False), ("yes", True), (" Off ", False), ("ON", True), (1, True), (0, False)],
)
def test_claude_code_reads_yes_no_on_off_and_one_zero_as_booleans(value: object, expected: bool) -> None:
    assert CLAUDE_CODE_BOOLEANS.read(value) is expected
    assert guess_boolean(value) is expected


@pytest.mark.parametrize("value", ["yes", "true", 1, 2, "maybe", None, ["true"]])
def test_the_yaml_reading_takes_only_the_booleans_themselves(value: object) -> None:
    assert YAML_BOOLEANS.read(value) is None


@pytest.mark.parametrize("value", [2, "maybe", None, "nope"])
def test_nothing_guesses_a_boolean_nobody_spells(value: object) -> None:
    assert guess_boolean(value) is None


@pytest.mark.parametrize(("written", "meant"), [("yes", "true"), ("off", "false"), ("0", "false")])
def test_the_rule_and_the_quick_fix_agree_on_what_a_spelling_means(tmp_path: Path, written: str, meant: str) -> None:
    path = tmp_path / "pdf" / "SKILL.md"
    path.parent.mkdir()
    text = f"---\nname: pdf\ndescription: d\ndisable-model-invocation: {written}\n---\n"
    finding = next(f for f in check_skill_text(str(path), text, "vscode").findings if f.code == "skill/boolean-value")
    assert finding.data["value"] is (meant == "true")
    preferred = [fix for fix in compute_fixes(str(path), text, "vscode") if fix.preferred]
    assert [fix.title for fix in preferred] == [f"Set disable-model-invocation: {meant}"]
