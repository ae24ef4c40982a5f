"""Settings: layers, defaults, and bad values that fall back instead of failing."""

from __future__ import annotations

from lsp_server.settings.editor import ServerSettings, parse_settings, section_of


def test_defaults_when_the_client_sends_nothing() -> None:
    settings, problems = parse_settings(None)
    assert settings == ServerSettings()
    assert (settings.rule_profile, settings.debounce_ms, settings.summarizer.mode, settings.watch) == (
        "pi",
        300,
        "offline",
        True,
    )
    assert problems == []


def test_section_is_found_inside_a_pushed_payload_or_taken_flat() -> None:
    assert section_of({"piContext": {"ruleProfile": "vscode"}}) == {"ruleProfile": "vscode"}
    assert section_of({"ruleProfile": "vscode"}) == {"ruleProfile": "vscode"}
    assert section_of(["not", "a", "mapping"]) is None


def test_later_layers_win_key_by_key_and_nested_objects_merge() -> None:
    settings, _ = parse_settings(
        {"piContext": {"ruleProfile": "agentskills", "tokens": {"estimator": "pi", "modelFamily": "gpt"}}},
        {"debounceMs": 20, "tokens": {"modelFamily": "claude"}},
    )
    assert settings.rule_profile == "agentskills"
    assert settings.debounce_ms == 20
    assert (settings.tokens.estimator, settings.tokens.model_family) == ("pi", "claude")


def test_null_in_a_later_layer_resets_the_key_to_its_default() -> None:
    # The user cleared the setting after start: initializationOptions must not win any more.
    settings, _ = parse_settings(
        {"ruleProfile": "agentskills", "tokens": {"estimator": "exact", "modelFamily": "claude"}},
        {"ruleProfile": None, "tokens": {"modelFamily": None}},
    )
    assert settings.rule_profile == "pi"
    assert settings.tokens.model_family == "auto"
    assert settings.tokens.estimator == "exact"


def test_a_bad_value_falls_back_to_its_default_and_is_reported() -> None:
    settings, problems = parse_settings({"debounceMs": -5, "ruleProfile": "agentskills"})
    assert settings.debounce_ms == 300
    assert settings.rule_profile == "agentskills"
    assert len(problems) == 1 and problems[0].startswith("piContext.debounceMs: ")
    assert problems[0].endswith("(got -5)")


def test_an_unknown_rule_profile_falls_back_to_pi() -> None:
    settings, problems = parse_settings({"ruleProfile": "strict"})
    assert settings.rule_profile == "pi"
    assert len(problems) == 1 and problems[0].startswith("piContext.ruleProfile: ")


def test_a_bad_nested_value_drops_only_that_key() -> None:
    settings, problems = parse_settings({"tokens": {"estimator": "magic", "modelFamily": "claude"}})
    assert (settings.tokens.estimator, settings.tokens.model_family) == ("weighted", "claude")
    assert len(problems) == 1 and problems[0].startswith("piContext.tokens.estimator:")


def test_keys_only_the_editor_client_reads_are_accepted() -> None:
    settings, problems = parse_settings({"python": "/usr/bin/python3", "trace": {"server": "verbose"}})
    assert settings == ServerSettings()
    assert problems == []


def test_the_watch_switch_is_a_server_setting() -> None:
    settings, problems = parse_settings({"watch": False})
    assert settings.watch is False
    assert problems == []


def test_wire_form_is_camel_case() -> None:
    wire = ServerSettings().wire()
    assert {"ruleProfile", "tokens", "summarizer", "agentDir", "trust", "debounceMs", "watch"} <= set(wire)
    assert "apiKeyEnv" in wire["summarizer"]
