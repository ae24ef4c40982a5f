"""The VS Code extension's TypeScript protocol types match the server's pydantic models.

``vscode-extension/src/protocol.generated.ts`` is generated from ``lsp_server.protocol`` by
``vscode-extension/scripts/gen_protocol.py``. The first test fails when the committed file is stale;
the others read the committed TypeScript independently of the generator and compare it with the JSON
schemas, so a hand edit of the generated file (or a generator bug) is caught too.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType
from typing import Any

from lsp_server import protocol

ROOT = Path(__file__).resolve().parents[2]
GENERATOR = ROOT / "vscode-extension" / "scripts" / "gen_protocol.py"
GENERATED = ROOT / "vscode-extension" / "src" / "protocol.generated.ts"

INTERFACE = re.compile(r"^export interface (\w+) \{\n(.*?)^\}", re.MULTILINE | re.DOTALL)
FIELD = re.compile(r"^  (\w+)(\??): (.+);$", re.MULTILINE)
METHOD = re.compile(r'^  (\w+): "([^"]+)",$', re.MULTILINE)


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_protocol", GENERATOR)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _typescript_interfaces() -> dict[str, dict[str, bool]]:
    """Interface name -> {field name: optional?} as written in the committed TypeScript."""
    text = GENERATED.read_text(encoding="utf-8")
    return {
        name: {field: mark == "?" for field, mark, _type in FIELD.findall(body)}
        for name, body in INTERFACE.findall(text)
    }


def _schema_definitions() -> dict[str, dict[str, Any]]:
    definitions: dict[str, dict[str, Any]] = {}
    for name, schema in protocol.json_schemas().items():
        definitions.update(schema.get("$defs", {}))
        definitions[name] = schema
    return definitions


def test_committed_typescript_types_are_generated_from_the_current_models() -> None:
    expected = _generator().render()
    assert GENERATED.read_text(encoding="utf-8") == expected, (
        "vscode-extension/src/protocol.generated.ts is stale: run python vscode-extension/scripts/gen_protocol.py"
    )


def test_every_protocol_model_has_a_typescript_interface() -> None:
    assert set(_typescript_interfaces()) == set(_schema_definitions())


def test_typescript_fields_are_the_schema_properties() -> None:
    interfaces = _typescript_interfaces()
    for name, schema in _schema_definitions().items():
        assert set(interfaces[name]) == set(schema.get("properties", {})), name


def test_a_typescript_field_is_required_only_when_the_server_always_sends_it() -> None:
    interfaces = _typescript_interfaces()
    for name, schema in _schema_definitions().items():
        required = set(schema.get("required", []))
        for prop, prop_schema in schema.get("properties", {}).items():
            admits_null = any(option.get("type") == "null" for option in prop_schema.get("anyOf", []))
            always_sent = prop in required and not admits_null
            assert interfaces[name][prop] is not always_sent, f"{name}.{prop}"


def test_typescript_method_names_are_the_server_constants() -> None:
    text = GENERATED.read_text(encoding="utf-8")
    block = text.split("export const Methods = {", 1)[1].split("} as const;", 1)[0]
    expected = {
        name: value
        for name, value in vars(protocol).items()
        if name.isupper() and isinstance(value, str) and re.match(r"^pi[/.]", value)
    }
    assert dict(METHOD.findall(block)) == expected
