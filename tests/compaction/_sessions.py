"""Session entries for compaction tests, shaped as Pi writes them (ids e1, e2, ... unless given)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def ts(second: int) -> str:
    return f"2025-01-01T00:{second // 60:02d}:{second % 60:02d}.000Z"


def usage(input_: int = 0, output: int = 0) -> dict[str, Any]:
    return {
        "input": input_,
        "output": output,
        "cacheRead": 0,
        "cacheWrite": 0,
        "totalTokens": input_ + output,
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
    }


class Chain:
    """Appends entries the way Pi does: each one a child of the previous (the leaf) unless told."""

    def __init__(self, leaf: str | None = None, first_number: int = 1) -> None:
        self.entries: list[dict[str, Any]] = []
        self.leaf = leaf
        self.offset = first_number - 1  # ids and timestamps continue after an existing session

    def add(self, kind: str, fields: dict[str, Any], entry_id: str | None = None, parent: Any = "leaf") -> str:
        number = self.offset + len(self.entries) + 1
        new_id = entry_id or f"e{number}"
        entry = {
            "type": kind,
            "id": new_id,
            "parentId": self.leaf if parent == "leaf" else parent,
            "timestamp": ts(number),
            **fields,
        }
        self.entries.append(entry)
        self.leaf = new_id
        return new_id

    def user(self, text: str, **kw: Any) -> str:
        n = len(self.entries) + 1
        return self.add("message", {"message": {"role": "user", "content": text, "timestamp": n}}, **kw)

    def assistant(
        self,
        text: str | None = "ok",
        calls: tuple[tuple[str, dict[str, Any]], ...] = (),
        use: dict[str, Any] | None = None,
        stop: str = "stop",
        **kw: Any,
    ) -> str:
        content: list[dict[str, Any]] = [] if text is None else [{"type": "text", "text": text}]
        content += [
            {"type": "toolCall", "id": f"call{i}", "name": name, "arguments": args}
            for i, (name, args) in enumerate(calls)
        ]
        message = {
            "role": "assistant",
            "content": content,
            "api": "anthropic-messages",
            "provider": "anthropic",
            "model": "claude-test",
            "usage": use or usage(),
            "stopReason": stop,
            "timestamp": len(self.entries) + 1,
        }
        return self.add("message", {"message": message}, **kw)

    def tool_result(self, text: str, **kw: Any) -> str:
        message = {
            "role": "toolResult",
            "toolCallId": "call0",
            "toolName": "read",
            "content": [{"type": "text", "text": text}],
            "isError": False,
            "timestamp": len(self.entries) + 1,
        }
        return self.add("message", {"message": message}, **kw)

    def system(self, sections: dict[str, Any], **kw: Any) -> str:
        message = {"role": "system", "content": "", "sections": sections, "timestamp": len(self.entries) + 1}
        return self.add("message", {"message": message}, **kw)

    def compaction(self, summary: str, first_kept: str, tokens: int = 1000, **fields: Any) -> str:
        kw = {k: fields.pop(k) for k in ("entry_id", "parent") if k in fields}
        body = {"summary": summary, "firstKeptEntryId": first_kept, "tokensBefore": tokens, **fields}
        return self.add("compaction", body, **kw)

    def model_change(self, **kw: Any) -> str:
        return self.add("model_change", {"provider": "openai", "modelId": "gpt"}, **kw)

    def edit(self, target: str, replacement: Any, **kw: Any) -> str:
        return self.add("context_edit", {"targetId": target, "replacement": replacement}, **kw)

    def branch_summary(self, summary: str, from_id: str, **fields: Any) -> str:
        kw = {k: fields.pop(k) for k in ("entry_id", "parent") if k in fields}
        return self.add("branch_summary", {"fromId": from_id, "summary": summary, **fields}, **kw)


def header(cwd: str = "/tmp/project", version: int = 3) -> dict[str, Any]:
    return {"type": "session", "version": version, "id": "s1", "timestamp": ts(0), "cwd": cwd}


def append_lines(path: Path, entries: list[dict[str, Any]]) -> None:
    """Append entries the way a running agent would (one JSON line each)."""
    with path.open("a", encoding="utf-8") as handle:
        for entry in entries:
            handle.write(json.dumps(entry, separators=(",", ":"), ensure_ascii=False) + "\n")


def write_session(path: Path, entries: list[dict[str, Any]], *, cwd: str = "/tmp/project", end: str = "\n") -> Path:
    lines = [json.dumps(header(cwd), separators=(",", ":"))]
    lines += [json.dumps(e, separators=(",", ":"), ensure_ascii=False) for e in entries]
    path.write_text("\n".join(lines) + end, encoding="utf-8")
    return path


def conversation(turns: int = 3, size: int = 400) -> Chain:
    """``turns`` user/assistant pairs of ``size`` characters each (``size / 4`` tokens apiece)."""
    chain = Chain()
    for i in range(turns):
        chain.user(f"question {i} " + "q" * size)
        chain.assistant(f"answer {i} " + "a" * size)
    return chain
