"""``pi.compact`` / ``pi.branchSummary`` over stdio: progress, previews, and a byte-identical file after any failure."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcRequestCancelled

from tests.lsp._custom import SESSION_CHANGED, install_session, received, record
from tests.lsp.conftest import WAIT_S, Launch, Session, Workspace, plain
from tests.support.fake_llm_server import FakeLlmServer, ScriptedResponse

SUMMARY = "## Goal\nFix the KeyError.\n\n## Progress\n### Done\n- [x] Read the code\n"


@pytest.fixture
def llm() -> Iterator[FakeLlmServer]:
    with FakeLlmServer(default=ScriptedResponse(text=SUMMARY)) as server:
        yield server


def endpoint(server: FakeLlmServer) -> dict[str, Any]:
    summarizer = {"mode": "endpoint", "url": server.openai_base_url, "model": "summary-model", "retries": 0}
    return {"piContext": {"summarizer": summarizer}}


async def compact(lsp: Session, **args: Any) -> Any:
    return plain(await lsp.command("pi.compact", args))


def progress(session: Session) -> list[Any]:
    values: list[Any] = []
    for reports in session.client.progress_reports.values():
        values.extend(reports)
    return values


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


async def test_compact_with_the_offline_summarizer_appends_one_compaction_entry(
    launch: Launch, workspace: Workspace, client_name: str
) -> None:
    path = install_session(workspace)
    before = lines(path)
    session = await launch(client_name)
    record(session, SESSION_CHANGED)
    outcome = await compact(session, session=str(path))
    after = lines(path)
    assert after[:-1] == before
    entry = after[-1]
    assert outcome["entry"] == entry
    assert (entry["type"], entry["parentId"], entry["fromHook"]) == ("compaction", before[-1]["id"], False)
    assert outcome["written"] is True and outcome["previewOnly"] is False
    assert (outcome["summary"], outcome["summarizer"]) == (entry["summary"], "offline (extractive)")
    assert (outcome["firstKeptEntryId"], outcome["tokensBefore"]) == (entry["firstKeptEntryId"], entry["tokensBefore"])
    assert outcome["sessionSize"] == path.stat().st_size
    await session.wait_for(SESSION_CHANGED, lambda: bool(received(session, SESSION_CHANGED)))
    assert received(session, SESSION_CHANGED) == [
        {"session": str(path), "reason": "compaction", "entryId": entry["id"], "size": path.stat().st_size}
    ]
    kinds = [value.kind for value in progress(session)]
    assert kinds[0] == "begin" and kinds[-1] == "end" and "report" in kinds
    assert progress(session)[-1].message == "Done"


async def test_compact_against_a_loopback_model_reports_progress_and_writes_its_summary(
    launch: Launch, workspace: Workspace, llm: FakeLlmServer
) -> None:
    path = install_session(workspace)
    session = await launch(init_options=endpoint(llm))
    outcome = await compact(session, session=str(path), instructions="Keep the test counts.")
    assert outcome["summarizer"] == "openai/summary-model"
    assert outcome["summary"].startswith(SUMMARY)
    assert lines(path)[-1]["summary"] == outcome["summary"]
    history, _prefix = llm.requests  # the cut splits a turn: the history, then the turn's beginning
    assert "Additional focus: Keep the test counts." in json.dumps(history.body["messages"])
    begin, *reports, end = progress(session)
    assert begin.title == f"Compacting {path.name}"
    plan, *phases = [r.message for r in reports if "characters" not in r.message]
    assert plan.endswith(f" messages to summarize, keeping from {outcome['firstKeptEntryId']}")
    assert phases == [
        "summarizing history (openai/summary-model)",
        "summarizing turn prefix (openai/summary-model)",
        "writing (openai/summary-model)",
    ]
    assert end.message == "Done"


async def test_preview_only_writes_nothing(launch: Launch, workspace: Workspace) -> None:
    path = install_session(workspace)
    original = path.read_bytes()
    session = await launch()
    outcome = await compact(session, session=str(path), previewOnly=True)
    assert path.read_bytes() == original
    assert (outcome["written"], outcome["previewOnly"], outcome["sessionSize"]) == (False, True, len(original))
    assert outcome["entry"]["type"] == "compaction" and outcome["summary"]


async def test_applying_a_preview_writes_the_previewed_summary_without_asking_again(
    launch: Launch, workspace: Workspace, llm: FakeLlmServer
) -> None:
    path = install_session(workspace)
    llm.enqueue(ScriptedResponse(text="First answer."), ScriptedResponse(text="Second answer."))
    session = await launch(init_options=endpoint(llm))
    preview = await compact(session, session=str(path), previewOnly=True)
    asked = len(llm.requests)
    applied = await compact(session, session=str(path), expectedSize=preview["sessionSize"])
    assert len(llm.requests) == asked
    assert applied["fromPreview"] is True
    assert applied["summary"] == preview["summary"] == lines(path)[-1]["summary"]
    assert applied["summary"].startswith("First answer.")


async def test_the_expected_size_guard_refuses_when_the_file_grew(launch: Launch, workspace: Workspace) -> None:
    path = install_session(workspace)
    session = await launch()
    preview = await compact(session, session=str(path), previewOnly=True)
    with path.open("a", encoding="utf-8") as handle:  # the agent goes on meanwhile
        handle.write(
            json.dumps(
                {
                    "type": "session_info",
                    "id": "feed0001",
                    "parentId": lines(path)[-1]["id"],
                    "timestamp": "2025-06-02T10:00:00.000Z",
                    "name": "grown",
                }
            )
            + "\n"
        )
    grown = path.read_bytes()
    with pytest.raises(JsonRpcException) as caught:
        await compact(session, session=str(path), expectedSize=preview["sessionSize"])
    assert caught.value.code == -32803
    assert "changed since the preview" in caught.value.message and "nothing was written" in caught.value.message
    assert path.read_bytes() == grown


async def test_a_failing_model_writes_nothing_and_answers_an_error(
    launch: Launch, workspace: Workspace, llm: FakeLlmServer
) -> None:
    path = install_session(workspace)
    original = path.read_bytes()
    llm.enqueue(ScriptedResponse(status=500, body={"error": {"message": "upstream exploded"}}))
    session = await launch(init_options=endpoint(llm))
    with pytest.raises(JsonRpcException) as caught:
        await compact(session, session=str(path))
    assert caught.value.code == -32803
    assert caught.value.message.startswith("Summarization failed:")
    assert caught.value.message.endswith(f"nothing written to {path}")
    assert path.read_bytes() == original
    assert progress(session)[-1].message.startswith("Failed: ")


def slow_model() -> FakeLlmServer:
    return FakeLlmServer(default=ScriptedResponse(text="x" * 2000, chunks=["x" * 20] * 100, chunk_delay_s=0.05))


async def wait_mid_summary(session: Session) -> Any:
    """Until a report says characters have arrived: the model is streaming its answer."""

    def streaming() -> bool:
        return any("characters" in (getattr(v, "message", None) or "") for v in progress(session))

    await session.wait_for(types.PROGRESS, streaming)
    (token,) = session.client.progress_reports
    return token


async def test_cancel_from_the_progress_ui_mid_summary_leaves_the_file_byte_identical(
    launch: Launch, workspace: Workspace, client_name: str
) -> None:
    path = install_session(workspace)
    original = path.read_bytes()
    with slow_model() as llm:
        session = await launch(client_name, init_options=endpoint(llm))
        running = asyncio.ensure_future(compact(session, session=str(path)))
        token = await wait_mid_summary(session)
        session.client.window_work_done_progress_cancel(types.WorkDoneProgressCancelParams(token=token))
        with pytest.raises(JsonRpcRequestCancelled):
            await asyncio.wait_for(running, WAIT_S)
        assert llm.wait_for(lambda requests: requests[0].outcome != "pending")
        assert llm.requests[0].chunks_sent < 100  # the stream was dropped, not read to the end
    assert progress(session)[-1].message == "Cancelled"
    assert path.read_bytes() == original
    assert (await session.state())["operations"] == 0


async def test_cancel_request_mid_summary_leaves_the_file_byte_identical(
    launch: Launch, workspace: Workspace, client_name: str
) -> None:
    path = install_session(workspace)
    original = path.read_bytes()
    with slow_model() as llm:
        session = await launch(client_name, init_options=endpoint(llm))
        params = types.ExecuteCommandParams(command="pi.compact", arguments=[{"session": str(path)}])
        answer = asyncio.ensure_future(
            session.client.protocol.send_request_async(types.WORKSPACE_EXECUTE_COMMAND, params, msg_id="compact-1")
        )
        token = await wait_mid_summary(session)
        session.client.cancel_request(types.CancelParams(id="compact-1"))
        with pytest.raises(JsonRpcRequestCancelled):
            await asyncio.wait_for(answer, WAIT_S)
        # pygls answers the cancel at once: the end of the progress proves the work itself stopped.
        await session.wait_for(types.PROGRESS, lambda: session.client.progress_reports[token][-1].kind == "end")
    assert session.client.progress_reports[token][-1].message == "Cancelled"
    assert path.read_bytes() == original


async def test_closing_the_window_mid_summary_shuts_down_cleanly_and_writes_nothing(
    launch: Launch, workspace: Workspace
) -> None:
    """A ``shutdown`` while a compaction waits for its model answers without error (pygls cancelled the
    pending command while iterating over them and failed), and the session is left as it was."""
    path = install_session(workspace)
    original = path.read_bytes()
    with slow_model() as llm:
        session = await launch(init_options=endpoint(llm))
        running = asyncio.ensure_future(compact(session, session=str(path)))
        await wait_mid_summary(session)
        assert await asyncio.wait_for(session.client.shutdown_session(), WAIT_S) is None
        with pytest.raises(JsonRpcException):  # cancelled (or ended with the server): never an answer of success
            await asyncio.wait_for(running, WAIT_S)
    assert path.read_bytes() == original


async def test_branch_summary_appends_where_pi_puts_it(launch: Launch, workspace: Workspace) -> None:
    path = install_session(workspace)
    before = lines(path)
    session = await launch()
    record(session, SESSION_CHANGED)
    outcome = plain(
        await session.command("pi.branchSummary", {"session": str(path), "fromId": "4647f052", "toId": "9c947358"})
    )
    after = lines(path)
    assert after[:-1] == before
    entry = after[-1]
    assert (entry["type"], entry["parentId"], entry["fromId"]) == ("branch_summary", "9c947358", "4647f052")
    assert outcome["entry"] == entry and outcome["written"] is True
    await session.wait_for(SESSION_CHANGED, lambda: bool(received(session, SESSION_CHANGED)))
    assert received(session, SESSION_CHANGED)[0]["reason"] == "branchSummary"


async def test_branch_summary_says_pi_would_fail_naming_the_entry(launch: Launch, workspace: Workspace) -> None:
    entries = [
        {"type": "session", "version": 3, "id": "s1", "timestamp": "2025-01-01T00:00:00.000Z", "cwd": "/tmp"},
        {"type": "message", "id": "r1", "parentId": None, "timestamp": "2025-01-01T00:00:01.000Z",
         "message": {"role": "user", "content": "root", "timestamp": 1}},
        {"type": "message", "id": "a1", "parentId": "r1", "timestamp": "2025-01-01T00:00:02.000Z",
         "message": {"role": "user", "content": None, "timestamp": 2}},
    ]  # fmt: skip
    path = workspace.write("broken.jsonl", "".join(json.dumps(entry) + "\n" for entry in entries))
    original = path.read_bytes()
    session = await launch()
    with pytest.raises(JsonRpcException) as caught:
        await session.command("pi.branchSummary", {"session": str(path), "fromId": "a1", "toId": "r1"})
    assert caught.value.code == -32803
    assert caught.value.message == (
        f"Pi would fail on this session: content is not iterable (entry a1): nothing written to {path}"
    )
    assert path.read_bytes() == original


async def test_nothing_to_compact_is_an_error_naming_the_file(launch: Launch, workspace: Workspace) -> None:
    path = workspace.write(
        "tiny.jsonl",
        '{"type":"session","version":3,"id":"s1","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/tmp"}\n'
        '{"type":"message","id":"a1","parentId":null,"timestamp":"2025-01-01T00:00:01.000Z",'
        '"message":{"role":"user","content":"hi","timestamp":1}}\n',
    )
    original = path.read_bytes()
    session = await launch()
    with pytest.raises(JsonRpcException) as caught:
        await compact(session, session=str(path))
    assert caught.value.message == f"Nothing to compact (session too small): {path}"
    assert path.read_bytes() == original


async def test_bad_command_arguments_are_invalid_params(launch: Launch, workspace: Workspace) -> None:
    session = await launch()
    with pytest.raises(JsonRpcException) as caught:
        await session.command("pi.compact", {"previewOnly": True})
    assert (caught.value.code, caught.value.message) == (-32602, "pi.compact: session: Field required")
