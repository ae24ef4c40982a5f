"""Special files and huge files given to the session commands: refused at once with one clear line.

A FIFO named ``x.jsonl`` blocks a plain ``open()`` until someone writes, ``/dev/zero`` never ends,
and a 2 GB sparse file is one 2 GB line. Each command runs as a real subprocess with a timeout far
above what a refusal takes, so a hang fails the test instead of freezing the suite.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.budget._sessions import message, user, write_session

TIMEOUT_S = 60


def _run(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PI_")}
    env["HOME"] = str(tmp_path)
    command = [sys.executable, "-m", "lsp_server", *args, "--agent-dir", str(tmp_path / "agent")]
    return subprocess.run(
        command, capture_output=True, text=True, env=env, check=False, cwd=tmp_path, timeout=TIMEOUT_S
    )


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "sessions" / "live.jsonl"
    path.parent.mkdir()
    os.mkfifo(path)
    return path


@pytest.mark.parametrize(
    "command",
    [
        ["session"],
        ["session", "--json"],
        ["compact", "--dry-run"],
        ["compact"],
        ["branch-summary", "--dry-run", "--from", "a", "--to", "b"],
    ],
)
def test_a_fifo_named_jsonl_is_refused_not_waited_on(tmp_path: Path, fifo: Path, command: list[str]) -> None:
    result = _run(tmp_path, *command, str(fifo))
    assert result.returncode == 1
    assert result.stderr.strip().endswith(
        f"{fifo}: is a FIFO (named pipe), not a regular file; only regular files are read"
    )
    assert "Traceback" not in result.stderr


def test_a_fifo_inside_a_sessions_folder_is_not_listed(tmp_path: Path, fifo: Path) -> None:
    real = fifo.parent / "real.jsonl"
    write_session(real, [message("a", None, user("hi"))], cwd=str(tmp_path))
    for args in (["session", str(fifo.parent)], ["session", "--list", "--cwd", str(tmp_path)]):
        result = _run(tmp_path, *args)
        assert result.returncode == 0, result.stderr
    listed = _run(tmp_path, "session", str(fifo.parent))
    assert "real.jsonl" in listed.stdout and "live.jsonl" not in listed.stdout


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
@pytest.mark.parametrize("command", [["session"], ["compact", "--dry-run"], ["compact"]])
def test_an_endless_device_is_refused(tmp_path: Path, device: str, command: list[str]) -> None:
    result = _run(tmp_path, *command, device)
    assert result.returncode == 1
    assert (
        result.stderr.strip()
        == f"pi-context: {device}: is a character device, not a regular file; only regular files are read"
    )


def test_a_sparse_2gb_session_is_refused_naming_the_limit(tmp_path: Path) -> None:
    big = tmp_path / "big.jsonl"
    with open(big, "wb") as handle:
        handle.truncate(2 * 1024**3)
    for command in (["session"], ["compact", "--dry-run"]):
        result = _run(tmp_path, *command, str(big))
        assert result.returncode == 1
        assert result.stderr.strip() == (
            f"pi-context: {big}: session file is 2,147,483,648 bytes, over the 536,870,912-byte limit "
            "(piContext.limits.sessionMaxBytes / --session-max-bytes)"
        )


def test_the_size_limit_is_a_flag_and_a_setting(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    write_session(path, [message("a", None, user("hello " * 100))], cwd=str(tmp_path))
    size = path.stat().st_size
    by_flag = _run(tmp_path, "session", "--session-max-bytes", str(size - 1), str(path))
    assert by_flag.returncode == 1 and f"over the {size - 1:,}-byte limit" in by_flag.stderr
    settings = tmp_path / "settings.json"
    settings.write_text('{"limits": {"sessionMaxBytes": 10}}', encoding="utf-8")
    by_setting = _run(tmp_path, "compact", "--dry-run", "--settings", str(settings), str(path))
    assert by_setting.returncode == 1 and "over the 10-byte limit" in by_setting.stderr
    assert _run(tmp_path, "session", "--session-max-bytes", str(size), str(path)).returncode == 0


def test_a_line_over_the_line_limit_is_skipped_and_reported(tmp_path: Path) -> None:
    """A 2 GB line of NUL bytes after a valid header: read in bounded memory, reported by line."""
    path = tmp_path / "s.jsonl"
    write_session(path, [message("a", None, user("hi"))], cwd=str(tmp_path))
    with open(path, "ab") as handle:
        handle.truncate(path.stat().st_size + 80 * 1024**2)  # 80 MiB without a newline
    with open(path, "ab") as handle:
        handle.write(b"\n")
    result = _run(tmp_path, "session", "--session-max-bytes", str(1024**3), str(path))
    assert result.returncode == 0, result.stderr
    assert "line 3: error session/line-too-long: line is over the 67,108,864-byte line limit" in result.stdout
    assert "1 entries" in result.stdout or "1 entry" in result.stdout
