"""``initialize`` answered before pygls and lsprotocol are imported, with exactly pygls's answer.

The snapshot of the capabilities must be what pygls computes from the registered features, for
every editor whose capabilities pytest-lsp recorded (and for every position encoding a client may
prefer), with and without the debug commands; the served answer must come once, before lsprotocol
is imported, and the server must work on as always after it.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp

from lsp_server.server import early
from tests.support.lsp_frames import read_frames

RECORDED = sorted((Path(pytest_lsp.__file__).parent / "clients").glob("*.json"))
SYNTHETIC: list[dict[str, Any]] = [
    {},
    {"general": {"positionEncodings": ["utf-8", "utf-16"]}},
    {"general": {"positionEncodings": ["utf-32"]}},
    {"general": {"positionEncodings": ["latin-1", "utf-16"]}},
    {"general": {"positionEncodings": ["latin-1"]}},
    {"textDocument": {"synchronization": {"willSave": False, "willSaveWaitUntil": True}}},
    {"notebookDocument": {"synchronization": {}}, "workspace": {"fileOperations": {"didCreate": True}}},
    {"textDocument": {"rename": {"prepareSupport": True}}},
]


def _capabilities(path: Path) -> dict[str, Any]:
    data = json.loads(path.read_text(encoding="utf-8"))
    capabilities: dict[str, Any] = data.get("capabilities", data)
    return capabilities


CLIENTS = [(path.stem, _capabilities(path)) for path in RECORDED] + [
    (f"synthetic-{index}", capabilities) for index, capabilities in enumerate(SYNTHETIC)
]


@pytest.mark.parametrize("debug", [False, True])
@pytest.mark.parametrize(("name", "capabilities"), CLIENTS, ids=[name for name, _ in CLIENTS])
def test_the_early_answer_is_pyglss_answer(name: str, capabilities: dict[str, Any], debug: bool) -> None:
    computed = early.computed_capabilities(capabilities, debug=debug)
    assert early.initialize_result({"capabilities": capabilities}, debug=debug) == computed, (
        "the snapshot is stale: run python -m lsp_server.server.early"
    )


def _frame(message: dict[str, Any]) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n%s" % (len(body), body)


_ANSWER_BEFORE_IMPORTS = """
import io, json, sys
from lsp_server.server.early import answer_initialize
request = json.dumps({"jsonrpc": "2.0", "id": 7, "method": "initialize", "params": {"capabilities": {}}}).encode()
stdin = io.BytesIO(b"Content-Length: %d\\r\\n\\r\\n%s" % (len(request), request) + b"Content-Length: 2\\r\\n\\r\\n{}")
stdout = io.BytesIO()
answer_initialize(stdin, stdout, debug=False)
heavy = [name for name in ("lsprotocol", "lsprotocol.types", "pygls", "pydantic") if name in sys.modules]
print(json.dumps({"answer": stdout.getvalue().decode(), "heavy": heavy}))
"""


def test_initialize_is_answered_before_pygls_and_lsprotocol_are_imported() -> None:
    done = subprocess.run([sys.executable, "-c", _ANSWER_BEFORE_IMPORTS], capture_output=True, text=True, check=True)
    out = json.loads(done.stdout)
    assert out["heavy"] == []
    (answer,) = read_frames(out["answer"].encode())
    assert answer["id"] == 7
    assert answer["result"]["serverInfo"]["name"] == "pi-context"
    assert answer["result"]["capabilities"]["hoverProvider"] is True


def test_pygls_reads_the_same_messages_and_its_answer_is_dropped() -> None:
    request = {"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {"capabilities": {}}}
    following = {"jsonrpc": "2.0", "method": "initialized", "params": {}}
    stdin = io.BytesIO(_frame(request) + _frame(following))
    stdout = io.BytesIO()
    reader, writer = early.answer_initialize(stdin, stdout, debug=False)
    # pygls reads headers line by line, then the body by its length: the same bytes as the client sent
    replayed = b""
    while (line := reader.readline()) not in (b"\r\n", b""):
        replayed += line
    length = int(replayed.split(b":")[1])
    assert json.loads(reader.read(length)) == request
    assert reader.readline().startswith(b"Content-Length")
    sent = read_frames(stdout.getvalue())
    # pygls's own answer to the request is dropped; any other message goes through
    writer.write(_frame({"jsonrpc": "2.0", "id": "init", "result": sent[0]["result"]}))
    writer.write(_frame({"jsonrpc": "2.0", "method": "window/logMessage", "params": {"type": 3, "message": "x"}}))
    writer.write(_frame({"jsonrpc": "2.0", "id": "init", "result": None}))  # only the first answer is dropped
    assert [message.get("method", message.get("id")) for message in read_frames(stdout.getvalue())] == [
        "init",
        "window/logMessage",
        "init",
    ]


def test_a_first_message_that_is_not_initialize_goes_to_pygls_untouched() -> None:
    for first in (
        _frame({"jsonrpc": "2.0", "id": 1, "method": "shutdown"}),
        b"Content-Length: 5\r\n\r\n{bad}",
        b"garbage without headers\n",
        b"",
    ):
        stdin = io.BytesIO(first + b"rest")
        stdout = io.BytesIO()
        reader, writer = early.answer_initialize(stdin, stdout, debug=False)
        assert reader.read(-1) == first + b"rest"
        assert writer is stdout
        assert stdout.getvalue() == b""


def test_the_server_answers_initialize_once_and_works_on(tmp_path: Path) -> None:
    """The real ``pi-context serve`` on stdio: one answer to initialize, then a request answered."""
    (tmp_path / "AGENTS.md").write_text("# Project\n", encoding="utf-8")
    messages = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {"capabilities": {}, "rootUri": tmp_path.as_uri()},
        },
        {"jsonrpc": "2.0", "method": "initialized", "params": {}},
        {"jsonrpc": "2.0", "id": 2, "method": "shutdown"},
        {"jsonrpc": "2.0", "method": "exit"},
    ]
    done = subprocess.run(
        [sys.executable, "-m", "lsp_server", "serve"],
        input=b"".join(_frame(message) for message in messages),
        capture_output=True,
        timeout=120,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
    )
    answers = [message for message in read_frames(done.stdout) if "id" in message and "method" not in message]
    assert [answer["id"] for answer in answers] == [1, 2]
    assert answers[0]["result"] == early.computed_capabilities({}, debug=False)
    assert b"snapshot is stale" not in done.stderr
