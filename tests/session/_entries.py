"""Small builders for session entries and messages, shaped exactly as Pi writes them."""

from __future__ import annotations

import json
from typing import Any


def ts(second: int) -> str:
    return f"2025-01-01T00:00:{second:02d}.000Z"


def header(version: int | None = 3, session_id: str = "s1", cwd: str = "/p") -> dict[str, Any]:
    out: dict[str, Any] = {"type": "session"}
    if version is not None:
        out["version"] = version
    out.update({"id": session_id, "timestamp": ts(0), "cwd": cwd})
    return out


def usage(input_: int = 10, output: int = 5, total: int | None = None) -> dict[str, Any]:
    return {
        "input": input_,
        "output": output,
        "cacheRead": 0,
        "cacheWrite": 0,
        "totalTokens": input_ + output if total is None else total,
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
    }


def user(text: Any, timestamp: int = 1) -> dict[str, Any]:
    return {"role": "user", "content": text, "timestamp": timestamp}


def assistant(text: str = "ok", *, stop: str = "stop", use: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": [{"type": "text", "text": text}],
        "api": "anthropic-messages",
        "provider": "anthropic",
        "model": "claude-test",
        "usage": use or usage(),
        "stopReason": stop,
        "timestamp": 2,
    }


def message(entry_id: str, parent: str | None, msg: dict[str, Any], second: int = 1) -> dict[str, Any]:
    return {"type": "message", "id": entry_id, "parentId": parent, "timestamp": ts(second), "message": msg}


def jsonl(*objects: Any, end: str = "\n") -> str:
    return "\n".join(json.dumps(o) for o in objects) + end
