"""A chat whose shared keepers' folder another user took: Pi is kept all the same, and the chat and the log say where.

The real server runs with ``TMPDIR`` pointing at a folder of the test's own in which
``pi-context-<uid>`` was created first by someone else (owned by another user as root, else open to
all), without ``XDG_RUNTIME_DIR``: before, the chat ran without a keeper and said so only in the log.
Now it is kept in a fresh private folder, which ``window/logMessage`` names and the chat's first
event is preceded by a ``pi/chat/notice`` saying so.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pytest_lsp import ClientServerConfig, client_capabilities

from lsp_server.pi_rpc.keeper_files import FALLBACK_NOTE, RUNTIME_DIR_ENV, read_records
from tests.lsp.conftest import SERVER_COMMAND, WAIT_S, RecordingClient, Workspace, make_client, plain
from tests.lsp.test_chat import ChatClient
from tests.support.fake_llm_server import FakeLlmServer, ScriptedResponse
from tests.support.pi_agent import write_agent_dir
from tests.support.pi_for_tests import require_test_pi

pytestmark = pytest.mark.pi


@pytest.fixture
def squatted() -> Iterator[Path]:
    """A temp folder (short: sockets) whose ``pi-context-<uid>`` another user made first."""
    base = Path(tempfile.mkdtemp(prefix="pck", dir="/tmp"))
    taken = base / f"pi-context-{os.getuid()}"
    taken.mkdir(mode=0o700)
    if os.geteuid() == 0:
        os.chown(taken, 65534, 65534)
    else:
        os.chmod(taken, 0o777)
    yield base
    for note in base.glob(f"pi-context-{os.getuid()}-*/keepers"):
        assert read_records(note) == [], "a chat's keeper was left running"
    shutil.rmtree(base, ignore_errors=True)


async def test_a_taken_keepers_folder_gives_a_fresh_private_one_said_in_the_log_and_the_chat(
    workspace: Workspace, squatted: Path, tmp_path: Path
) -> None:
    pi = require_test_pi()
    with FakeLlmServer([ScriptedResponse(text="Hello there.")]) as model:
        agent = write_agent_dir(workspace.agent_dir, model.openai_base_url, settings={"defaultProvider": "fake"})
        drop = ("HOME", "XDG_RUNTIME_DIR", RUNTIME_DIR_ENV, "PI_CONTEXT_NO_KEEPER")
        env = agent.env({k: v for k, v in os.environ.items() if k not in drop})
        state = tmp_path / "state"
        env.update({"HOME": str(workspace.home), "TMPDIR": str(squatted), "PI_CONTEXT_STATE_DIR": str(state)})
        config = ClientServerConfig(server_command=SERVER_COMMAND, client_factory=make_client, server_env=env)
        client = await config.start()
        assert isinstance(client, RecordingClient)
        chat = ChatClient(client, workspace, agent)

        def keep(bucket: list[dict[str, Any]]) -> Any:
            def handler(ls: Any, params: Any) -> None:
                bucket.append(plain(params))
                chat.changed.set()

            return handler

        client.feature("pi/chat/event")(keep(chat.events))
        client.feature("pi/chat/notice")(keep(chat.notices))
        options = {"pi": {"command": f"{pi.argv[0]} {pi.argv[1]}"}}
        client.set_configuration({"piContext": options})
        try:
            await client.initialize_session(
                types.InitializeParams(
                    capabilities=client_capabilities("visual-studio-code"),
                    root_uri=workspace.uri(workspace.root),
                    workspace_folders=[types.WorkspaceFolder(uri=workspace.uri(workspace.root), name="ws")],
                    initialization_options=options,
                )
            )
            info = await chat.ask("pi/chat/start", {})
            assert info["kept"] is True  # a keeper after all
            assert chat.notices == []  # not before the client can know the chat ...
            await chat.turn(info["chatId"], "Hi")
            fallback = Path((state / FALLBACK_NOTE).read_text())
            assert fallback.parent.parent == squatted and fallback.parent.name.startswith(f"pi-context-{os.getuid()}-")
            await chat.ask("pi/chat/stop", {"chatId": info["chatId"]})
            await asyncio.wait_for(client.shutdown_session(), WAIT_S)
        finally:
            await client.stop()
    [notice] = chat.notices  # ... but before its first event, once
    assert notice["level"] == "warning" and notice["chatId"] == info["chatId"]
    assert (
        str(squatted / f"pi-context-{os.getuid()}") in notice["message"] and str(fallback.parent) in notice["message"]
    )
    logged = "\n".join(m.message for m in client.log_messages)
    assert f"chats' keepers live in {fallback.parent} instead" in logged
    assert "runs without a keeper" not in logged
