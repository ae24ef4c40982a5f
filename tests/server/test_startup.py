"""Start-up: the server registers every handler, and can answer ``initialize``, without the domain.

Importing the rules, the YAML reader, the session models and pydantic costs more than pygls itself;
they are imported on first use (and by ``preload_domain`` in a thread after ``initialize``). These
tests run a fresh interpreter, so what an earlier test imported does not hide an eager import.
"""

from __future__ import annotations

import json
import subprocess
import sys

from lsp_server.server import app, lifecycle
from lsp_server.settings import editor as config

HEAVY = ("pydantic", "ruamel.yaml", "lsp_server.checks", "lsp_server.protocol", "lsp_server.session.entries")
# The file watcher (watchfiles and its anyio, ctypes for inotify) starts after ``initialized``.
WATCHER = ("lsp_server.workspace.watch", "watchfiles", "anyio", "ctypes")


def modules_after(code: str) -> list[str]:
    script = f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
    return list(json.loads(out.splitlines()[-1]))


def test_creating_the_server_imports_none_of_the_domain() -> None:
    loaded = modules_after("from lsp_server.server.app import create_server; create_server(debug=True)")
    assert [name for name in (*HEAVY, *WATCHER) if name in loaded] == []


def test_the_serve_command_line_imports_only_the_serve_subcommand() -> None:
    loaded = modules_after("from lsp_server.cli import build_parser; build_parser('serve')")
    assert "lsp_server.cli.serve" in loaded
    assert [name for name in ("lsp_server.cli.session", "lsp_server.cli.compact", *HEAVY) if name in loaded] == []


def test_every_preloaded_module_exists_and_loads() -> None:
    loaded = modules_after("from lsp_server.server.app import preload_domain; preload_domain()")
    assert all(name in loaded for name in app.DOMAIN_MODULES)


def test_the_settings_section_is_named_once() -> None:
    assert lifecycle.SECTION == config.SECTION
