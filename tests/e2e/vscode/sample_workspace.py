"""The sample workspace the VS Code end-to-end test opens: a project with an AGENTS.md, a SKILL.md
whose name breaks Pi's rule (uppercase letters, fixable by a quick fix), and a Pi agent dir holding
models.json prices for the session's model and one session of that project, long enough for a
compaction to have something to summarize; and the chat's project (``build_chat``), whose agent dir
points Pi at the loopback fake model.

The session is what the Cost chart draws: 16 turns on its current branch, each reading a long file,
with the usage an Anthropic model reports (most of the prompt read from the cache) and Pi's cost at
the models.json rates. After turn 12 it was compacted by pi-context's own compaction (the offline
summarizer, appended by the session writer), so the context drops there and the next request writes
the cache anew; after turn 14 the user went back and asked again, so turn 14's reply has two
children (a branch point) and the abandoned attempt is off the current branch. The context before
the compaction reaches past a third of Pi's threshold, so the chart draws the threshold line.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lsp_server.compaction.operations import plan_compaction, run_compaction
from lsp_server.llm.offline import OfflineSummarizer
from lsp_server.session.estimates import estimate_tokens
from lsp_server.session.folders import encode_cwd
from lsp_server.session.projection import build_session_projection
from lsp_server.session.tail import load_session
from lsp_server.session.writer import AppendResult, append_entry, load_for_append
from lsp_server.vocabulary.compaction import CompactionSettings
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
RATES = {"input": 3, "output": 15, "cacheRead": 0.3, "cacheWrite": 3.75}  # US dollars per million tokens
MODELS_JSON = {
    "providers": {
        "anthropic": {
            "modelOverrides": {"claude-sonnet-4-5": {"cost": RATES, "promptCache": {"short": 300}}},
            "models": [{"id": "claude-sonnet-4-5", "contextWindow": 200_000}],
        }
    }
}
TURNS_BEFORE_COMPACTION = 12
BRANCH_AFTER_TURN = 14
TURNS = 16
SYSTEM_TOKENS = 3000  # the prompt and tools, as the first request's usage counts them
START_MS = 1768471200000


@dataclass(frozen=True)
class SampleWorkspace:
    folder: Path
    agent_dir: Path
    skill: Path
    agents_md: Path
    session: Path


def _entry_id(n: int) -> str:
    return f"{n:08x}"


def _iso(ms: int) -> str:
    seconds = (ms - START_MS) // 1000
    return f"2026-01-15T{10 + seconds // 3600:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}.000Z"


def _usage(prompt: int, output: int, *, cached: int) -> dict[str, Any]:
    """Usage as an Anthropic model reports it, with Pi's cost at :data:`RATES`: ``cached`` of the prompt
    read from the cache, the rest written to it."""
    written = prompt - cached
    cost = {
        "input": 0.0,
        "output": RATES["output"] / 1e6 * output,
        "cacheRead": RATES["cacheRead"] / 1e6 * cached,
        "cacheWrite": RATES["cacheWrite"] / 1e6 * written,
    }
    return {
        "input": 0,
        "output": output,
        "cacheRead": cached,
        "cacheWrite": written,
        "totalTokens": prompt + output,
        "cost": {**cost, "total": sum(cost.values())},
    }


class _SessionBuilder:
    """Writes the sample session: plain lines until the compaction, our session writer after it."""

    def __init__(self, path: Path, cwd: str) -> None:
        self.path = path
        self.n = 0
        self.parent: str | None = None
        self.context = SYSTEM_TOKENS  # what the next request carries (Pi's estimate after a compaction)
        self.cached = 0  # what the previous request left in the cache
        self.compacted = False
        header = {"type": "session", "version": 3, "id": SESSION_ID, "timestamp": _iso(START_MS), "cwd": cwd}
        path.write_text(json.dumps(header, separators=(",", ":")) + "\n", encoding="utf-8")

    def add(self, entry: dict[str, Any], ms: int) -> str:
        self.n += 1
        entry_id = _entry_id(self.n)
        line = {"type": entry["type"], "id": entry_id, "parentId": self.parent, "timestamp": _iso(ms)} | entry
        if self.compacted:
            snapshot = load_for_append(str(self.path)).snapshot
            assert snapshot is not None
            written = append_entry(str(self.path), line, snapshot)
            assert isinstance(written, AppendResult), written
        else:
            with self.path.open("a", encoding="utf-8") as out:
                out.write(json.dumps(line, separators=(",", ":")) + "\n")
        self.parent = entry_id
        return entry_id

    def reply(self, content: list[dict[str, Any]], output: int, stop: str, ms: int) -> str:
        usage = _usage(self.context, output, cached=min(self.cached, self.context))
        self.cached = self.context
        message = {
            "role": "assistant",
            "content": content,
            **MODEL,
            "usage": usage,
            "stopReason": stop,
            "timestamp": ms,
        }
        self.context += output
        return self.add({"type": "message", "message": message}, ms)

    def turn(self, number: int, minute: int, ask: str) -> str:
        at = START_MS + minute * 60_000
        text = f"Step {number}: {ask} for area {number}."
        user = {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": at}
        self.add({"type": "message", "message": user}, at)
        self.context += len(text) // 4 + 4
        call_id = f"toolu_{minute:04d}"
        call = {"type": "toolCall", "id": call_id, "name": "read", "arguments": {"path": f"docs/area{number}.md"}}
        self.reply(
            [{"type": "text", "text": f"Reading the checklist for area {number}."}, call], 40, "toolUse", at + 1000
        )
        body = "\n".join(
            f"- [ ] area {number} item {i}: verify the migration notes and the changelog entry" for i in range(300)
        )
        result = {
            "role": "toolResult",
            "toolCallId": call_id,
            "toolName": "read",
            "content": [{"type": "text", "text": body}],
            "isError": False,
            "timestamp": at + 2000,
        }
        self.add({"type": "message", "message": result}, at + 2000)
        self.context += len(body) // 4 + 20
        return self.reply(
            [{"type": "text", "text": f"Area {number} is updated: 300 items checked."}], 25, "stop", at + 3000
        )

    def compact(self) -> None:
        """pi-context's compaction (Pi's cut point, the offline summarizer), appended by the session writer."""
        plan = plan_compaction(load_for_append(str(self.path)), CompactionSettings())
        assert not isinstance(plan, str), plan
        outcome = asyncio.run(run_compaction(plan, OfflineSummarizer()))
        assert outcome.written is not None and outcome.entry is not None, outcome.failure
        self.parent = outcome.entry["id"]
        self.compacted = True
        session = load_session(self.path)
        projection = build_session_projection(session.entries, self.parent, session.index.by_id)
        self.context = SYSTEM_TOKENS + sum(estimate_tokens(m) for m in projection.messages if m.get("role") != "system")
        self.cached = 0  # the old cached prefix ended before the cut: the next request writes it anew


def write_session(path: Path, cwd: str) -> None:
    builder = _SessionBuilder(path, cwd)
    builder.add({"type": "session_info", "name": SESSION_NAME}, START_MS)
    for number in range(1, TURNS + 1):
        last = builder.turn(number, number, "update the release checklist")
        if number == TURNS_BEFORE_COMPACTION:
            builder.compact()
        if number == BRANCH_AFTER_TURN:
            # A first attempt at the next step, abandoned: the user went back to turn 14's reply.
            context, cached = builder.context, builder.cached
            builder.turn(number + 1, 40, "draft the announcement")
            builder.parent, builder.context, builder.cached = last, context, cached


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
    (agent_dir / "models.json").write_text(json.dumps(MODELS_JSON, indent=2) + "\n", encoding="utf-8")
    session = sessions / f"2026-01-15T10-00-00-000Z_{SESSION_ID}.jsonl"
    write_session(session, cwd)
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
    dir whose only model is the fake LLM at ``model_url`` (32k window, Sonnet's rates, a 5-minute
    cache), compaction keeping so few recent tokens that ``/compact`` after three turns has something
    to summarize."""
    folder = root / "chat-workspace"
    folder.mkdir(parents=True)
    (folder / "AGENTS.md").write_text(CHAT_AGENTS_MD, encoding="utf-8")
    notes = folder / "notes.txt"
    notes.write_text(NOTES, encoding="utf-8")
    agent = write_agent_dir(
        root / "chat-agent",
        model_url,
        settings={"defaultProvider": "fake", "compaction": {"keepRecentTokens": 10}},
        model_fields={"cost": RATES, "promptCache": {"short": 300}},  # the chat's price lines have something to say
    )
    return ChatWorkspace(folder=folder.resolve(), agent=agent, notes=notes)
