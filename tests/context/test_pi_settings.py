"""Pi's settings.json: layers, trust, migration, deep merge, per-model compaction, problems."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from lsp_server.context.pi_settings import (
    PiSettings,
    deep_merge_settings,
    load_pi_settings,
    migrate_settings,
)


def setup(tmp_path: Path, global_: Any = None, project: Any = None) -> tuple[str, str]:
    agent = tmp_path / "agent"
    repo = tmp_path / "repo"
    (repo / ".pi").mkdir(parents=True)
    agent.mkdir()
    for target, value in ((agent / "settings.json", global_), (repo / ".pi" / "settings.json", project)):
        if value is not None:
            target.write_text(value if isinstance(value, str) else json.dumps(value, indent=2), encoding="utf-8")
    return str(repo), str(agent)


def test_no_files_means_pis_defaults(tmp_path: Path) -> None:
    cwd, agent = setup(tmp_path)
    loaded = load_pi_settings(cwd, agent, project_trusted=True)
    resolved = loaded.effective.compaction_for()
    assert (resolved.enabled, resolved.reserve_tokens, resolved.keep_recent_tokens) == (True, 16384, 20000)
    assert loaded.effective.branch_summary.reserve_tokens == 16384
    assert loaded.problems == ()


def test_project_settings_merge_over_global_key_by_key(tmp_path: Path) -> None:
    cwd, agent = setup(
        tmp_path,
        {"compaction": {"reserveTokens": 1000, "keepRecentTokens": 2000}, "defaultModel": "g"},
        {"compaction": {"reserveTokens": 3000}},
    )
    effective = load_pi_settings(cwd, agent, project_trusted=True).effective
    assert (effective.compaction.reserve_tokens, effective.compaction.keep_recent_tokens) == (3000, 2000)
    assert effective.default_model == "g"


def test_untrusted_project_settings_are_not_read(tmp_path: Path) -> None:
    cwd, agent = setup(tmp_path, {"defaultModel": "g"}, {"defaultModel": "p"})
    loaded = load_pi_settings(cwd, agent, project_trusted=False)
    assert loaded.effective.default_model == "g"
    assert (loaded.project_layer.exists, loaded.project_layer.read, loaded.project_layer.untrusted) == (
        True,
        False,
        True,
    )


def test_model_override_applies_to_its_exact_provider_and_model() -> None:
    settings = PiSettings.model_validate(
        {"compaction": {"reserveTokens": 100, "modelOverrides": {"openai/gpt-5": {"reserveTokens": 7}}}}
    )
    assert settings.compaction_for("openai", "gpt-5").reserve_tokens == 7
    assert settings.compaction_for("openai", "gpt-5").override_key == "openai/gpt-5"
    assert settings.compaction_for("openai", "gpt-4o").reserve_tokens == 100
    assert settings.compaction_for("openai", "gpt-5").keep_recent_tokens == 20000


def test_integral_float_counts_as_a_safe_integer() -> None:
    assert PiSettings.model_validate({"compaction": {"keepRecentTokens": 2.0}}).compaction.keep_recent_tokens == 2


def test_wrong_type_is_dropped_with_a_problem_naming_file_line_and_key(tmp_path: Path) -> None:
    cwd, agent = setup(tmp_path, '{\n  "compaction": {\n    "reserveTokens": "lots",\n    "enabled": false\n  }\n}\n')
    loaded = load_pi_settings(cwd, agent, project_trusted=True)
    assert loaded.effective.compaction.reserve_tokens == 16384
    assert loaded.effective.compaction.enabled is False
    [problem] = loaded.problems
    assert problem.format_line() == (
        f'{agent}/settings.json:3:5: compaction.reserveTokens: Expected a non-negative safe integer (got "lots")'
    )


def test_bad_override_entry_names_the_quoted_model_key(tmp_path: Path) -> None:
    cwd, agent = setup(tmp_path, {"compaction": {"modelOverrides": {"a/b": {"keepRecentTokens": -1}}}})
    [problem] = load_pi_settings(cwd, agent, project_trusted=True).problems
    assert problem.key == 'compaction.modelOverrides["a/b"].keepRecentTokens'


def test_bad_json_is_one_problem_at_the_parsers_position(tmp_path: Path) -> None:
    cwd, agent = setup(tmp_path, '{\n  "defaultModel": "x",\n}\n')
    loaded = load_pi_settings(cwd, agent, project_trusted=True)
    [problem] = loaded.problems
    assert (problem.file, problem.line) == (f"{agent}/settings.json", 2)
    assert problem.message.startswith("invalid JSON: ")
    assert loaded.effective == PiSettings()


def test_settings_that_are_not_an_object_give_a_problem(tmp_path: Path) -> None:
    cwd, agent = setup(tmp_path, "[1, 2]")
    [problem] = load_pi_settings(cwd, agent, project_trusted=True).problems
    assert problem.message == "expected a JSON object (got [1,2])"


def test_empty_file_is_an_empty_object(tmp_path: Path) -> None:
    cwd, agent = setup(tmp_path, "")
    loaded = load_pi_settings(cwd, agent, project_trusted=True)
    assert loaded.problems == () and loaded.global_layer.read


def test_unknown_keys_are_kept(tmp_path: Path) -> None:
    cwd, agent = setup(tmp_path, {"theme": "dark", "somethingNew": {"a": 1}})
    loaded = load_pi_settings(cwd, agent, project_trusted=True)
    assert loaded.merged_raw["somethingNew"] == {"a": 1}
    assert loaded.effective.model_extra == {"theme": "dark", "somethingNew": {"a": 1}}


def test_old_skills_object_becomes_the_list_of_custom_directories() -> None:
    migrated = migrate_settings({"skills": {"enableSkillCommands": False, "customDirectories": ["~/s"]}})
    assert migrated == {"skills": ["~/s"], "enableSkillCommands": False}
    assert migrate_settings({"skills": {"customDirectories": []}}) == {}


def test_old_queue_mode_and_websockets_are_renamed() -> None:
    assert migrate_settings({"queueMode": "all", "websockets": True}) == {
        "steeringMode": "all",
        "transport": "websocket",
    }


def test_default_tools_modifiers_extend_the_inherited_list() -> None:
    assert deep_merge_settings({"defaultTools": ["read"]}, {"defaultTools": ["+grep", "-read"]})["defaultTools"] == [
        "read",
        "+grep",
        "-read",
    ]
    assert deep_merge_settings({"defaultTools": ["read"]}, {"defaultTools": ["ls"]})["defaultTools"] == ["ls"]


def test_arrays_are_replaced_not_merged() -> None:
    assert deep_merge_settings({"skills": ["a"]}, {"skills": ["b"]}) == {"skills": ["b"]}
