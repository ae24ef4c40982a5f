"""Long commands report $/progress and stop when cancelled, from the progress bar or the request."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcRequestCancelled

from tests.lsp.conftest import WAIT_S, Launch, Session


def values(session: Session, token: Any) -> list[Any]:
    return list(session.client.progress_reports.get(token, []))


def kinds(session: Session, token: Any) -> list[str]:
    return [value.kind for value in values(session, token)]


def only_token(session: Session) -> Any:
    (token,) = session.client.progress_reports
    return token


async def wait_for_first_report(session: Session) -> Any:
    await session.wait_for(
        types.PROGRESS,
        lambda: any("report" in kinds(session, token) for token in session.client.progress_reports),
    )
    return only_token(session)


async def test_a_long_command_reports_begin_each_step_and_end(launch: Launch, client_name: str) -> None:
    session = await launch(client_name)
    result = await session.command("pi.debug.sleep", {"steps": 3, "stepMs": 1})
    token = only_token(session)
    assert result == {"completed": 3, "progressToken": token}
    assert kinds(session, token) == ["begin", "report", "report", "report", "end"]
    begin, *reports, end = values(session, token)
    assert (begin.title, begin.cancellable) == ("pi-context: sleeping", True)
    assert [(r.message, r.percentage) for r in reports] == [("1/3", 33), ("2/3", 66), ("3/3", 100)]
    assert end.message == "Done"


async def test_the_clients_own_work_done_token_is_used(launch: Launch) -> None:
    session = await launch()
    session.client.progress_reports["from-client"] = []
    params = types.ExecuteCommandParams(
        command="pi.debug.sleep", arguments=[{"steps": 1, "stepMs": 1}], work_done_token="from-client"
    )
    result = await session.client.workspace_execute_command_async(params)
    assert result["progressToken"] == "from-client"
    assert kinds(session, "from-client") == ["begin", "report", "end"]


async def test_cancel_from_the_progress_bar_stops_the_command(launch: Launch, client_name: str) -> None:
    session = await launch(client_name)
    running = asyncio.ensure_future(session.command("pi.debug.sleep", {"steps": 10_000, "stepMs": 10}))
    token = await wait_for_first_report(session)
    session.client.window_work_done_progress_cancel(types.WorkDoneProgressCancelParams(token=token))
    with pytest.raises(JsonRpcRequestCancelled, match="cancelled by the user"):
        await asyncio.wait_for(running, WAIT_S)
    assert values(session, token)[-1].message == "Cancelled"
    assert (await session.state())["operations"] == 0


async def test_cancel_request_stops_the_command_not_just_the_answer(launch: Launch, client_name: str) -> None:
    session = await launch(client_name)
    params = types.ExecuteCommandParams(command="pi.debug.sleep", arguments=[{"steps": 10_000, "stepMs": 10}])
    answer = asyncio.ensure_future(
        session.client.protocol.send_request_async(types.WORKSPACE_EXECUTE_COMMAND, params, msg_id="long-1")
    )
    token = await wait_for_first_report(session)
    session.client.cancel_request(types.CancelParams(id="long-1"))
    with pytest.raises(JsonRpcRequestCancelled):
        await asyncio.wait_for(answer, WAIT_S)
    # pygls answers at once; the end of the progress proves the work itself stopped.
    await session.wait_for(types.PROGRESS, lambda: kinds(session, token)[-1] == "end")
    assert values(session, token)[-1].message == "Cancelled"
    assert (await session.state())["operations"] == 0
