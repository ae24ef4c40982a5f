"""A real Pi whose model echoes its key in every disguise: the chat relay and the server's log show none of it.

Issue 18 saw Pi's 401 error text, quoting a key the model server echoed in disguise (a 96-character
piece, the 30-character prefix, the base64 form), relayed in ``pi/chat/event`` and written to the
server's ``--log-file``. Here Pi 1.6.0 runs in a chat of the real server (``serve --log-file
--log-level debug``, so the log holds every message the server sends); its provider's key is the
red team's, and the model answers each prompt with a 401 quoting that key in one more disguise
(``tests/support/disguises.py``), then one that streams it inside the reply's text. Everything the
client received (events, answers, exits, notices) and the whole log file are searched.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pytest_lsp import ClientServerConfig, client_capabilities

from lsp_server.pi_rpc.keeper_files import RUNTIME_DIR_ENV
from tests.lsp.conftest import WAIT_S, RecordingClient, Workspace, make_client, plain
from tests.lsp.test_chat import ChatClient
from tests.support.disguises import RED_TEAM_KEY, assert_nothing_shown, disguises
from tests.support.fake_llm_server import FakeLlmServer, ScriptedResponse
from tests.support.pi_agent import write_agent_dir
from tests.support.pi_for_tests import require_test_pi

pytestmark = pytest.mark.pi

KEY = RED_TEAM_KEY
DISGUISES = disguises(KEY)


def unauthorized(name: str) -> ScriptedResponse:
    """OpenAI's 401, quoting the key the request carried in the disguise ``name``."""
    error = {"message": "Incorrect API key provided: {echo}.", "type": "invalid_request_error", "code": "bad_key"}
    return ScriptedResponse(status=401, body={"error": error}, echo_key=name)


@pytest.fixture
def model() -> Iterator[FakeLlmServer]:
    with FakeLlmServer() as server:
        yield server


async def test_pis_401_quoting_the_key_in_any_disguise_is_relayed_and_logged_without_it(
    workspace: Workspace, model: FakeLlmServer, keepers_folder: Path, tmp_path: Path
) -> None:
    pi = require_test_pi()
    agent = write_agent_dir(
        workspace.agent_dir, model.openai_base_url, settings={"defaultProvider": "fake", "retry": {"enabled": False}}
    )
    models = json.loads((agent.path / "models.json").read_text(encoding="utf-8"))
    models["providers"]["fake"]["apiKey"] = KEY  # what Pi sends, and what the model echoes back
    (agent.path / "models.json").write_text(json.dumps(models), encoding="utf-8")
    env = agent.env({k: v for k, v in os.environ.items() if k != "HOME"})
    env.update({"HOME": str(workspace.home), RUNTIME_DIR_ENV: str(keepers_folder.parent)})
    log = tmp_path / "server.log"
    serve = [sys.executable, "-m", "lsp_server", "serve", "--log-file", str(log), "--log-level", "debug"]
    config = ClientServerConfig(server_command=serve, client_factory=make_client, server_env=env)
    client = await config.start()
    assert isinstance(client, RecordingClient)
    chat = ChatClient(client, workspace, agent)

    def keep(bucket: list[dict[str, Any]]) -> Any:
        def handler(ls: Any, params: Any) -> None:
            bucket.append(plain(params))
            chat.changed.set()

        return handler

    client.feature("pi/chat/event")(keep(chat.events))
    client.feature("pi/chat/exited")(keep(chat.exits))
    client.feature("pi/chat/notice")(keep(chat.notices))
    options = {"pi": {"command": f"{pi.argv[0]} {pi.argv[1]}"}}
    client.set_configuration({"piContext": options})
    answers: list[Any] = []
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
        chat_id = info["chatId"]
        for disguise in DISGUISES:
            model.enqueue(unauthorized(disguise.name))
            await chat.turn(chat_id, f"Hello ({disguise.name})")
        # Streamed in 16-character deltas: no delta holds 8 characters of the key, the joined text would.
        model.enqueue(ScriptedResponse(text="Your key {echo} is set.", echo_key=DISGUISES[3].name))
        model.enqueue(ScriptedResponse(text="Spaced: {echo} done.", echo_key=DISGUISES[-1].name))
        await chat.turn(chat_id, "Say it")
        await chat.turn(chat_id, "Say it spaced")
        answers.append(await chat.ask("pi/chat/messages", {"chatId": chat_id}))
        await chat.ask("pi/chat/stop", {"chatId": chat_id})
        await chat.wait(lambda: chat.exits)
        await asyncio.wait_for(client.shutdown_session(), WAIT_S)
    finally:
        await client.stop()

    assert all(model.received_key(i, KEY) for i in range(len(DISGUISES)))  # Pi did send the red team's key
    relayed = json.dumps(chat.events)
    errors = [
        e["event"]["message"].get("errorMessage", "")
        for e in chat.events
        if e["event"]["type"] == "message_end" and e["event"]["message"].get("role") == "assistant"
    ]
    assert sum("Incorrect API key provided: " in text and "***" in text for text in errors) == len(DISGUISES)
    assert "***" in chat.text(chat_id)  # the streamed reply, joined as the view joins it
    assert_nothing_shown("pi/chat/event", relayed, KEY)
    assert_nothing_shown("the text deltas joined", chat.text(chat_id), KEY)
    assert_nothing_shown("pi/chat/messages", json.dumps(answers), KEY)
    assert_nothing_shown("pi/chat/exited and notices", json.dumps([chat.exits, chat.notices]), KEY)
    logged = log.read_text(encoding="utf-8")
    assert "pi/chat/event" in logged and "Incorrect API key provided: ***" in logged  # the log has the traffic ...
    assert_nothing_shown("the server's --log-file", logged, KEY)  # ... without the key
