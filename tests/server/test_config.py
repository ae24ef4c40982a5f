"""Settings: layers, defaults, and bad values that fall back instead of failing."""

from __future__ import annotations

from lsp_server.server.config import ServerSettings, parse_settings, resolve_agent_dir, section_of


def test_defaults_when_the_client_sends_nothing() -> None:
    settings, problems = parse_settings(None)
    assert settings == ServerSettings()
    assert (settings.rule_profile, settings.debounce_ms, settings.summarizer.kind) == ("pi", 150, "offline")
    assert problems == []


def test_section_is_found_inside_a_pushed_payload_or_taken_flat() -> None:
    assert section_of({"piContext": {"ruleProfile": "agentskills"}}) == {"ruleProfile": "agentskills"}
    assert section_of({"ruleProfile": "agentskills"}) == {"ruleProfile": "agentskills"}
    assert section_of(["not", "a", "mapping"]) is None


def test_later_layers_win_key_by_key_and_nested_objects_merge() -> None:
    settings, _ = parse_settings(
        {"piContext": {"ruleProfile": "agentskills", "summarizer": {"kind": "endpoint", "model": "m1"}}},
        {"debounceMs": 20, "summarizer": {"model": "m2"}},
    )
    assert settings.rule_profile == "agentskills"
    assert settings.debounce_ms == 20
    assert (settings.summarizer.kind, settings.summarizer.model) == ("endpoint", "m2")


def test_null_in_a_later_layer_does_not_erase_an_earlier_value() -> None:
    settings, _ = parse_settings({"ruleProfile": "agentskills"}, {"ruleProfile": None})
    assert settings.rule_profile == "agentskills"


def test_a_bad_value_falls_back_to_its_default_and_is_reported() -> None:
    settings, problems = parse_settings({"debounceMs": -5, "ruleProfile": "agentskills"})
    assert settings.debounce_ms == 150
    assert settings.rule_profile == "agentskills"
    assert problems == ["piContext.debounceMs: Input should be greater than or equal to 0 (got -5)"]


def test_a_bad_nested_value_drops_only_that_key() -> None:
    settings, problems = parse_settings({"summarizer": {"kind": "cloud", "model": "m"}})
    assert (settings.summarizer.kind, settings.summarizer.model) == ("offline", "m")
    assert len(problems) == 1 and problems[0].startswith("piContext.summarizer.kind:")


def test_unknown_keys_are_ignored() -> None:
    settings, problems = parse_settings({"colour": "blue"})
    assert settings == ServerSettings()
    assert problems == []


def test_wire_form_is_camel_case() -> None:
    wire = ServerSettings().wire()
    assert {"ruleProfile", "tokenEstimator", "tokenFamily", "agentDir", "trustOverride", "debounceMs"} <= set(wire)
    assert wire["summarizer"]["apiKeyEnv"] is None


def test_agent_dir_setting_then_env_then_home_default() -> None:
    env = {"HOME": "/h", "PI_CODING_AGENT_DIR": "/from/env"}
    assert resolve_agent_dir(ServerSettings(agent_dir="/set"), env) == "/set"
    assert resolve_agent_dir(ServerSettings(), env) == "/from/env"
    assert resolve_agent_dir(ServerSettings(), {"HOME": "/h"}) == "/h/.pi/agent"
    assert resolve_agent_dir(ServerSettings(agent_dir="~/agent"), {"HOME": "/h"}) == "/h/agent"


def test_an_unknown_rule_profile_falls_back_to_pi() -> None:
    settings, problems = parse_settings({"ruleProfile": "strict"})
    assert settings.rule_profile == "pi"
    assert problems == [
        "piContext.ruleProfile: Value error, unknown rule profile (use pi, agentskills, claude-code, vscode) "
        "(got 'strict')"
    ]
