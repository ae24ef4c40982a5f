"""``pi.compact`` when the write cannot be done as planned: another writer, a read-only or full disk.

The model (the fake LLM server) holds its stream after one chunk; the test appends to, truncates
or replaces the session file meanwhile, then lets the model finish. The server must answer an
error that names the file and says nothing was written, and the file must be exactly what the
other writer made it. The same answer, and a byte-identical file, for a session on a tmpfs that
is read-only or full (skipped with the reason where this machine cannot mount).
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from pygls.exceptions import JsonRpcException

from tests.cli.test_compact_write_faults import _fill, _mounted
from tests.lsp._custom import install_session
from tests.lsp.conftest import WAIT_S, Launch, Workspace
from tests.lsp.test_summaries import compact, endpoint, lines
from tests.support.fake_llm_server import FakeLlmServer, ScriptedResponse


@pytest.fixture
def held() -> Iterator[FakeLlmServer]:
    """The first request streams one chunk and waits for ``release()``; later ones (a split turn's prefix) run."""
    script = ScriptedResponse(text="## Goal\nShip it.\n", chunks=["## Goal\n", "Ship it.\n"], hold_after_chunks=1)
    with FakeLlmServer(default=ScriptedResponse(text="## Goal\nShip it.\n")) as server:
        server.enqueue(script)
        yield server


def _appends(path: Path) -> Callable[[], None]:
    def run() -> None:
        entry = {
            "type": "session_info",
            "id": "feed0001",
            "parentId": lines(path)[-1]["id"],
            "timestamp": "2025-06-02T10:00:00.000Z",
            "name": "the agent went on",
        }
        with path.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(entry) + "\n")

    return run


def _truncates(path: Path) -> Callable[[], None]:
    def run() -> None:
        data = path.read_bytes()
        path.write_bytes(data[: data.rstrip(b"\n").rfind(b"\n") + 1])

    return run


def _replaces(path: Path) -> Callable[[], None]:
    def run() -> None:
        fresh = path.with_name("fresh.tmp")
        fresh.write_bytes(path.read_bytes())
        os.replace(fresh, path)

    return run


@pytest.mark.parametrize(
    ("meddle", "said"),
    [
        (_appends, "grew (an agent appended to it) since it was read"),
        (_truncates, "shrank since it was read"),
        (_replaces, "was replaced since it was read"),
    ],
    ids=["agent-appends", "truncated", "replaced"],
)
async def test_a_session_changed_while_summarizing_is_refused_and_left_as_the_other_writer_made_it(
    launch: Launch,
    workspace: Workspace,
    held: FakeLlmServer,
    meddle: Callable[[Path], Callable[[], None]],
    said: str,
) -> None:
    path = install_session(workspace)
    session = await launch(init_options=endpoint(held))
    running = asyncio.ensure_future(compact(session, session=str(path)))
    await asyncio.wait_for(asyncio.to_thread(held.wait_until_held, 0), WAIT_S)
    meddle(path)()
    expected = path.read_bytes()
    held.release()
    with pytest.raises(JsonRpcException) as caught:
        await asyncio.wait_for(running, WAIT_S)
    assert f"{path} {said}" in caught.value.message
    assert "nothing was written" in caught.value.message
    assert path.read_bytes() == expected
    assert (await session.state())["operations"] == 0


@pytest.mark.parametrize("fault", ["read-only", "full"])
async def test_a_session_on_a_read_only_or_full_disk_is_an_error_and_unchanged(
    launch: Launch, workspace: Workspace, fault: str
) -> None:
    with _mounted("tmpfs", "-o", "size=1m") as disk:
        path = disk / "session.jsonl"
        path.write_bytes(install_session(workspace).read_bytes())
        size = path.stat().st_size
        with path.open("ab") as handle:  # no slack in the last page: the append needs a new one
            handle.write(b"\n" * (-size % 4096))
        if fault == "read-only":
            remount = subprocess.run(["mount", "-o", "remount,ro", disk], capture_output=True, text=True, check=False)
            assert remount.returncode == 0, remount.stderr
            said = f"EROFS: read-only file system, open '{path}'"
        else:
            _fill(disk)
            said = f"writing to {path} failed: No space left on device; nothing was written"
        original = path.read_bytes()
        session = await launch()
        with pytest.raises(JsonRpcException) as caught:
            await compact(session, session=str(path))
        assert said in caught.value.message
        assert path.read_bytes() == original
