"""The extension's settings (``contributes.configuration`` in package.json) are pi-context's settings.

Every ``piContext.*`` key the extension forwards to the server must be a field of the server's
settings model (``lsp_server.settings.pi_context.PiContextSettings``), at the same nesting, with the
same choices and the same default; and every field of that model must be settable from VS Code.
Keys only the client uses (interpreter, install source, trace, status bar) are the exceptions.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from lsp_server.settings.pi_context import PiContextSettings

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "vscode-extension" / "package.json"
CLIENT_ONLY = {"server.python", "python", "server.installSource", "trace.server", "statusBar.enabled"}


def _vscode_settings() -> dict[str, dict[str, Any]]:
    properties = json.loads(PACKAGE.read_text(encoding="utf-8"))["contributes"]["configuration"]["properties"]
    return {key.removeprefix("piContext."): value for key, value in properties.items()}


def _server_fields() -> dict[str, dict[str, Any]]:
    """Leaf fields of the settings model by dotted camelCase path."""
    schema = PiContextSettings.model_json_schema(by_alias=True)
    definitions = schema.get("$defs", {})
    leaves: dict[str, dict[str, Any]] = {}

    def walk(node: dict[str, Any], prefix: str) -> None:
        for name, prop in node.get("properties", {}).items():
            target = prop
            if "$ref" in prop:
                target = definitions[prop["$ref"].rsplit("/", 1)[-1]]
            if target.get("type") == "object" and target.get("properties"):
                walk(target, f"{prefix}{name}.")
            else:
                leaves[f"{prefix}{name}"] = prop

    walk(schema, "")
    return leaves


def _forwarded() -> dict[str, dict[str, Any]]:
    return {key: value for key, value in _vscode_settings().items() if key not in CLIENT_ONLY}


def test_every_forwarded_setting_is_a_server_settings_field() -> None:
    assert set(_forwarded()) <= set(_server_fields())


def test_every_server_settings_field_can_be_set_from_vscode() -> None:
    assert set(_server_fields()) <= set(_forwarded())


def test_choice_settings_offer_the_server_choices() -> None:
    fields = _server_fields()
    for key, setting in _forwarded().items():
        assert setting.get("enum") == fields[key].get("enum"), key


def _server_default(path: str) -> Any:
    value: Any = PiContextSettings().model_dump(by_alias=True, mode="json")
    for part in path.split("."):
        value = value[part]
    return value


def test_defaults_are_the_server_defaults() -> None:
    for key, setting in _forwarded().items():
        server_default = _server_default(key)
        client_default = setting["default"]
        if server_default is None:
            assert client_default in ("", None), key  # an empty string is forwarded as null
        else:
            assert client_default == server_default, key


# Settings that run code (interpreter, install source, the Pi the chat starts), grant trust, decide
# whether, where and to which model a summarizer request and its key go, or keep a chat's Pi working after
# its window closed. A repository's .vscode/settings.json must not be able to set them.
USER_ONLY = {
    "server.python",
    "python",
    "server.installSource",
    "pi.command",
    "pi.reattachGraceSeconds",
    "pi.detachedTurnLimitSeconds",
    "agentDir",
    "trust",
    "summarizer.mode",
    "summarizer.url",
    "summarizer.model",
    "summarizer.apiKeyEnv",
}


def test_settings_that_run_code_grant_trust_or_route_secrets_belong_to_the_user() -> None:
    settings = _vscode_settings()
    for key in USER_ONLY:
        assert settings[key].get("scope") in ("machine", "application"), key
    workspace_settable = {
        key for key, value in settings.items() if value.get("scope") not in ("machine", "application")
    }
    assert not workspace_settable & USER_ONLY


def test_restricted_mode_ignores_the_user_only_settings_of_a_workspace() -> None:
    package = json.loads(PACKAGE.read_text(encoding="utf-8"))
    restricted = package["capabilities"]["untrustedWorkspaces"]["restrictedConfigurations"]
    assert {key.removeprefix("piContext.") for key in restricted} == USER_ONLY


def test_the_first_name_of_the_own_python_setting_is_deprecated_in_favour_of_server_python() -> None:
    """``piContext.python`` keeps working for the users who set it, and VS Code tells them its new name."""
    settings = _vscode_settings()
    assert "#piContext.server.python#" in settings["python"]["markdownDeprecationMessage"]
    assert "markdownDeprecationMessage" not in settings["server.python"]
    assert settings["python"]["scope"] == settings["server.python"]["scope"] == "machine"
