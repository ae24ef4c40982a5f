"""``pi-context usage`` as a user runs it: a real subprocess over real session folders."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.usage._folders import forks_folder, pi_fixture_folder


def run(tmp_path: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    base = {key: value for key, value in os.environ.items() if not key.startswith(("PI_", "XDG_"))}
    base.update(HOME=str(tmp_path / "home"), PI_PACKAGE_DIR=str(tmp_path / "no-pi"), **(env or {}))
    command = [sys.executable, "-m", "lsp_server", "usage", *args]
    return subprocess.run(command, capture_output=True, text=True, env=base, check=False, cwd=tmp_path)


def as_json(tmp_path: Path, *args: str, env: dict[str, str] | None = None) -> dict[str, Any]:
    done = run(tmp_path, *args, "--json", "--timezone", "UTC", env=env)
    assert done.returncode == 0, done.stderr
    parsed: dict[str, Any] = json.loads(done.stdout)
    return parsed


def test_the_default_folder_is_the_agent_dirs_sessions_and_the_cache_goes_to_xdg(tmp_path: Path) -> None:
    sessions, _files, agent = forks_folder(tmp_path)
    env = {"PI_CODING_AGENT_DIR": str(agent), "XDG_CACHE_HOME": str(tmp_path / "xdg")}
    first = as_json(tmp_path, env=env)
    assert first["roots"] == [str(sessions)]
    assert (first["totals"]["turns"], first["totals"]["sessions"]) == (5, 4)
    assert (tmp_path / "xdg" / "pi-context" / "usage-v1.json").is_file()
    second = as_json(tmp_path, env=env)
    assert second["scan"] == {**first["scan"], "unchanged": 4, "loaded": 0, "bytesRead": 0}
    assert second["totals"] == first["totals"]


def test_the_json_answer_has_totals_groups_and_sessions(tmp_path: Path) -> None:
    sessions, files, agent = forks_folder(tmp_path)
    report = as_json(tmp_path, str(sessions), "--by", "session", "--agent-dir", str(agent), "--no-cache")
    keys = {"sessions", "turns", "requests", "input", "output", "cacheRead", "cacheWrite", "cost", "unknownCost"}
    assert keys <= set(report["totals"])
    assert [group["key"] for group in report["groups"]] == sorted(str(path) for path in files.values())
    assert sum(group["turns"] for group in report["groups"]) == report["totals"]["turns"] == 5
    clone = next(session for session in report["sessions"] if session["path"] == str(files["b"]))
    assert clone["parentSession"] == str(files["a"]) and clone["sharedRequests"] == 2
    assert report["scan"]["loaded"] == 4 and report["by"] == "session" and report["timeZone"] == "UTC"


def test_the_table_for_people(tmp_path: Path) -> None:
    folder = pi_fixture_folder(tmp_path)
    done = run(tmp_path, str(folder), "--by", "model", "--no-cache", "--timezone", "UTC")
    assert done.returncode == 0, done.stderr
    out = done.stdout.splitlines()
    assert out[0] == f"Usage by model · {folder} · time zone UTC"
    assert out[1].split() == [
        "model",
        "sessions",
        "turns",
        "requests",
        "input",
        "output",
        "cache",
        "read",
        "cache",
        "write",
        "cached",
        "cost",
    ]
    rows = {line.split()[0]: line.split() for line in out[2:] if line.startswith("  ")}
    assert rows["anthropic/claude-opus-4-5"][2] == "484" and rows["anthropic/claude-opus-4-5"][-1] == "$42.60"
    assert rows["anthropic/claude-sonnet-4-5"][-1] == "$30.33"
    assert rows["total"][3] == "937" and rows["total"][-1] == "$72.93"
    assert any(line.startswith("  read 2 files:") for line in out)


def test_bad_flags_are_errors_that_say_which(tmp_path: Path) -> None:
    for args, message in (
        (["--since", "2025-13-01"], "--since/--until"),
        (["--since", "yesterday"], "not a day"),
        (["--since", "2025-02-02", "--until", "2025-02-01"], "is after --until"),
        (["--timezone", "Mars/Olympus"], "unknown time zone"),
    ):
        done = run(tmp_path, str(tmp_path), *args)
        assert done.returncode == 1 and message in done.stderr, (args, done.stderr)
        assert "Traceback" not in done.stderr


def test_a_folder_that_does_not_exist_is_a_note_not_a_crash(tmp_path: Path) -> None:
    report = as_json(tmp_path, str(tmp_path / "nowhere"), "--no-cache")
    assert report["totals"]["requests"] == 0 and report["notes"] == [f"{tmp_path / 'nowhere'}: no such folder"]


def test_a_session_folder_pi_was_told_to_use_is_read_too(tmp_path: Path) -> None:
    sessions, files, agent = forks_folder(tmp_path)
    moved = tmp_path / "moved-sessions"
    moved.mkdir()
    files["d"].rename(moved / files["d"].name)  # Pi wrote D under $PI_CODING_AGENT_SESSION_DIR
    env = {"PI_CODING_AGENT_DIR": str(agent), "PI_CODING_AGENT_SESSION_DIR": str(moved)}
    report = as_json(tmp_path, "--no-cache", env=env)
    assert report["roots"] == [str(sessions), str(moved)]
    assert (report["totals"]["turns"], report["totals"]["sessions"]) == (5, 4)
    without = as_json(tmp_path, "--no-cache", env={"PI_CODING_AGENT_DIR": str(agent)})
    assert (without["roots"], without["totals"]["turns"]) == ([str(sessions)], 4)
