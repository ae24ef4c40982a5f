"""Attachments reach the model as Pi's own `pi @file` puts them: the loopback model's request is the witness.

The same file and message go once through Pi's print mode with an ``@file`` argument (Pi's own code builds
the text) and once through the server's ``pi/chat/prompt`` with an attachment (ours builds it); the user
message each request carries must be the same text, but for the selection, which is pi-context's extension
(a ``lines`` attribute).
"""

from __future__ import annotations

import asyncio
import subprocess
from collections.abc import Callable
from typing import Any

import pytest
from pygls.exceptions import JsonRpcException

from tests.lsp import test_chat as chat_tests
from tests.lsp.conftest import Workspace
from tests.support.fake_llm_server import FakeLlmServer, ScriptedResponse
from tests.support.pi_agent import write_agent_dir
from tests.support.pi_for_tests import PiUnderTest

pytestmark = pytest.mark.pi

chat_server = chat_tests.chat_server
model = chat_tests.model
pi_under_test = chat_tests.pi_under_test


def _user_text(body: dict[str, Any]) -> str:
    last = body["messages"][-1]
    assert last["role"] == "user"
    return chat_tests._text_of(last)


async def test_an_attached_file_reaches_the_model_as_pis_own_at_file_sends_it(
    chat_server: Callable[..., Any], model: FakeLlmServer, workspace: Workspace, pi_under_test: PiUnderTest
) -> None:
    workspace.write("src/notes.py", "\ufeffdef f():\n    return 1\n")
    workspace.write("src/empty.txt", "")  # 0 bytes: Pi skips it
    workspace.write("src/bom.txt", "\ufeff")  # 3 bytes: Pi checks the size before it strips the BOM
    model.enqueue(ScriptedResponse(text="Pi's own answer."), ScriptedResponse(text="The chat's answer."))
    # Pi itself: `pi -p @src/notes.py "what does f return?"` in the workspace folder.
    agent = write_agent_dir(workspace.agent_dir, model.openai_base_url, settings={"defaultProvider": "fake"})
    env = agent.env()
    env["HOME"] = str(workspace.home)
    done = await asyncio.to_thread(
        subprocess.run,
        [
            *pi_under_test.argv,
            "-p",
            "--no-session",
            "@src/empty.txt",
            "@src/bom.txt",
            "@src/notes.py",
            "what does f return?",
        ],
        cwd=workspace.root,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    pis_own = _user_text(model.requests[0].body)
    notes, bom = workspace.root / "src/notes.py", workspace.root / "src/bom.txt"
    notes_block = f'<file name="{notes}">\ndef f():\n    return 1\n\n</file>\n'
    assert pis_own == f'<file name="{bom}">\n\n</file>\n{notes_block}what does f return?'

    client = await chat_server()
    chat_id = (await client.ask("pi/chat/start", {}))["chatId"]
    attachments = [{"path": str(workspace.root / name)} for name in ("src/empty.txt", "src/bom.txt", "src/notes.py")]
    preflight = await client.ask(
        "pi/chat/preflight", {"chatId": chat_id, "text": "what does f return?", "attachments": attachments}
    )
    info = preflight["attachments"][-1]
    block_tokens = -(-len(notes_block) // 4)
    assert info["path"] == str(notes) and info["tokens"]["pi"] == block_tokens
    assert preflight["textTokens"]["pi"] == -(-len(pis_own) // 4)  # the message with its attachment, by Pi's count
    since = client.mark()
    answer = await client.ask(
        "pi/chat/prompt", {"chatId": chat_id, "text": "what does f return?", "attachments": attachments}
    )
    assert answer == {"disposition": "started"}
    await client.event(chat_id, "agent_settled", since)
    assert _user_text(model.requests[1].body) == pis_own


async def test_a_selection_is_sent_with_its_lines_and_a_binary_file_is_refused_before_pi_gets_anything(
    chat_server: Callable[..., Any], model: FakeLlmServer, workspace: Workspace
) -> None:
    workspace.write("m.txt", "one\ntwo\nthree\n")
    (workspace.root / "blob.bin").write_bytes(b"\x00\x01")
    model.enqueue(ScriptedResponse(text="ok"))
    client = await chat_server()
    chat_id = (await client.ask("pi/chat/start", {}))["chatId"]
    with pytest.raises(JsonRpcException) as refused:
        await client.ask("pi/chat/prompt", {"chatId": chat_id, "text": "x", "attachments": [{"path": "blob.bin"}]})
    assert "blob.bin is not attached: it is a binary file" in str(refused.value)
    assert model.requests == []
    since = client.mark()
    selection = {"path": "m.txt", "startLine": 2, "endLine": 3}
    await client.ask("pi/chat/prompt", {"chatId": chat_id, "text": "why?", "attachments": [selection]})
    await client.event(chat_id, "agent_settled", since)
    sent = _user_text(model.requests[0].body)
    assert sent == f'<file name="{workspace.root}/m.txt" lines="2-3">\ntwo\nthree\n</file>\nwhy?'
