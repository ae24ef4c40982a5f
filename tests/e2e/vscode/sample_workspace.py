"""The sample workspace the VS Code end-to-end test opens: a project with an AGENTS.md, a SKILL.md
whose name breaks Pi's rule (uppercase letters, fixable by a quick fix), and a Pi agent dir holding
one session of that project, long enough for a compaction to have something to summarize; and the
chat's project (``build_chat``), whose agent dir points Pi at the loopback fake model.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lsp_server.session.locate import encode_cwd
from tests.support.pi_agent import PiAgentDir, write_agent_dir

SKILL_NAME = "release-notes"
BROKEN_SKILL = """---
name: Release-Notes
description: Writes release notes from the merged pull requests of a milestone.
---

# Release notes

Collect the merged pull requests, group them by area, and write one line per change.
"""
AGENTS_MD = """# Sample project

- Python 3.11; run `python -m pytest` before every commit.
- Keep functions small and named after what they return.
"""
SESSION_ID = "0198c0de-0000-7000-8000-00000000e2e0"
SESSION_NAME = "release prep"
MODEL = {"api": "anthropic-messages", "provider": "anthropic", "model": "claude-sonnet-4-5"}


@dataclass(frozen=True)
class SampleWorkspace:
    folder: Path
    agent_dir: Path
    skill: Path
    agents_md: Path
    session: Path


def _entry_id(n: int) -> str:
    return f"{n:08x}"


def _timestamp(n: int) -> str:
    return f"2026-01-15T10:{n // 60:02d}:{n % 60:02d}.000Z"


def _usage(input_tokens: int, output_tokens: int) -> dict[str, Any]:
    """Usage as an Anthropic model reports it: most of the prompt read from the cache, priced 3/15/0.3/3.75."""
    cached = input_tokens * 4 // 5
    fresh = input_tokens - cached
    cost = {"input": 3e-6 * fresh, "output": 15e-6 * output_tokens, "cacheRead": 0.3e-6 * cached, "cacheWrite": 0}
    return {
        "input": fresh,
        "output": output_tokens,
        "cacheRead": cached,
        "cacheWrite": 0,
        "totalTokens": input_tokens + output_tokens,
        "cost": {**cost, "total": sum(cost.values())},
    }


def session_lines(cwd: str, turns: int = 16) -> list[dict[str, Any]]:
    """A linear v3 session: each turn is a user request, a tool call, a long tool result, a reply."""
    lines: list[dict[str, Any]] = [
        {"type": "session", "version": 3, "id": SESSION_ID, "timestamp": _timestamp(0), "cwd": cwd}
    ]
    parent: str | None = None
    n = 0
    context = 3000

    def add(entry: dict[str, Any]) -> None:
        nonlocal parent, n
        n += 1
        entry_id = _entry_id(n)
        lines.append({"type": entry["type"], "id": entry_id, "parentId": parent, "timestamp": _timestamp(n)} | entry)
        parent = entry_id

    add({"type": "session_info", "name": SESSION_NAME})
    for turn in range(1, turns + 1):
        add(
            {
                "type": "message",
                "message": {
                    "role": "user",
                    "content": [
                        {"type": "text", "text": f"Step {turn}: update the release checklist for area {turn}."}
                    ],
                    "timestamp": 1768471200000 + turn * 60_000,
                },
            }
        )
        call_id = f"toolu_{turn:04d}"
        add(
            {
                "type": "message",
                "message": {
                    "role": "assistant",
                    "content": [
                        {"type": "text", "text": f"Reading the checklist for area {turn}."},
                        {
                            "type": "toolCall",
                            "id": call_id,
                            "name": "read",
                            "arguments": {"path": f"docs/area{turn}.md"},
                        },
                    ],
                    **MODEL,
                    "usage": _usage(context, 40),
                    "stopReason": "toolUse",
                    "timestamp": 1768471200000 + turn * 60_000 + 1000,
                },
            }
        )
        body = "\n".join(
            f"- [ ] area {turn} item {i}: verify the migration notes and the changelog entry" for i in range(90)
        )
        add(
            {
                "type": "message",
                "message": {
                    "role": "toolResult",
                    "toolCallId": call_id,
                    "toolName": "read",
                    "content": [{"type": "text", "text": body}],
                    "isError": False,
                    "timestamp": 1768471200000 + turn * 60_000 + 2000,
                },
            }
        )
        context += len(body) // 4 + 60
        add(
            {
                "type": "message",
                "message": {
                    "role": "assistant",
                    "content": [{"type": "text", "text": f"Area {turn} is updated: 90 items checked."}],
                    **MODEL,
                    "usage": _usage(context, 25),
                    "stopReason": "stop",
                    "timestamp": 1768471200000 + turn * 60_000 + 3000,
                },
            }
        )
    return lines


def build(root: Path) -> SampleWorkspace:
    folder = root / "workspace"
    agent_dir = root / "agent"
    skill = folder / ".pi" / "skills" / SKILL_NAME / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text(BROKEN_SKILL, encoding="utf-8")
    agents_md = folder / "AGENTS.md"
    agents_md.write_text(AGENTS_MD, encoding="utf-8")
    cwd = str(folder.resolve())
    sessions = agent_dir / "sessions" / encode_cwd(cwd)
    sessions.mkdir(parents=True)
    session = sessions / f"2026-01-15T10-00-00-000Z_{SESSION_ID}.jsonl"
    session.write_text("".join(json.dumps(line, separators=(",", ":")) + "\n" for line in session_lines(cwd)))
    return SampleWorkspace(folder=folder, agent_dir=agent_dir, skill=skill, agents_md=agents_md, session=session)


NOTES = "E2E-NOTES line one: the release is on Friday.\nE2E-NOTES line two: tag it v2.0.\n"
CHAT_AGENTS_MD = "# Chat sample\n\n- Answer in one short paragraph.\n"


@dataclass(frozen=True)
class ChatWorkspace:
    folder: Path
    agent: PiAgentDir
    notes: Path


def build_chat(root: Path, model_url: str) -> ChatWorkspace:
    """A small project for the chat: an AGENTS.md, a notes file for Pi's ``read`` tool, and an agent
    dir whose only model is the fake LLM at ``model_url`` (32k window), compaction keeping so few
    recent tokens that ``/compact`` after three turns has something to summarize."""
    folder = root / "chat-workspace"
    folder.mkdir(parents=True)
    (folder / "AGENTS.md").write_text(CHAT_AGENTS_MD, encoding="utf-8")
    notes = folder / "notes.txt"
    notes.write_text(NOTES, encoding="utf-8")
    agent = write_agent_dir(
        root / "chat-agent",
        model_url,
        settings={"defaultProvider": "fake", "compaction": {"keepRecentTokens": 10}},
    )
    return ChatWorkspace(folder=folder.resolve(), agent=agent, notes=notes)
