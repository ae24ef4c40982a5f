"""The method table (lsp_server/methods.py) is the one list: names, handlers, models, examples and docs follow it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from lsp_server import protocol, protocol_names
from lsp_server.methods import METHODS
from lsp_server.server.create import create_server
from lsp_server.server.handlers import HANDLERS

ROOT = Path(__file__).resolve().parents[2]


def test_every_row_to_the_server_has_a_handler_and_every_handler_a_row() -> None:
    assert set(HANDLERS) == {row.name for row in METHODS if row.to_server}


def test_the_server_registers_each_row_as_its_kind() -> None:
    server = create_server(debug=False)
    features, commands = set(server.protocol.fm.features), set(server.protocol.fm.commands)
    for row in METHODS:
        registered = commands if row.kind == "command" else features
        assert (row.name in registered) == row.to_server, row.name


def test_the_python_names_are_the_rows() -> None:
    constants = {name: getattr(protocol_names, name) for name in protocol_names.__all__}
    assert constants == {row.constant: row.name for row in METHODS}
    assert all(getattr(protocol, row.constant) == row.name for row in METHODS)  # re-exported


def test_each_rows_models_are_protocol_models() -> None:
    named = [model for row in METHODS for model in (row.params, row.result) if model is not None]
    assert [name for name in named if name not in protocol.ALL_MODELS] == []


def test_a_recorded_exchange_exists_for_each_row_that_says_so() -> None:
    examples = json.loads((ROOT / "docs" / "protocol-examples.json").read_text(encoding="utf-8"))
    assert {row.name for row in METHODS if row.example} == set(examples)


def test_the_generated_files_are_current() -> None:
    """docs/protocol.md and lsp_server/protocol_names.py (python docs/gen_protocol.py)."""
    done = subprocess.run(
        [sys.executable, str(ROOT / "docs" / "gen_protocol.py"), "--check"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
