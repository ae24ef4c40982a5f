"""pi-context's own settings: defaults, per-key validation problems, the settings file."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from lsp_server.base.lenient import format_validation_error
from lsp_server.settings.pi_context import (
    PiContextSettings,
    load_pi_context_settings_file,
    parse_pi_context_settings,
)


def test_defaults_are_pi_compatible_and_offline() -> None:
    settings, problems = parse_pi_context_settings({})
    assert problems == []
    assert (settings.rule_profile, settings.tokens.estimator, settings.summarizer.mode, settings.trust) == (
        "pi",
        "weighted",
        "offline",
        "pi",
    )
    assert settings.trust_override is None


def test_bad_value_is_reported_and_replaced_by_its_default_only() -> None:
    settings, problems = parse_pi_context_settings({"ruleProfile": "strict", "debounceMs": 50}, "piContext")
    assert (settings.rule_profile, settings.debounce_ms) == ("pi", 50)
    assert [p.format_line() for p in problems] == [
        "piContext:1:1: ruleProfile: Input should be 'pi', 'agentskills', 'claude-code' or 'vscode' (got \"strict\")"
    ]


def test_unknown_key_is_reported() -> None:
    _, problems = parse_pi_context_settings({"tokens": {"estimater": "pi"}})
    assert [(p.key, p.message) for p in problems] == [("tokens.estimater", 'Extra inputs are not permitted (got "pi")')]


def test_client_only_keys_of_the_editor_section_are_not_reported() -> None:
    data = {
        "server": {"python": "/usr/bin/python3", "installSource": "/src/pi-context"},
        "python": "/usr/bin/python3",
        "trace": {"server": "off"},
        "statusBar": {"enabled": True},
        "debounceMs": 9,
    }
    settings, problems = parse_pi_context_settings(data)
    assert (settings.debounce_ms, problems) == (9, [])


def test_endpoint_summarizer_needs_url_and_model() -> None:
    settings, problems = parse_pi_context_settings({"summarizer": {"mode": "endpoint", "url": "http://x"}})
    assert settings.summarizer.mode == "offline"
    assert [(p.key, p.message) for p in problems] == [
        ("summarizer", 'mode "endpoint" needs model (got {"mode":"endpoint","url":"http://x"})')
    ]


def test_endpoint_summarizer_with_everything_is_kept() -> None:
    data = {"mode": "endpoint", "url": "http://x", "model": "m", "apiKeyEnv": "KEY", "wireFormat": "anthropic"}
    settings, problems = parse_pi_context_settings({"summarizer": data})
    assert problems == []
    assert (settings.summarizer.api_key_env, settings.summarizer.wire_format) == ("KEY", "anthropic")


def test_trust_setting_maps_to_pis_approve_flags() -> None:
    assert parse_pi_context_settings({"trust": "trusted"})[0].trust_override is True
    assert parse_pi_context_settings({"trust": "untrusted"})[0].trust_override is False


def test_settings_file_problem_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "pi-context.json"
    path.write_text('{\n  "tokens": {\n    "modelFamily": "llama"\n  }\n}\n', encoding="utf-8")
    settings, problems = load_pi_context_settings_file(str(path))
    assert settings.tokens.model_family == "auto"
    assert [p.format_line() for p in problems] == [
        f"{path}:3:5: tokens.modelFamily: Input should be 'auto', 'gpt', 'claude', 'claude47', 'o200k', 'cl100k', "
        "'llama3' or 'qwen3' (got \"llama\")"
    ]


def test_settings_file_with_bad_json(tmp_path: Path) -> None:
    path = tmp_path / "pi-context.json"
    path.write_text('{"debounceMs": 10,,}', encoding="utf-8")
    _, [problem] = load_pi_context_settings_file(str(path))
    assert (problem.line, problem.column) == (0, 18)
    assert problem.message.startswith("invalid JSON: ")


def test_validation_error_becomes_one_line_per_problem() -> None:
    data = {"debounceMs": -1, "tokens": {"estimator": 3}}
    with pytest.raises(ValidationError) as caught:
        PiContextSettings.model_validate(data)
    assert format_validation_error(caught.value, "cfg.json", data) == [
        "cfg.json:1:1: tokens.estimator: Input should be 'pi', 'weighted' or 'exact' (got 3)",
        "cfg.json:1:1: debounceMs: Input should be greater than or equal to 0 (got -1)",
    ]


def test_a_value_that_may_be_a_key_is_not_echoed_in_a_problem() -> None:
    key = "sk-ant-api03-Xq7vR2mZ9pL4kT8wN1cB6yH3jF5dS0aG"
    _, problems = parse_pi_context_settings({"apiKey": key, "summarizer": {"retries": key}})
    assert sorted((p.key, p.message) for p in problems) == [
        ("apiKey", "Extra inputs are not permitted (got a value that may be a secret, not shown)"),
        ("summarizer.retries", "Input should be a valid integer (got a value that may be a secret, not shown)"),
    ]
