"""Session folders for the usage tests: Pi's fixture sessions, and the real Pi's forks and clones."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
PI_FIXTURES = ROOT / "tests" / "fixtures" / "pi"
FORKS = Path(__file__).resolve().parent / "fixtures" / "real-pi-forks"
SESSIONS_PLACEHOLDER = "@SESSIONS@"


def pi_fixture_folder(tmp_path: Path) -> Path:
    """``sessions/--project--/`` holding Pi's two fixture sessions (v1 files, real Anthropic usage)."""
    folder = tmp_path / "sessions" / "--Users-badlogic-workspaces-pi-mono--"
    folder.mkdir(parents=True)
    for name in ("before-compaction.jsonl", "large-session.jsonl"):
        shutil.copyfile(PI_FIXTURES / name, folder / name)
    return tmp_path / "sessions"


def forks_folder(tmp_path: Path, agent: Path | None = None) -> tuple[Path, dict[str, Path], Path]:
    """The real Pi's four sessions (A, its clone B, B's fork C, ``pi --fork A`` D) in an agent dir.

    ``agent`` defaults to ``tmp_path / "agent"``. Returns the sessions folder, the four files by
    letter, and the agent dir (with the models.json that prices them).
    """
    agent = agent if agent is not None else tmp_path / "agent"
    sessions = agent / "sessions"
    for source in (FORKS / "sessions").rglob("*.jsonl"):
        target = sessions / source.relative_to(FORKS / "sessions")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(source.read_text(encoding="utf-8").replace(SESSIONS_PLACEHOLDER, str(sessions)), "utf-8")
    shutil.copyfile(FORKS / "models.json", agent / "models.json")
    index = json.loads((FORKS / "index.json").read_text(encoding="utf-8"))
    return sessions, {key: sessions / value for key, value in index.items()}, agent


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def appended_turn(path: Path, number: int, *, newline: bool = True) -> str:
    """An assistant reply after the file's last entry, as Pi appends one (one line)."""
    last = lines(path)[-1]
    message = {
        "role": "assistant",
        "content": [{"type": "text", "text": f"reply {number}"}],
        "api": "openai-completions",
        "provider": "fake",
        "model": "fake-1",
        "usage": {
            "input": 7,
            "output": 3,
            "cacheRead": 100,
            "cacheWrite": 0,
            "totalTokens": 110,
            "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0.5},
        },
        "stopReason": "stop",
        "timestamp": 1_800_000_000_000 + number,
    }
    entry = {
        "type": "message",
        "id": f"new{number:05d}",
        "parentId": last["id"],
        "timestamp": "2027-01-15T08:00:00.000Z",
        "message": message,
    }
    return json.dumps(entry) + ("\n" if newline else "")
