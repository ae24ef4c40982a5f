"""Session files for the budget tests: Pi 1.6.0 shapes (stored system messages, tools, edits)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.session._entries import assistant, header, message, ts, usage, user

__all__ = ["assistant", "header", "message", "ts", "usage", "user"]


def system(sections: dict[str, Any], tools: list[dict[str, Any]] | None = None, timestamp: int = 0) -> dict[str, Any]:
    out: dict[str, Any] = {"role": "system", "content": "", "sections": sections}
    if tools is not None:
        out["toolsAdded"] = tools
    out["timestamp"] = timestamp
    return out


def tool(name: str, description: str = "does things") -> dict[str, Any]:
    return {"name": name, "description": description, "parameters": {"type": "object", "properties": {}}}


def tool_result(text: str, call_id: str = "c1") -> dict[str, Any]:
    return {
        "role": "toolResult",
        "toolCallId": call_id,
        "toolName": "read",
        "content": [{"type": "text", "text": text}],
        "isError": False,
        "timestamp": 3,
    }


def entry(kind: str, entry_id: str, parent: str | None, second: int = 1, **fields: Any) -> dict[str, Any]:
    return {"type": kind, "id": entry_id, "parentId": parent, "timestamp": ts(second), **fields}


def chain(*items: tuple[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """Message entries ``(id, message)`` each the child of the previous one."""
    out: list[dict[str, Any]] = []
    parent: str | None = None
    for second, (entry_id, msg) in enumerate(items, start=1):
        out.append(message(entry_id, parent, msg, second))
        parent = entry_id
    return out


def write_session(path: Path, entries: list[dict[str, Any]], *, cwd: str = "/p") -> Path:
    lines = [header(cwd=cwd), *entries]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path
