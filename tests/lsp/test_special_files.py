"""The server on special and huge session files: an error answer at once, never a blocked worker."""

from __future__ import annotations

import os
import re
from typing import Any

import pytest
from pygls.exceptions import JsonRpcInvalidParams

from tests.lsp._custom import install_session
from tests.lsp.conftest import Launch, Session, Workspace, plain


async def request(session: Session, method: str, params: Any) -> Any:
    return plain(await session.client.protocol.send_request_async(method, params))


async def test_a_fifo_in_the_sessions_folder_is_left_out_of_the_list(launch: Launch, workspace: Workspace) -> None:
    real = install_session(workspace)
    fifo = real.with_name("live.jsonl")
    os.mkfifo(fifo)
    session = await launch()
    listed = await request(session, "pi/sessions", {})
    assert [s["path"] for s in listed["sessions"]] == [str(real)]


@pytest.mark.parametrize("method", ["pi/contextBudget", "pi/projectedRequest", "pi/sessionTree"])
async def test_a_fifo_or_a_device_given_as_the_session_is_invalid_params(
    launch: Launch, workspace: Workspace, method: str
) -> None:
    fifo = workspace.root / "live.jsonl"
    os.mkfifo(fifo)
    session = await launch()
    with pytest.raises(JsonRpcInvalidParams, match=re.escape("is a FIFO (named pipe), not a regular file")):
        await request(session, method, {"session": str(fifo)})
    with pytest.raises(JsonRpcInvalidParams, match="is a character device, not a regular file"):
        await request(session, method, {"session": "/dev/zero"})
    assert "roots" in await session.command("pi.debug.state", {})


async def test_a_session_over_the_size_setting_is_refused_naming_the_limit(
    launch: Launch, workspace: Workspace
) -> None:
    path = install_session(workspace)
    big = workspace.root / "big.jsonl"
    with open(big, "wb") as handle:
        handle.truncate(2 * 1024**3)
    session = await launch(init_options={"limits": {"sessionMaxBytes": 1000}})
    for target in (big, path):
        with pytest.raises(
            JsonRpcInvalidParams, match=re.escape("over the 1,000-byte limit (piContext.limits.sessionMaxBytes")
        ):
            await request(session, "pi/contextBudget", {"session": str(target)})
    listed = await request(session, "pi/sessions", {})
    assert [(s["path"], s.get("entryCount")) for s in listed["sessions"]] == [(str(path), None)]


async def test_the_default_limit_refuses_a_sparse_2gb_file(launch: Launch, workspace: Workspace) -> None:
    big = workspace.root / "big.jsonl"
    with open(big, "wb") as handle:
        handle.truncate(2 * 1024**3)
    session = await launch()
    with pytest.raises(JsonRpcInvalidParams, match="2,147,483,648 bytes, over the 536,870,912-byte limit"):
        await request(session, "pi/contextBudget", {"session": str(big)})
