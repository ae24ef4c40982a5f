"""What a running Pi 1.6.0 in RPC mode takes up of a change on disk, and which command makes it read again.

Each test is one rule of the table in docs/chat.md ("What Pi takes up, and when"), and the rules
behind every sentence the views print about a live chat (chat/live.py): the fake model's recorded
requests are the witness of the system prompt Pi really sent, and the session file of what it
recorded.

Pi reads its context files (AGENTS.md, SYSTEM.md, APPEND_SYSTEM.md, skills), its settings and its
project-trust decision when it builds a session runtime: at start, and again on ``new_session``,
``switch_session`` and ``fork`` (each builds a new runtime, ``core/agent-session-runtime.js``).
Nothing else re-reads them in RPC mode: RPC has no ``reload`` command (``/reload`` is interactive,
and an extension's ``ctx.reload()``). A trust decision is cached per folder for the life of the
process, so only a new Pi takes up a trust saved after it started.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from lsp_server.context.trust_record import TrustRecorded, record_trust
from lsp_server.pi_rpc import PiCommandError
from tests.pi_rpc.conftest import RealPi, Started, settled
from tests.support.fake_llm_server import FakeLlmServer, ScriptedResponse

pytestmark = pytest.mark.pi


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def system_messages(path: Path) -> list[dict[str, Any]]:
    return [e["message"] for e in lines(path) if e["type"] == "message" and e["message"]["role"] == "system"]


def sent_system(model: FakeLlmServer, index: int = -1) -> str:
    """The system prompt of a recorded request (``-1``: the last one)."""
    first = model.requests[index].body["messages"][0]
    assert first["role"] == "system"
    content = first["content"]
    return content if isinstance(content, str) else "".join(part["text"] for part in content)


async def turn(chat: Started, text: str) -> None:
    since = chat.log.mark()
    assert await chat.process.prompt(text) == "started"
    await settled(chat.log, since)


async def session_path(chat: Started) -> Path:
    return Path((await chat.process.get_state())["sessionFile"])


# --- the files the system prompt is built from -------------------------------------------------------


def _agents(pi: RealPi, text: str) -> str:
    (pi.workspace / "AGENTS.md").write_text(f"# Rules\n{text}\n", encoding="utf-8")
    return text


def _skill(pi: RealPi, text: str) -> str:
    skill = pi.agent.path / "skills" / "deploy" / "SKILL.md"
    skill.parent.mkdir(parents=True, exist_ok=True)
    skill.write_text(f"---\nname: deploy\ndescription: {text}\n---\nSteps.\n", encoding="utf-8")
    return text


def _system(pi: RealPi, text: str) -> str:
    (pi.agent.path / "SYSTEM.md").write_text(f"{text}\n", encoding="utf-8")
    return text


def _append_system(pi: RealPi, text: str) -> str:
    (pi.agent.path / "APPEND_SYSTEM.md").write_text(f"{text}\n", encoding="utf-8")
    return text


PROMPT_FILES: dict[str, Callable[[RealPi, str], str]] = {
    "AGENTS.md": _agents,
    "SKILL.md": _skill,
    "SYSTEM.md": _system,
    "APPEND_SYSTEM.md": _append_system,
}


@pytest.mark.parametrize("kind", list(PROMPT_FILES))
async def test_a_prompt_file_edited_while_pi_runs_is_not_read_before_the_next_request(
    real_pi: RealPi, kind: str
) -> None:
    write = PROMPT_FILES[kind]
    old = write(real_pi, "Version one of the rules.")
    real_pi.model.set_default(ScriptedResponse(text="ok"))
    chat = await real_pi.start()
    await turn(chat, "first")
    assert old in sent_system(real_pi.model)
    new = write(real_pi, "Version two, saved while Pi runs.")
    await turn(chat, "second")
    # The next request carries the prompt Pi read at start, byte for byte, and the session records no patch.
    assert sent_system(real_pi.model, -1) == sent_system(real_pi.model, 0)
    assert new not in sent_system(real_pi.model)
    assert len(system_messages(await session_path(chat))) == 1


async def test_settings_changed_while_pi_runs_are_not_read_compaction_uses_the_settings_read_at_start(
    real_pi: RealPi,
) -> None:
    real_pi.agent.write_settings({"compaction": {"keepRecentTokens": 20000}})  # all of this small session is recent
    real_pi.model.set_default(ScriptedResponse(text="an answer " * 20))
    chat = await real_pi.start()
    await turn(chat, "first question")
    await turn(chat, "second question")
    real_pi.agent.write_settings({"compaction": {"keepRecentTokens": 10}})  # would leave messages to summarize
    with pytest.raises(PiCommandError, match=r"Nothing to compact \(session too small\)"):
        await chat.process.compact()


async def test_retry_settings_changed_while_pi_runs_are_not_read(real_pi: RealPi) -> None:
    real_pi.agent.write_settings({"retry": {"baseDelayMs": 1}})
    real_pi.model.enqueue(ScriptedResponse(text="ok"))
    chat = await real_pi.start()
    await turn(chat, "first")
    real_pi.agent.write_settings({"retry": {"enabled": False, "baseDelayMs": 1}})
    real_pi.model.enqueue(
        ScriptedResponse(status=503, body={"error": {"message": "busy"}}), ScriptedResponse(text="ok")
    )
    since = chat.log.mark()
    await turn(chat, "second")
    # Retries were on when Pi started, so it retries although the file now turns them off.
    assert "auto_retry_start" in chat.log.types(since)
    assert chat.log.text_deltas(since) == "ok"


# --- what makes Pi read them again --------------------------------------------------------------------


async def test_new_session_reads_the_context_files_and_settings_again(real_pi: RealPi) -> None:
    _agents(real_pi, "Version one of the rules.")
    real_pi.agent.write_settings({"compaction": {"keepRecentTokens": 20000}})
    real_pi.model.set_default(ScriptedResponse(text="an answer " * 20))
    chat = await real_pi.start()
    await turn(chat, "first")
    _agents(real_pi, "Version two, saved while Pi runs.")
    real_pi.agent.write_settings({"compaction": {"keepRecentTokens": 10}})
    assert await chat.process.new_session() == {"cancelled": False}
    await turn(chat, "first in the new session")
    assert "Version two, saved while Pi runs." in sent_system(real_pi.model)
    await turn(chat, "second in the new session")
    result = await chat.process.compact()  # keepRecentTokens 10: the new runtime read it
    assert result["firstKeptEntryId"]


async def test_switch_session_to_its_own_file_reads_everything_again_and_records_the_changed_sections(
    real_pi: RealPi,
) -> None:
    _agents(real_pi, "Version one of the rules.")
    real_pi.agent.write_settings({"compaction": {"keepRecentTokens": 20000}})
    real_pi.model.set_default(ScriptedResponse(text="an answer " * 20))
    chat = await real_pi.start()
    await turn(chat, "first")
    path = await session_path(chat)
    _agents(real_pi, "Version two, saved while Pi runs.")
    real_pi.agent.write_settings({"compaction": {"keepRecentTokens": 10}})
    assert await chat.process.switch_session(str(path)) == {"cancelled": False}
    assert await session_path(chat) == path  # the same session, the same file
    await turn(chat, "second")
    assert "Version two, saved while Pi runs." in sent_system(real_pi.model)
    recorded = system_messages(path)
    assert len(recorded) == 2 and list(recorded[-1]["sections"]) == ["project_context"]
    assert "Version two" in recorded[-1]["sections"]["project_context"]
    result = await chat.process.compact()
    assert result["firstKeptEntryId"]  # the new keepRecentTokens


async def test_fork_reads_the_context_files_again(real_pi: RealPi) -> None:
    _agents(real_pi, "Version one of the rules.")
    real_pi.model.set_default(ScriptedResponse(text="ok"))
    chat = await real_pi.start()
    await turn(chat, "first")
    await turn(chat, "second")
    _agents(real_pi, "Version two, saved while Pi runs.")
    choices = await chat.process.get_fork_messages()
    await chat.process.fork(choices[-1]["entryId"])
    await turn(chat, "second, again")
    assert "Version two, saved while Pi runs." in sent_system(real_pi.model)


async def test_compact_set_model_and_set_thinking_level_do_not_read_the_files_again(real_pi: RealPi) -> None:
    from tests.support.pi_agent import write_agent_dir

    write_agent_dir(
        real_pi.agent.path,
        real_pi.model.openai_base_url,
        more_models=[{"id": "fake-2", "reasoning": True}],
        settings={"compaction": {"keepRecentTokens": 10}},
    )
    _agents(real_pi, "Version one of the rules.")
    real_pi.model.set_default(ScriptedResponse(text="an answer " * 20))
    chat = await real_pi.start()
    await turn(chat, "first")
    await turn(chat, "second")
    first_prompt = sent_system(real_pi.model, 0)
    _agents(real_pi, "Version two, saved while Pi runs.")
    await chat.process.compact()
    await chat.process.set_model("fake", "fake-2")
    await chat.process.set_thinking_level("high")
    await turn(chat, "third")
    assert real_pi.model.requests[-1].body["model"] == "fake-2"
    assert sent_system(real_pi.model) == first_prompt
    assert len(system_messages(await session_path(chat))) == 1


async def test_a_restart_on_the_same_session_reads_everything_again_and_records_the_changed_sections(
    real_pi: RealPi,
) -> None:
    _agents(real_pi, "Version one of the rules.")
    real_pi.model.set_default(ScriptedResponse(text="ok"))
    first = await real_pi.start()
    await turn(first, "first")
    path = await session_path(first)
    _agents(real_pi, "Version two, saved while Pi runs.")
    await first.process.close()
    second = await real_pi.start(session_file=path)
    await turn(second, "second")
    assert "Version two, saved while Pi runs." in sent_system(real_pi.model)
    assert list(system_messages(path)[-1]["sections"]) == ["project_context"]


# --- project trust ------------------------------------------------------------------------------------


def _project_skill(pi: RealPi) -> None:
    skill = pi.workspace / ".pi" / "skills" / "release" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text(
        "---\nname: release\ndescription: Cuts a release of this project.\n---\nSteps.\n", encoding="utf-8"
    )


async def test_rpc_mode_leaves_an_untrusted_projects_skills_out(real_pi: RealPi) -> None:
    _project_skill(real_pi)
    real_pi.model.set_default(ScriptedResponse(text="ok"))
    chat = await real_pi.start()
    await turn(chat, "first")
    assert "Cuts a release of this project." not in sent_system(real_pi.model)


async def test_trust_saved_as_pi_saves_it_is_taken_up_by_a_new_pi_and_not_by_switch_session(real_pi: RealPi) -> None:
    _project_skill(real_pi)
    real_pi.model.set_default(ScriptedResponse(text="ok"))
    chat = await real_pi.start()
    await turn(chat, "first")
    path = await session_path(chat)
    recorded = record_trust(str(real_pi.agent.path), str(real_pi.workspace))
    assert isinstance(recorded, TrustRecorded)
    store = json.loads((real_pi.agent.path / "trust.json").read_text(encoding="utf-8"))
    assert store == {str(real_pi.workspace.resolve()): True}
    # The running Pi decided trust for this folder once, at start, and keeps that decision.
    await chat.process.switch_session(str(path))
    await turn(chat, "second")
    assert "Cuts a release of this project." not in sent_system(real_pi.model)
    await chat.process.close()
    # A new Pi on the same session reads the store: it loads the project's skill and records it.
    again = await real_pi.start(session_file=path)
    await turn(again, "third")
    assert "Cuts a release of this project." in sent_system(real_pi.model)
    assert "Cuts a release of this project." in system_messages(path)[-1]["sections"]["skills"]


# --- what Pi says about itself -------------------------------------------------------------------------


async def test_get_session_stats_gives_the_context_tokens_pi_counts_and_none_after_a_compaction(
    real_pi: RealPi,
) -> None:
    real_pi.agent.write_settings({"compaction": {"keepRecentTokens": 10}})
    real_pi.model.set_default(ScriptedResponse(text="an answer " * 20, usage={"input": 700, "output": 60}))
    chat = await real_pi.start()
    await turn(chat, "first")
    await turn(chat, "second")
    stats = await chat.process.request({"type": "get_session_stats"})
    usage = stats["contextUsage"]
    assert usage["contextWindow"] == 32000 and usage["tokens"] == 760  # the last reply's usage, nothing after it
    await chat.process.compact()
    after = (await chat.process.request({"type": "get_session_stats"}))["contextUsage"]
    assert after["tokens"] is None and after["percent"] is None


# --- the queue and Stop ---------------------------------------------------------------------------------


def _user_texts(model: FakeLlmServer, index: int = -1) -> list[str]:
    return [
        part["text"]
        for message in model.requests[index].body["messages"]
        if message["role"] == "user"
        for part in message["content"]
    ]


async def test_abort_keeps_a_steering_message_queued_and_pi_sends_it_with_the_next_prompt(real_pi: RealPi) -> None:
    real_pi.model.enqueue(ScriptedResponse(text="half said", chunks=["half ", "said"], stall_after_chunks=1))
    real_pi.model.set_default(ScriptedResponse(text="ok"))
    chat = await real_pi.start()
    await chat.process.prompt("first")
    await chat.log.wait_for(lambda e: e.get("assistantMessageEvent", {}).get("type") == "text_delta")
    assert await chat.process.steer("steer this way") == "queued"
    await chat.process.abort()
    assert (await chat.process.get_state())["pendingMessageCount"] == 1
    await turn(chat, "an unrelated question")
    assert "steer this way" in _user_texts(real_pi.model, 1)  # what the issue saw: it outlives Stop


async def test_clear_queue_then_abort_gives_the_queued_texts_back_and_pi_never_sends_them(real_pi: RealPi) -> None:
    real_pi.model.enqueue(ScriptedResponse(text="half said", chunks=["half ", "said"], stall_after_chunks=1))
    real_pi.model.set_default(ScriptedResponse(text="ok"))
    chat = await real_pi.start()
    await chat.process.prompt("first")
    await chat.log.wait_for(lambda e: e.get("assistantMessageEvent", {}).get("type") == "text_delta")
    assert await chat.process.steer("steer this way") == "queued"
    assert await chat.process.prompt("and later this", streaming_behavior="followUp") == "queued"
    since = chat.log.mark()
    assert await chat.process.clear_queue() == {"steering": ["steer this way"], "followUp": ["and later this"]}
    assert await chat.log.wait_type("queue_update", since=since) == {
        "type": "queue_update",
        "steering": [],
        "followUp": [],
    }
    await chat.process.abort()
    assert (await chat.process.get_state())["pendingMessageCount"] == 0
    await turn(chat, "an unrelated question")
    assert len(real_pi.model.requests) == 2
    assert _user_texts(real_pi.model) == ["first", "an unrelated question"]
