"""Start-up: ``initialize`` is answered without the domain; the server itself loads it when it is created.

Importing the rules, the YAML reader, the session models and pydantic costs more than pygls itself.
``pi-context serve`` answers ``initialize`` from a snapshot before importing any of them
(``server/early.py``, tests/server/test_early_initialize.py); creating the server then imports the
whole workspace at once: measured with bench/bench_lsp.py, importing the domain lazily (on first use,
or in a thread after ``initialize``) no longer made the server ready sooner (docs/server.md,
"Start-up"). These tests run a fresh interpreter, so what an earlier test imported does not hide an
eager import.
"""

from __future__ import annotations

import json
import subprocess
import sys

from lsp_server.server import lifecycle
from lsp_server.settings import editor as config

HEAVY = ("pydantic", "ruamel.yaml", "lsp_server.checks", "lsp_server.protocol", "lsp_server.session.entries")
# The file watcher (watchfiles and its anyio, ctypes for inotify) starts after ``initialized``.
WATCHER = ("lsp_server.workspace.watch", "watchfiles", "anyio", "ctypes")


def modules_after(code: str) -> list[str]:
    script = f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
    return list(json.loads(out.splitlines()[-1]))


def test_the_early_answer_to_initialize_imports_none_of_the_domain_nor_pygls() -> None:
    loaded = modules_after(
        "from lsp_server.server.early import initialize_result; initialize_result({'capabilities': {}}, debug=True)"
    )
    assert [name for name in (*HEAVY, *WATCHER, "pygls", "lsprotocol") if name in loaded] == []


def test_the_serve_command_line_imports_only_the_serve_subcommand() -> None:
    loaded = modules_after("from lsp_server.cli import build_parser; build_parser('serve')")
    assert "lsp_server.cli.serve" in loaded
    assert [name for name in ("lsp_server.cli.session", "lsp_server.cli.compact", *HEAVY) if name in loaded] == []


def test_the_settings_section_is_named_once() -> None:
    assert lifecycle.SECTION == config.SECTION
