"""The session through the real Pi: where it lives, compaction, fork, resume."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from lsp_server.pi_rpc import PiCommandError
from lsp_server.session.tail import load_session
from tests.pi_rpc.conftest import RealPi, Started, settled
from tests.support.fake_llm_server import ScriptedResponse
from tests.support.pi_agent import write_agent_dir
from tests.support.pi_for_tests import summary_focus_expected

pytestmark = pytest.mark.pi


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def session_folder_name(cwd: Path) -> str:
    return "--" + str(cwd).strip("/").replace("/", "-") + "--"


async def turn(chat: Started, text: str) -> None:
    since = chat.log.mark()
    assert await chat.process.prompt(text) == "started"
    await settled(chat.log, since)


async def test_the_session_file_lives_under_the_agent_dir_by_cwd_and_is_valid(real_pi: RealPi) -> None:
    real_pi.model.enqueue(ScriptedResponse(text="answer"))
    chat = await real_pi.start()
    path = Path(chat.process.initial_state["sessionFile"])  # type: ignore[index]
    assert path.parent == real_pi.agent.sessions / session_folder_name(real_pi.workspace)
    await turn(chat, "question")
    kinds = [e["message"]["role"] if e["type"] == "message" else e["type"] for e in lines(path)]
    assert kinds == ["session", "model_change", "thinking_level_change", "system", "user", "assistant"]
    session = load_session(path)
    assert session.is_session and session.problems == [] and not session.needs_newline
    assert lines(path)[0]["cwd"] == str(real_pi.workspace)


async def test_compact_with_instructions_asks_the_model_and_appends_a_compaction_entry(real_pi: RealPi) -> None:
    real_pi.agent.write_settings({"compaction": {"keepRecentTokens": 10}})
    real_pi.model.enqueue(
        ScriptedResponse(text="answer one"),
        ScriptedResponse(text="answer two"),
    )
    real_pi.model.set_default(ScriptedResponse(text="## Goal\nKeep the questions."))  # every summary call
    chat = await real_pi.start()
    await turn(chat, "first question")
    await turn(chat, "second question")
    path = Path((await chat.process.get_state())["sessionFile"])
    before = path.read_bytes()
    since = chat.log.mark()
    result = await chat.process.compact("Focus on the QUESTIONS asked")
    assert chat.log.types(since)[:2] == ["compaction_start", "compaction_end"]
    start, end = chat.log.events[since : since + 2]
    assert start == {"type": "compaction_start", "reason": "manual"}
    assert (end["reason"], end["aborted"], end["willRetry"], end["result"]) == ("manual", False, False, result)
    assert "## Goal\nKeep the questions." in result["summary"]
    summary_requests = real_pi.model.requests[2:]
    assert summary_requests, "Pi asked the model for the summary"
    for request in summary_requests:  # one, or two for a split turn (history and turn prefix)
        system, user = request.body["messages"]
        assert system["role"] == "system" and "summar" in system["content"] and user["role"] == "user"
        assert "tools" not in request.body
        focused = user["content"][0]["text"].endswith("\n\nAdditional focus: Focus on the QUESTIONS asked")
        assert focused == summary_focus_expected(request.body, real_pi.pi.version)  # a turn prefix: from 1.4.0
    after = path.read_bytes()
    assert after.startswith(before)  # appended, never rewritten
    entry = lines(path)[-1]
    assert entry["type"] == "compaction"
    assert (entry["summary"], entry["firstKeptEntryId"], entry["tokensBefore"]) == (
        result["summary"],
        result["firstKeptEntryId"],
        result["tokensBefore"],
    )
    assert load_session(path).problems == []
    # The next request starts from the summary instead of the old turns.
    real_pi.model.enqueue(ScriptedResponse(text="after compaction"))
    await turn(chat, "third question")
    messages = real_pi.model.requests[-1].body["messages"]
    assert result["summary"] in messages[1]["content"][0]["text"]


async def test_fork_from_an_earlier_user_entry_starts_a_new_session_file(real_pi: RealPi) -> None:
    real_pi.model.enqueue(*(ScriptedResponse(text=f"answer {n}") for n in range(4)))
    chat = await real_pi.start()
    await turn(chat, "first question")
    await turn(chat, "second question")
    original = Path((await chat.process.get_state())["sessionFile"])
    original_bytes = original.read_bytes()
    choices = await chat.process.get_fork_messages()
    assert [c["text"] for c in choices] == ["first question", "second question"]
    forked = await chat.process.fork(choices[1]["entryId"])
    assert forked == {"text": "second question", "cancelled": False}
    fork_path = Path((await chat.process.get_state())["sessionFile"])
    assert fork_path != original and fork_path.parent == original.parent
    old, new = lines(original), lines(fork_path)
    # The fork holds the branch up to the forked user entry (same entries, same ids), under a new header.
    second_user = next(i for i, e in enumerate(old) if e.get("id") == choices[1]["entryId"])
    assert new[0]["parentSession"] == str(original) and new[0]["id"] != old[0]["id"]
    assert new[1:] == old[1:second_user]
    await turn(chat, "second question, reworded")
    assert original.read_bytes() == original_bytes  # the original session is untouched
    added = lines(fork_path)[second_user]
    assert added["message"]["content"] == [{"type": "text", "text": "second question, reworded"}]
    assert added["parentId"] == old[second_user]["parentId"]
    sent = real_pi.model.requests[-1].body["messages"]
    assert [m["role"] for m in sent] == ["system", "user", "assistant", "user"]
    assert load_session(fork_path).problems == []


async def test_a_fork_before_any_answer_is_written_only_with_its_first_message(real_pi: RealPi) -> None:
    real_pi.model.enqueue(ScriptedResponse(text="answer"), ScriptedResponse(text="answer again"))
    chat = await real_pi.start()
    await turn(chat, "only question")
    (choice,) = await chat.process.get_fork_messages()
    assert (await chat.process.fork(choice["entryId"]))["text"] == "only question"
    state = await chat.process.get_state()
    fork_path = Path(state["sessionFile"])
    assert not fork_path.exists() and state["messageCount"] == 1  # the system message only
    await turn(chat, "a different question")
    kinds = [e["message"]["role"] if e["type"] == "message" else e["type"] for e in lines(fork_path)]
    assert kinds == ["session", "model_change", "thinking_level_change", "system", "user", "assistant"]


async def test_resume_with_session_continues_the_conversation_in_the_same_file(real_pi: RealPi) -> None:
    real_pi.model.enqueue(ScriptedResponse(text="first answer"), ScriptedResponse(text="second answer"))
    first = await real_pi.start()
    await turn(first, "first question")
    path = Path((await first.process.get_state())["sessionFile"])
    await first.process.close()
    before = path.read_bytes()
    second = await real_pi.start(session_file=path)
    assert second.process.initial_state is not None and second.process.initial_state["sessionFile"] == str(path)
    history = await second.process.get_messages()
    assert [m["role"] for m in history] == ["system", "user", "assistant"]
    await turn(second, "second question")
    sent = real_pi.model.requests[-1].body["messages"]
    assert [m["role"] for m in sent] == ["system", "user", "assistant", "user"]
    assert sent[2] == {"role": "assistant", "content": "first answer"}
    assert path.read_bytes().startswith(before)  # appended to, not rewritten
    assert [e["type"] for e in lines(path)].count("session") == 1
    assert load_session(path).problems == []


async def test_a_session_path_that_does_not_exist_yet_becomes_the_new_sessions_file(
    real_pi: RealPi, tmp_path: Path
) -> None:
    real_pi.model.enqueue(ScriptedResponse(text="answer"))
    wanted = tmp_path / "chosen" / "chat.jsonl"
    chat = await real_pi.start(session_file=wanted)
    assert chat.process.initial_state is not None and chat.process.initial_state["sessionFile"] == str(wanted)
    await turn(chat, "question")
    assert lines(wanted)[0]["type"] == "session"


async def test_model_thinking_and_session_commands(real_pi: RealPi) -> None:
    write_agent_dir(
        real_pi.agent.path, real_pi.model.openai_base_url, more_models=[{"id": "fake-2", "reasoning": True}]
    )
    real_pi.model.set_default(ScriptedResponse(text="answer"))
    chat = await real_pi.start()
    assert [m["id"] for m in await chat.process.get_available_models()] == ["fake-1", "fake-2"]
    await turn(chat, "on the first model")
    first_file = Path((await chat.process.get_state())["sessionFile"])
    chosen = await chat.process.set_model("fake", "fake-2")
    assert (chosen["id"], chosen["reasoning"]) == ("fake-2", True)
    await chat.process.set_thinking_level("high")
    state = await chat.process.get_state()
    assert (state["model"]["id"], state["thinkingLevel"]) == ("fake-2", "high")
    await turn(chat, "on the second model")
    assert real_pi.model.requests[-1].body["model"] == "fake-2"
    entries = lines(first_file)
    assert [e["type"] for e in entries if e["type"] in ("model_change", "thinking_level_change")][-2:] == [
        "model_change",
        "thinking_level_change",
    ]
    # get_entries(since) is a cursor: everything strictly after that entry, and the leaf.
    everything = await chat.process.get_entries()
    cursor = everything["entries"][2]["id"]
    after = await chat.process.get_entries(cursor)
    assert after["entries"] == everything["entries"][3:] and after["leafId"] == everything["entries"][-1]["id"]
    with pytest.raises(PiCommandError, match="Entry not found"):
        await chat.process.get_entries("no-such-entry")
    # A new session, then back to the first one.
    assert await chat.process.new_session() == {"cancelled": False}
    state = await chat.process.get_state()
    assert state["sessionFile"] != str(first_file) and state["messageCount"] == 0
    assert await chat.process.switch_session(str(first_file)) == {"cancelled": False}
    assert [m["role"] for m in await chat.process.get_messages()][-2:] == ["user", "assistant"]
    assert (await chat.process.get_state())["sessionFile"] == str(first_file)
