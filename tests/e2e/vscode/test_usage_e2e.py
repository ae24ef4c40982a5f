"""The Usage panel in real VS Code: the CLI's numbers, the groupings, and a turn Pi appended.

code-server opens a folder whose agent dir holds the real Pi's forks and clones
(``tests/usage/fixtures/real-pi-forks``: ten replies in the files, five paid requests).
``usage_driver.js`` opens the panel from the command palette, picks all time, and checks the headline
against ``pi-context usage --json`` on the same folder (cost, turns, cache share, as the panel words
them), the chart's bars and cache share line, one row per day; then the rows grouped by session (four) and
by model (one, the CLI's); then a turn appended to a session (by the test, on the driver's signal) is in
the headline after **Refresh**.

Screenshots: ``tests/e2e/vscode/out/usage/``. Runs alone:
``python -m pytest -m e2e tests/e2e/vscode/test_usage_e2e.py``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from lsp_server.base.money import format_usd
from tests.e2e.vscode import harness
from tests.e2e.vscode.harness import CodeServer
from tests.usage._folders import appended_turn, forks_folder

pytestmark = pytest.mark.e2e

OUT = "usage"


@pytest.fixture()
def out_dir() -> Iterator[Path]:
    yield harness.fresh_out(harness.OUT / OUT)


def cli_usage(sessions: Path, agent: Path, by: str) -> dict[str, Any]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("PI_")}
    done = subprocess.run(
        [sys.executable, "-m", "lsp_server", "usage", str(sessions), "--agent-dir", str(agent), "--by", by,
         "--json", "--no-cache"],
        capture_output=True, text=True, check=True, env=env,
    )  # fmt: skip
    parsed: dict[str, Any] = json.loads(done.stdout)
    return parsed


def headline(totals: dict[str, Any]) -> str:
    """The panel's headline for these totals (model/usage.ts: the one cost format, plural, shareText)."""
    turns = totals["turns"]
    return (
        f"{format_usd(totals['cost'])} · {turns:,} turn{'s' if turns != 1 else ''} · "
        f"{totals['cacheShare'] * 100:.1f}% of the prompt from the cache"
    )


def test_the_usage_panel_in_real_vscode(tmp_path: Path, out_dir: Path) -> None:
    tools = harness.tools()
    vsix = harness.build_vsix()
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "notes.txt").write_text("a project\n", encoding="utf-8")
    (folder / "AGENTS.md").write_text("Use tabs.\n", encoding="utf-8")  # a Pi project: the extension activates
    sessions, files, agent = forks_folder(tmp_path)
    by_day = cli_usage(sessions, agent, "day")
    by_model = cli_usage(sessions, agent, "model")
    expect = harness.apply_forced({"usage-panel": True, "usage-group": True, "usage-refresh": True})
    settings = {
        "piContext.server.python": harness.SERVER_PYTHON,
        "piContext.agentDir": str(agent),
        "piContext.trust": "trusted",
    }
    env = {**os.environ, "PI_CODING_AGENT_DIR": str(agent), "XDG_CACHE_HOME": str(tmp_path / "cache")}

    def append_turn(_: Any) -> None:
        with files["c"].open("a", encoding="utf-8") as handle:
            handle.write(appended_turn(files["c"], 1))

    code_server = CodeServer(tools["CODE_SERVER"], tmp_path / "code-server", settings, env)
    code_server.install(vsix)
    try:
        url = code_server.start()
        config = harness.driver_config(
            url,
            folder,
            out_dir,
            tools,
            expect,
            headline=headline(by_day["totals"]),
            turns=by_day["totals"]["turns"],
            days=len(by_day["groups"]),
            sessions=len(by_day["sessions"]),
            model=by_model["groups"][0]["key"],
            viewport={"width": 1280, "height": 860},
        )
        driver = harness.run_driver(tools, "usage_driver.js", config, out_dir, {"append-turn": append_turn})
    finally:
        code_server.stop()
    shutil.copy(code_server.log, out_dir / "code-server.log")
    harness.read_report(driver, out_dir, "VS Code Usage panel e2e")
