"""The VS Code extension's TypeScript protocol types and typed client match the server's protocol.

``vscode-extension/src/protocol.generated.ts`` is generated from ``lsp_server.protocol`` and
``vscode-extension/src/client.generated.ts`` from the method table (``docs/gen_protocol.py``'s ``METHODS``)
by ``vscode-extension/scripts/gen_protocol.py``. A test per file fails when the committed file is stale;
the others read the committed TypeScript independently of the generator and compare it with the JSON
schemas and the table, so a hand edit of a generated file (or a generator bug) is caught too.
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
CLIENT = ROOT / "vscode-extension" / "src" / "client.generated.ts"
SOURCES = ROOT / "vscode-extension" / "src"

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


def test_committed_typed_client_is_generated_from_the_current_method_table() -> None:
    generator = _generator()
    assert CLIENT.read_text(encoding="utf-8") == generator.render_client(generator.method_table()), (
        "vscode-extension/src/client.generated.ts is stale: run python vscode-extension/scripts/gen_protocol.py"
    )


REQUEST_MEMBER = re.compile(
    r"^  (\w+)\((?:params: (\w+), )?token\?: CancellationToken\): Promise<(\w+)> \{\n"
    r"    return this\.request\('([^']+)', (params|\{\}), token\)",
    re.MULTILINE,
)
COMMAND_MEMBER = re.compile(
    r"^  (\w+)\((?:args: (\w+), )?options: CommandOptions = \{\}\): Promise<(\w+)> \{\n"
    r"    return this\.command\('([^']+)', (\[args\]|\[\]), options\)",
    re.MULTILINE,
)
NOTIFICATION_MEMBER = re.compile(
    r"^  (on\w+)\(handler: \(params: (\w+)\) => void\): Disposable \{\n"
    r"    return this\.transport\.onNotification\('([^']+)', handler\)",
    re.MULTILINE,
)


def test_the_typed_client_has_one_member_per_method_with_the_tables_types() -> None:
    text = CLIENT.read_text(encoding="utf-8")
    found: dict[str, tuple[str, str | None, str | None]] = {}
    for _member, params, result, method, _sent in REQUEST_MEMBER.findall(text):
        found[method] = ("request", params or None, None if result == "null" else result)
    for _member, args, result, method, _sent in COMMAND_MEMBER.findall(text):
        found[method] = ("command", args or None, None if result == "unknown" else result)
    for _member, params, method in NOTIFICATION_MEMBER.findall(text):
        found[method] = ("notification", params, None)
    expected = {row.name: (row.kind, row.params, row.result) for row in _generator().method_table()}
    assert found == expected


def test_the_extension_calls_the_server_only_through_the_typed_client() -> None:
    """No ``sendRequest`` / ``onNotification`` and no ``Methods`` outside the generated client: every request,
    command and notification handler is a typed member of ``PiContextClient``."""
    offenders: list[str] = []
    for path in sorted(SOURCES.rglob("*.ts")):
        if path.name.endswith(".generated.ts"):
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            code = line.split("//", 1)[0].strip()
            if code.startswith(("*", "/*")):
                continue
            if re.search(r"\.(sendRequest|onNotification)\b|\bMethods\b", code):
                offenders.append(f"{path.relative_to(SOURCES)}:{number}: {code}")
    assert offenders == []
