"""Run ``harness.lua`` in headless Neovim with a plan, and read back its JSON report.

Tests describe what to do as a list of steps (see the header of ``harness.lua``); this module
writes the plan, starts ``nvim --headless`` with an isolated HOME and agent dir, and returns the
report. Adding a scenario (a broken SKILL.md, ``pi.compact`` in preview mode) means adding steps,
not code.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

HARNESS = Path(__file__).with_name("harness.lua")
REQUIRE_ENV = "PI_CONTEXT_REQUIRE_E2E"
SERVER_COMMAND = [sys.executable, "-m", "lsp_server", "serve"]


def nvim_or_skip() -> str:
    """The nvim binary; a skip with the reason when it is missing (a failure in CI)."""
    found = shutil.which("nvim")
    if found is None:
        reason = "nvim not found: apt-get install -y neovim (Debian's 0.7.2 is what the harness targets)"
        if os.environ.get(REQUIRE_ENV) == "1":
            pytest.fail(f"{REQUIRE_ENV}=1 but {reason}")
        pytest.skip(reason)
    return found


@dataclass
class NvimRun:
    report: dict[str, Any]
    returncode: int
    stderr: str

    def step(self, op: str, name: str | None = None) -> dict[str, Any]:
        for entry in self.report["steps"]:
            if entry["op"] == op and (name is None or entry.get("name") == name):
                result: dict[str, Any] = entry
                return result
        raise KeyError((op, name))


def run_plan(
    tmp_path: Path,
    root: Path,
    steps: list[dict[str, Any]],
    *,
    init_options: dict[str, Any] | None = None,
    settings: dict[str, Any] | None = None,
    record: list[str] | None = None,
    timeout_s: float = 60.0,
) -> NvimRun:
    nvim = nvim_or_skip()
    home = tmp_path / "nvim-home"
    agent_dir = home / ".pi" / "agent"
    agent_dir.mkdir(parents=True, exist_ok=True)
    plan = {
        "cmd": SERVER_COMMAND,
        "root": str(root),
        "init_options": init_options or {},
        "settings": settings or {},
        "record": record or [],
        "steps": steps,
        "out": str(tmp_path / "nvim-report.json"),
        "timeout_ms": int(timeout_s * 1000 / 2),
    }
    plan_path = tmp_path / "nvim-plan.json"
    plan_path.write_text(json.dumps(plan), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PI_")}
    env.update(
        {
            "HOME": str(home),
            "XDG_CONFIG_HOME": str(home / ".config"),
            "XDG_DATA_HOME": str(home / ".local" / "share"),
            "XDG_STATE_HOME": str(home / ".local" / "state"),
            "XDG_CACHE_HOME": str(home / ".cache"),
            "PI_CODING_AGENT_DIR": str(agent_dir),
            "PI_CONTEXT_DEBUG": "1",
            "PI_NVIM_PLAN": str(plan_path),
        }
    )
    done = subprocess.run(
        [nvim, "--headless", "-n", "-i", "NONE", "-u", str(HARNESS)],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout_s,
    )
    out = Path(plan["out"])
    if not out.exists():
        raise AssertionError(f"nvim wrote no report (exit {done.returncode}):\n{done.stdout}\n{done.stderr}")
    report: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    return NvimRun(report, done.returncode, done.stderr)
