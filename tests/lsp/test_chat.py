"""Chats with the real Pi through the real language server, with the fake model as the witness.

The server runs over stdio (pytest-lsp), starts the real Pi (1.6.0, or the release CI's matrix
selects) in RPC mode in the workspace folder, and Pi streams from the loopback model server, which
records every request body Pi sends. So each test sees three real parties agree: what the client
receives (``pi/chat/event`` exactly as Pi emitted it), what Pi wrote (the session file) and what Pi
sent (the witness).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import ClientServerConfig, client_capabilities

from lsp_server.pi_rpc.capabilities import FEATURES
from lsp_server.pi_rpc.keeper_files import RUNTIME_DIR_ENV
from lsp_server.session.tail import load_session
from lsp_server.vocabulary.pi_releases import rules_for
from tests.lsp.conftest import SERVER_COMMAND, WAIT_S, RecordingClient, Workspace, make_client, plain
from tests.support.fake_llm_server import FakeLlmServer, ScriptedResponse
from tests.support.pi_agent import PiAgentDir, write_agent_dir
from tests.support.pi_for_tests import PiUnderTest, require_test_pi, settled_event, summary_focus_expected
from tests.support.processes import parent_of, pi_processes

pytestmark = pytest.mark.pi


@dataclass
class ChatClient:
    """The client side of one server: requests, and every chat notification in arrival order."""

    client: RecordingClient
    workspace: Workspace
    agent: PiAgentDir
    events: list[dict[str, Any]] = field(default_factory=list)  # (chatId, event) params of pi/chat/event
    exits: list[dict[str, Any]] = field(default_factory=list)
    notices: list[dict[str, Any]] = field(default_factory=list)
    drifts: list[dict[str, Any]] = field(default_factory=list)  # pi/chat/drift params
    session_changes: list[dict[str, Any]] = field(default_factory=list)
    changed: asyncio.Event = field(default_factory=asyncio.Event)

    async def ask(self, method: str, params: Any) -> Any:
        return plain(await self.client.protocol.send_request_async(method, params))

    async def command(self, name: str, *arguments: Any) -> Any:
        params = types.ExecuteCommandParams(command=name, arguments=list(arguments))
        return plain(await self.client.workspace_execute_command_async(params))

    def mark(self) -> int:
        return len(self.events)

    def kinds(self, chat_id: str, since: int = 0) -> list[str]:
        return [e["event"]["type"] for e in self.events[since:] if e["chatId"] == chat_id]

    async def wait(self, condition: Callable[[], Any], timeout: float = WAIT_S) -> Any:
        """Wait until ``condition()`` holds: re-checked on every message from the server, and every 50 ms
        for conditions on the world outside it (a file a tool writes) that no message announces."""
        async with asyncio.timeout(timeout):
            while not (found := condition()):
                self.changed.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self.changed.wait(), 0.05)
            return found

    async def event(self, chat_id: str, kind: str, since: int = 0) -> dict[str, Any]:
        def find() -> dict[str, Any] | None:
            for item in self.events[since:]:
                if item["chatId"] == chat_id and item["event"].get("type") == kind:
                    return dict(item["event"])
            return None

        found: dict[str, Any] = await self.wait(find)
        return found

    async def turn(self, chat_id: str, text: str) -> dict[str, Any]:
        since = self.mark()
        answer = await self.ask("pi/chat/prompt", {"chatId": chat_id, "text": text})
        assert answer == {"disposition": "started"}
        return await self.event(chat_id, "agent_settled", since)

    def text(self, chat_id: str, since: int = 0) -> str:
        return "".join(
            e["event"]["assistantMessageEvent"]["delta"]
            for e in self.events[since:]
            if e["chatId"] == chat_id
            and e["event"]["type"] == "message_update"
            and e["event"]["assistantMessageEvent"].get("type") == "text_delta"
        )


@pytest.fixture(scope="session")
def pi_under_test() -> PiUnderTest:
    return require_test_pi()


@pytest.fixture
def model() -> Iterator[FakeLlmServer]:
    with FakeLlmServer() as server:
        yield server


@pytest_asyncio.fixture
async def chat_server(
    workspace: Workspace, pi_under_test: PiUnderTest, model: FakeLlmServer, keepers_folder: Path
) -> AsyncIterator[Callable[..., Any]]:
    """``await chat_server(settings=...)``: the real server, its Pi pointed at the fake model."""
    started: list[RecordingClient] = []

    async def start(
        settings: dict[str, Any] | None = None,
        command: str | None = None,
        model_fields: dict[str, Any] | None = None,
        extra_env: dict[str, str] | None = None,
    ) -> ChatClient:
        agent = write_agent_dir(
            workspace.agent_dir, model.openai_base_url, settings={"defaultProvider": "fake"}, model_fields=model_fields
        )
        env = agent.env({k: v for k, v in os.environ.items() if k != "HOME"})
        env["HOME"] = str(workspace.home)
        env[RUNTIME_DIR_ENV] = str(keepers_folder.parent)
        env.update(extra_env or {})
        pi_command = command if command is not None else f"{pi_under_test.argv[0]} {pi_under_test.argv[1]}"
        extra = dict(settings or {})
        options = {**extra, "pi": {"command": pi_command, **extra.get("pi", {})}}
        config = ClientServerConfig(server_command=SERVER_COMMAND, client_factory=make_client, server_env=env)
        client = await config.start()
        assert isinstance(client, RecordingClient)
        started.append(client)
        chat = ChatClient(client, workspace, agent)

        def keep(bucket: list[dict[str, Any]]) -> Callable[[Any, Any], None]:
            def handler(ls: Any, params: Any) -> None:
                bucket.append(plain(params))
                chat.changed.set()

            return handler

        client.feature("pi/chat/event")(keep(chat.events))
        client.feature("pi/chat/exited")(keep(chat.exits))
        client.feature("pi/chat/notice")(keep(chat.notices))
        client.feature("pi/chat/drift")(keep(chat.drifts))
        client.feature("pi/sessionChanged")(keep(chat.session_changes))
        client.set_configuration({"piContext": options})
        await client.initialize_session(
            types.InitializeParams(
                capabilities=client_capabilities("visual-studio-code"),
                root_uri=workspace.uri(workspace.root),
                workspace_folders=[types.WorkspaceFolder(uri=workspace.uri(workspace.root), name="ws")],
                initialization_options=options,
            )
        )
        return chat

    yield start

    for client in started:
        try:
            if not client.stopped:
                await asyncio.wait_for(client.shutdown_session(), WAIT_S)
        finally:
            await client.stop()


def entries(path: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines()]


async def test_a_turn_streams_through_the_server_with_a_read_tool_call(
    chat_server: Callable[..., Any], model: FakeLlmServer, workspace: Workspace, pi_under_test: PiUnderTest
) -> None:
    workspace.write("notes.txt", "line one\nline two\n")
    model.enqueue(
        ScriptedResponse(
            tool_calls=[{"name": "read", "arguments": {"path": "notes.txt"}, "id": "call_1"}], finish="tool"
        ),
        ScriptedResponse(text="The file has two lines."),
    )
    client = await chat_server()
    info = await client.ask("pi/chat/start", {})
    chat_id = info["chatId"]
    assert info["cwd"] == str(workspace.root) and info["piVersion"] == pi_under_test.version
    # What this Pi supports: every feature but those the release lacks (pi_releases.CHANGES), each said once.
    rules = rules_for(pi_under_test.version)
    off = {f["id"] for f in info["capabilities"]["features"] if not f["available"]}
    assert off == {f.id for f in FEATURES if f.change is not None and rules.lacks(f.change)}
    settled = await client.turn(chat_id, "Read notes.txt")
    assert settled == settled_event(pi_under_test.version, aborted=False)
    kinds = client.kinds(chat_id)
    assert kinds[0] == "agent_start" and "tool_execution_start" in kinds and kinds[-1] == "agent_settled"
    tool_end = await client.event(chat_id, "tool_execution_end")
    assert tool_end["toolName"] == "read" and tool_end["isError"] is False
    assert client.text(chat_id) == "The file has two lines."
    state = await client.ask("pi/chat/state", {"chatId": chat_id})
    session = state["session"]
    assert session and Path(session).is_file() and state["streaming"] is False
    # The lens follows: the server said the session changed, and the file is a valid session.
    await client.wait(lambda: any(c["session"] == session and c["reason"] == "chat" for c in client.session_changes))
    loaded = load_session(session)
    assert loaded.is_session and loaded.problems == []
    roles = [e["message"]["role"] for e in entries(session) if e["type"] == "message"]
    assert roles == ["system", "user", "assistant", "toolResult", "assistant"]


async def test_the_projected_request_is_what_pi_sends_next_and_the_budget_uses_pis_usage(
    chat_server: Callable[..., Any], model: FakeLlmServer, workspace: Workspace
) -> None:
    workspace.write("AGENTS.md", "# Rules\nAnswer briefly.\n")
    model.enqueue(ScriptedResponse(text="First answer.", usage={"input": 1200, "output": 30}))
    model.enqueue(ScriptedResponse(text="Second answer."))
    client = await chat_server()
    chat_id = (await client.ask("pi/chat/start", {}))["chatId"]
    await client.turn(chat_id, "first question")
    session = (await client.ask("pi/chat/state", {"chatId": chat_id}))["session"]
    projected = await client.ask("pi/projectedRequest", {"session": session})
    budget = await client.ask("pi/contextBudget", {"session": session})
    assert budget["contextTokensSource"] == "usage"
    assert budget["contextTokens"] == 1230  # Pi's usage of the last answer (input + output), nothing after it
    await client.turn(chat_id, "second question")
    sent = model.requests[1].body["messages"]  # the witness: what Pi really sent for the second prompt
    assert sent[0] == {"role": "system", "content": projected["system"]["rendered"]}
    assert [m["role"] for m in sent[1:-1]] == [m["role"] for m in projected["messages"]]
    assert [_text_of(m) for m in sent[1:-1]] == [m["text"] for m in projected["messages"]]
    assert _text_of(sent[-1]) == "second question"


def _text_of(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    return "".join(part.get("text", "") for part in content or [] if isinstance(part, dict))


async def test_abort_mid_stream_and_steering_while_pi_works(
    chat_server: Callable[..., Any], model: FakeLlmServer, pi_under_test: PiUnderTest
) -> None:
    model.enqueue(ScriptedResponse(text="a long answer that the user stops " * 4, hold_after_chunks=1))
    client = await chat_server()
    chat_id = (await client.ask("pi/chat/start", {}))["chatId"]
    since = client.mark()
    assert (await client.ask("pi/chat/prompt", {"chatId": chat_id, "text": "go"}))["disposition"] == "started"
    await asyncio.to_thread(model.wait_until_held, 0)
    await client.ask("pi/chat/abort", {"chatId": chat_id})
    settled = await client.event(chat_id, "agent_settled", since)
    assert settled == settled_event(pi_under_test.version, aborted=True)
    assert (await client.ask("pi/chat/state", {"chatId": chat_id}))["streaming"] is False

    # The aborted reply stays in the file but is not sent again: the projection says so, the witness agrees.
    session = (await client.ask("pi/chat/state", {"chatId": chat_id}))["session"]
    projected = await client.ask("pi/projectedRequest", {"session": session})
    assert [m["role"] for m in projected["messages"]] == ["user"]
    model.enqueue(ScriptedResponse(text="working on it " * 4, hold_after_chunks=1), ScriptedResponse(text="steered"))
    since = client.mark()
    await client.ask("pi/chat/prompt", {"chatId": chat_id, "text": "start"})
    await asyncio.to_thread(model.wait_until_held, 1)
    sent_after_abort = model.requests[1].body["messages"]
    assert sent_after_abort[0] == {"role": "system", "content": projected["system"]["rendered"]}
    assert [_text_of(m) for m in sent_after_abort[1:-1]] == [m["text"] for m in projected["messages"]]
    steer = {"chatId": chat_id, "text": "use tabs instead", "streamingBehavior": "steer"}
    assert (await client.ask("pi/chat/prompt", steer))["disposition"] == "queued"
    with pytest.raises(JsonRpcException, match="Pi: "):  # Pi refuses a plain prompt while it works
        await client.ask("pi/chat/prompt", {"chatId": chat_id, "text": "no behavior"})
    model.release(1)
    await client.event(chat_id, "agent_settled", since)
    steered = model.requests[2].body["messages"]
    assert _text_of(steered[-1]) == "use tabs instead"


async def test_compact_previews_pis_cut_point_then_pi_writes_the_summary(
    chat_server: Callable[..., Any], model: FakeLlmServer, workspace: Workspace, pi_under_test: PiUnderTest
) -> None:
    client = await chat_server()
    client.agent.write_settings({"defaultProvider": "fake", "compaction": {"keepRecentTokens": 10}})
    model.enqueue(ScriptedResponse(text="answer one"), ScriptedResponse(text="answer two"))
    model.set_default(ScriptedResponse(text="## Goal\nKeep the questions."))
    chat_id = (await client.ask("pi/chat/start", {}))["chatId"]
    await client.turn(chat_id, "first question")
    await client.turn(chat_id, "second question")
    session = (await client.ask("pi/chat/state", {"chatId": chat_id}))["session"]
    preview = await client.ask("pi/chat/compactPreview", {"chatId": chat_id})
    # Compact Session on the held session previews the same plan (Pi will write the summary).
    planned = await client.command("pi.compact", {"session": session, "previewOnly": True})
    assert planned["chatId"] == chat_id and planned["plan"] == preview
    before = Path(session).read_bytes()
    result = await client.ask("pi/chat/compact", {"chatId": chat_id, "instructions": "Focus on the questions"})
    assert result["firstKeptEntryId"] == preview["firstKeptEntryId"]  # our cut point is Pi's
    assert result["tokensBefore"] == preview["tokensBefore"]
    after = Path(session).read_bytes()
    assert after.startswith(before)  # appended, never rewritten
    written = entries(session)[-1]
    assert written["type"] == "compaction" and written["firstKeptEntryId"] == preview["firstKeptEntryId"]
    last = model.requests[-1].body  # the last summary call: focused unless a turn prefix of a Pi before 1.4.0
    assert ("Focus on the questions" in json.dumps(last)) == summary_focus_expected(last, pi_under_test.version)


async def test_fork_resume_and_one_writer_per_session(chat_server: Callable[..., Any], model: FakeLlmServer) -> None:
    model.set_default(ScriptedResponse(text="an answer"))
    client = await chat_server()
    chat_id = (await client.ask("pi/chat/start", {}))["chatId"]
    await client.turn(chat_id, "first question")
    await client.turn(chat_id, "second question")
    original = (await client.ask("pi/chat/state", {"chatId": chat_id}))["session"]
    with pytest.raises(JsonRpcException, match="already open in chat"):
        await client.ask("pi/chat/start", {"session": original})
    points = (await client.ask("pi/chat/forkPoints", {"chatId": chat_id}))["messages"]
    assert [p["text"] for p in points] == ["first question", "second question"]
    forked = await client.ask("pi/chat/fork", {"chatId": chat_id, "entryId": points[1]["entryId"]})
    assert forked["text"] == "second question" and forked["session"] != original
    await client.turn(chat_id, "second question, edited")
    tree = await client.ask("pi/sessionTree", {"session": forked["session"]})
    assert any(node["preview"] == "second question, edited" for node in tree["nodes"])
    # The original is no longer held: a new chat resumes it, and Pi continues the same file.
    resumed = await client.ask("pi/chat/start", {"session": original})
    size = Path(original).stat().st_size
    await client.turn(resumed["chatId"], "third question")
    assert Path(original).stat().st_size > size
    roles = [e["message"]["role"] for e in entries(original) if e["type"] == "message"]
    assert roles[-2:] == ["user", "assistant"]
    # Every file written here loads in pi-context session.
    for path in (original, forked["session"]):
        done = subprocess.run(
            [sys.executable, "-m", "lsp_server", "session", path, "--json"], capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["session"]["problems"] == []


async def test_pi_killed_mid_turn_is_reported_and_leaves_a_valid_session_and_no_process(
    chat_server: Callable[..., Any], model: FakeLlmServer, workspace: Workspace
) -> None:
    model.enqueue(ScriptedResponse(text="first"), ScriptedResponse(text="never finished " * 8, hold_after_chunks=1))
    client = await chat_server()
    chat_id = (await client.ask("pi/chat/start", {}))["chatId"]
    await client.turn(chat_id, "first question")
    session = (await client.ask("pi/chat/state", {"chatId": chat_id}))["session"]
    await client.ask("pi/chat/prompt", {"chatId": chat_id, "text": "second question"})
    await asyncio.to_thread(model.wait_until_held, 1)
    (pid,) = pi_processes(client.agent.path)
    os.kill(pid, signal.SIGKILL)
    exited = await client.wait(lambda: next((e for e in client.exits if e["chatId"] == chat_id), None))
    assert exited["expected"] is False and exited["code"] == -signal.SIGKILL and exited["session"] == session
    assert pi_processes(client.agent.path) == []
    with pytest.raises(JsonRpcException, match="no chat"):
        await client.ask("pi/chat/prompt", {"chatId": chat_id, "text": "anyone?"})
    loaded = load_session(session)
    assert loaded.is_session and [p.code for p in loaded.problems] in ([], ["truncated-line"])
    model.release()
    restarted = await client.ask("pi/chat/start", {"session": session})  # the restart resumes the session
    assert restarted["session"] == session
    projected = await client.ask("pi/projectedRequest", {"session": session})
    model.set_default(ScriptedResponse(text="resumed"))
    count = len(model.requests)
    await client.turn(restarted["chatId"], "third question")
    sent = model.requests[count].body["messages"]  # what Pi sent after the crash, as projected before it
    assert sent[0] == {"role": "system", "content": projected["system"]["rendered"]}
    assert [(m["role"], _text_of(m)) for m in sent[1:-1]] == [(m["role"], m["text"]) for m in projected["messages"]]


async def test_stopping_and_shutting_down_leave_no_pi_process(
    chat_server: Callable[..., Any], model: FakeLlmServer
) -> None:
    model.set_default(ScriptedResponse(text="ok"))
    client = await chat_server()
    first = (await client.ask("pi/chat/start", {}))["chatId"]
    await client.ask("pi/chat/start", {})
    assert len(pi_processes(client.agent.path)) == 2
    await client.ask("pi/chat/stop", {"chatId": first})
    exited = await client.wait(lambda: next((e for e in client.exits if e["chatId"] == first), None))
    assert exited["expected"] is True
    assert len(pi_processes(client.agent.path)) == 1
    await asyncio.wait_for(client.client.shutdown_session(), WAIT_S)
    assert pi_processes(client.agent.path) == []


async def test_without_pi_the_chat_says_so_and_everything_else_works(
    chat_server: Callable[..., Any], workspace: Workspace, tmp_path: Path
) -> None:
    workspace.write("AGENTS.md", "# Rules\n")
    client = await chat_server(command=str(tmp_path / "no-such-pi"))
    located = await client.ask("pi/chat/locate", {})
    assert located["found"] is False and located["installCommand"] == "npm install -g @earendil-works/pi-coding-agent"
    with pytest.raises(JsonRpcException) as caught:
        await client.ask("pi/chat/start", {})
    assert str(caught.value) == located["message"] or located["message"] in str(caught.value)
    prompt = await client.ask("pi/systemPrompt", {})
    assert any(section["name"] == "project_context" for section in prompt["sections"])


async def test_preflight_warns_before_a_prompt_that_crosses_the_compaction_threshold(
    chat_server: Callable[..., Any], model: FakeLlmServer
) -> None:
    client = await chat_server()
    client.agent.write_settings({"defaultProvider": "fake", "compaction": {"reserveTokens": 30000}})
    model.set_default(ScriptedResponse(text="ok", usage={"input": 1500, "output": 10}))
    chat_id = (await client.ask("pi/chat/start", {}))["chatId"]
    await client.turn(chat_id, "hello")
    small = await client.ask("pi/chat/preflight", {"chatId": chat_id, "text": "a short one"})
    assert small["crossesThreshold"] is False and small["threshold"] == 32000 - 30000
    big = await client.ask("pi/chat/preflight", {"chatId": chat_id, "text": "x" * 4000})
    assert big["afterPrompt"] == big["contextTokens"] + 1000
    assert big["crossesThreshold"] is True and "Pi will compact after the reply" in big["message"]


async def test_a_tool_call_cut_off_by_a_crash_is_projected_with_pis_synthetic_result(
    chat_server: Callable[..., Any], model: FakeLlmServer
) -> None:
    model.enqueue(
        ScriptedResponse(
            tool_calls=[{"name": "bash", "arguments": {"command": "sleep 600"}, "id": "call_long"}], finish="tool"
        )
    )
    client = await chat_server()
    chat_id = (await client.ask("pi/chat/start", {}))["chatId"]
    since = client.mark()
    await client.ask("pi/chat/prompt", {"chatId": chat_id, "text": "run the long job"})
    await client.event(chat_id, "tool_execution_start", since)
    session = (await client.ask("pi/chat/state", {"chatId": chat_id}))["session"]
    owned = pi_processes(client.agent.path)
    (main_pid,) = [pid for pid in owned if parent_of(pid) not in owned]  # Pi itself, not its tool's shell
    os.kill(main_pid, signal.SIGKILL)
    await client.wait(lambda: any(e["chatId"] == chat_id for e in client.exits))
    assert pi_processes(client.agent.path) == []  # the tool's shell went with it
    projected = await client.ask("pi/projectedRequest", {"session": session})
    synthetic = projected["messages"][-1]
    assert (synthetic["role"], synthetic["text"], synthetic.get("entryId")) == (
        "toolResult",
        "No result provided",
        None,
    )
    restarted = await client.ask("pi/chat/start", {"session": session})
    model.set_default(ScriptedResponse(text="the job was cut off"))
    count = len(model.requests)
    await client.turn(restarted["chatId"], "what happened?")
    sent = model.requests[count].body["messages"]
    assert sent[-2] == {"role": "tool", "content": "No result provided", "tool_call_id": "call_long"}
    assert [m["role"] for m in sent[1:-1]] == [
        {"toolResult": "tool"}.get(m["role"], m["role"]) for m in projected["messages"]
    ]
