"""The provider registry is the one source: types, settings, ``--model``, the extension and docs agree with it;
and the adapters (with httpx) load only when a client is built."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any, get_args

import pytest

from lsp_server.llm.adapters import load_adapter
from lsp_server.llm.factory import build_client, config_problems
from lsp_server.llm.summarizer_config import ClientKind, SummarizerConfig
from lsp_server.llm.types import CompletionRequest
from lsp_server.settings.pi_context import PiContextSettings, SummarizerSettings
from lsp_server.settings.summarizer import MODEL_ARG_HELP, config_from_model_arg
from lsp_server.vocabulary.providers import DEFAULT_WIRE_FORMAT, PROVIDER_TABLE, WIRE_FORMATS, Provider, WireFormat
from tests.support.fake_llm_server import FakeLlmServer, ScriptedResponse

ROOT = Path(__file__).resolve().parents[2]


def _fake_base_url(server: FakeLlmServer, wire: WireFormat) -> str:
    """Where the fake server speaks ``wire`` (a new provider needs its fake wire format too)."""
    urls = {"openai": server.openai_base_url, "anthropic": server.anthropic_base_url}
    assert set(urls) == set(WIRE_FORMATS), "teach tests/support/fake_llm_server.py the new wire format"
    return urls[wire]


def test_the_wire_format_type_lists_exactly_the_table_ids_in_order() -> None:
    assert get_args(WireFormat) == WIRE_FORMATS == tuple(row.id for row in PROVIDER_TABLE)
    assert {kind for literal in get_args(ClientKind) for kind in get_args(literal)} == {"offline", *WIRE_FORMATS}
    assert DEFAULT_WIRE_FORMAT in WIRE_FORMATS


def test_the_settings_accept_exactly_the_wire_formats_of_the_table() -> None:
    schema = PiContextSettings.model_json_schema(by_alias=True)["$defs"]["SummarizerSettings"]["properties"]
    assert schema["wireFormat"]["enum"] == list(WIRE_FORMATS)
    assert schema["wireFormat"]["default"] == DEFAULT_WIRE_FORMAT
    for row in PROVIDER_TABLE:
        assert f'"{row.id}": {row.summary}' in schema["wireFormat"]["description"]


def test_the_extension_offers_the_wire_formats_of_the_table() -> None:
    package = json.loads((ROOT / "vscode-extension" / "package.json").read_text(encoding="utf-8"))
    setting: dict[str, Any] = package["contributes"]["configuration"]["properties"]["piContext.summarizer.wireFormat"]
    assert setting["enum"] == list(WIRE_FORMATS)
    assert setting["enumDescriptions"] == [row.summary for row in PROVIDER_TABLE]
    assert setting["default"] == DEFAULT_WIRE_FORMAT


def test_the_docs_list_the_wire_formats_of_the_table() -> None:
    settings_row = next(
        line
        for line in (ROOT / "docs" / "settings.md").read_text(encoding="utf-8").splitlines()
        if line.startswith("| `summarizer.wireFormat` |")
    )
    assert settings_row.split(" | ")[1] == " \\| ".join(f"`{wire}`" for wire in WIRE_FORMATS)
    llm_doc = (ROOT / "docs" / "llm.md").read_text(encoding="utf-8")
    for row in PROVIDER_TABLE:
        assert f"| `{row.id}` | `lsp_server/llm/" in llm_doc


def test_model_help_names_every_provider_and_the_commands_show_it() -> None:
    assert MODEL_ARG_HELP.startswith("offline, ")
    for row in PROVIDER_TABLE:
        assert f"{row.id}/<model id>" in MODEL_ARG_HELP
    done = subprocess.run(
        [sys.executable, "-m", "lsp_server", "compact", "--help"], capture_output=True, text=True, check=True
    )
    assert " ".join(MODEL_ARG_HELP.split()) in " ".join(done.stdout.split())


def test_an_unknown_provider_is_refused_with_the_table_ids() -> None:
    assert config_from_model_arg("mistral/large", SummarizerSettings(), env={}) == (
        f"--model 'mistral/large': expected {MODEL_ARG_HELP}"
    )
    [problem] = config_problems(SummarizerConfig(kind="mistral", model="m"), env={})  # type: ignore[arg-type]
    assert problem.startswith("summarizer kind must be offline, ") and problem.endswith(", not 'mistral'")
    assert all(wire in problem for wire in WIRE_FORMATS)


@pytest.mark.parametrize("row", PROVIDER_TABLE, ids=lambda row: row.id)
def test_model_arg_takes_the_base_url_and_key_from_the_rows_variables(row: Provider) -> None:
    env = {row.base_url_env: "http://127.0.0.1:9/x", row.api_key_env: "k-1234567890"}
    config = config_from_model_arg(f"{row.id}/m1", SummarizerSettings(), env=env)
    assert config == SummarizerConfig(
        kind=row.id, model="m1", base_url="http://127.0.0.1:9/x", api_key_env=row.api_key_env
    )
    assert isinstance(config, SummarizerConfig) and config.label == f"{row.id}/m1"


@pytest.mark.parametrize("row", PROVIDER_TABLE, ids=lambda row: row.id)
def test_without_a_base_url_a_provider_needs_its_rows_key_variable(row: Provider) -> None:
    assert config_problems(SummarizerConfig(kind=row.id, model="m"), env={}) == [
        f"summarizer API key missing: environment variable {row.api_key_env} is not set"
    ]
    client = build_client(SummarizerConfig(kind=row.id, model="m"), env={row.api_key_env: "k-1234567890"})
    assert getattr(client, "base_url", None) == row.default_base_url.rstrip("/")


@pytest.mark.parametrize("row", PROVIDER_TABLE, ids=lambda row: row.id)
async def test_each_row_builds_its_adapter_and_it_speaks_the_wire_format(row: Provider) -> None:
    with FakeLlmServer([ScriptedResponse(text="summary")]) as server:
        config = SummarizerConfig(kind=row.id, model="m", base_url=_fake_base_url(server, row.id), api_key_env="K")
        client = build_client(config, env={"K": "key-for-the-fake-1"})
        assert type(client).__module__ == load_adapter(row.id).__module__
        reply = await client.complete(CompletionRequest.single_prompt("s", "p"))
        await client.aclose()
    assert reply.text == "summary"
    assert server.received_key(0, "key-for-the-fake-1")


def test_the_offline_label_and_an_endpoints_label() -> None:
    assert SummarizerConfig().label == "offline (extractive)"
    assert SummarizerConfig(kind="anthropic", model="claude-x").label == "anthropic/claude-x"


# -- wiring: the HTTP library loads with the first HTTP client, not with the domain -------------


def _modules_after(code: str) -> set[str]:
    script = f"import sys\n{code}\nprint('\\n'.join(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=ROOT)
    return set(done.stdout.split())


@pytest.mark.parametrize(
    "module",
    [
        "lsp_server.compaction.summarize",
        "lsp_server.compaction.operations",
        "lsp_server.llm",
        "lsp_server.settings.summarizer",
        "lsp_server.settings.pi_context",
    ],
)
def test_importing_the_domain_does_not_import_httpx(module: str) -> None:
    loaded = _modules_after(f"import {module}")
    assert module in loaded
    assert "httpx" not in loaded


def test_building_an_http_client_is_what_imports_httpx() -> None:
    loaded = _modules_after(
        "from lsp_server.llm.factory import SummarizerConfig, build_client\n"
        "build_client(SummarizerConfig(kind='openai', model='m', base_url='http://127.0.0.1:9/v1'), env={})"
    )
    assert {"httpx", "lsp_server.llm.openai_compat"} <= loaded
    assert "lsp_server.llm.anthropic" not in loaded
