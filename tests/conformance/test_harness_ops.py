"""The harness knows the module of every op (``OP_HOMES``), and a request imports only that module."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from lsp_server.conformance import harness

FOLDER = Path(harness.__file__).parent
ON_DISK = {f"lsp_server.conformance.{path.stem}" for path in FOLDER.glob("ops_*.py")}


def _fresh(code: str) -> str:
    """Run ``code`` in a new process, so that no other test's import stands in for one left out."""
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=FOLDER.parents[1]
    )
    return done.stdout


def test_every_op_module_answers_the_ops_the_table_gives_it() -> None:
    code = (
        "import json, sys\n"
        "from lsp_server.conformance.harness import load_ops\n"
        "ops = load_ops()\n"
        "homes = {name: spec.handler.__module__.rsplit('.', 1)[1] for name, spec in ops.items()}\n"
        "mine = sorted(m for m in sys.modules if m.startswith('lsp_server.conformance.ops_'))\n"
        "print(json.dumps({'homes': homes, 'modules': mine}))\n"
    )
    found = json.loads(_fresh(code))
    assert found["homes"] == harness.OP_HOMES
    assert ON_DISK and set(found["modules"]) == ON_DISK  # every ops_*.py on disk holds an op of the table


def test_a_request_imports_only_the_module_of_its_op(tmp_path: Path) -> None:
    session = tmp_path / "s.jsonl"
    session.write_text(
        '{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/w"}\n'
        '{"type":"message","id":"a","parentId":null,"timestamp":"2025-01-01T00:00:01.000Z",'
        '"message":{"role":"user","content":"hi","timestamp":1}}\n'
    )
    code = (
        "import json, sys\n"
        "from lsp_server.conformance.harness import handle\n"
        f"answer = handle({{'op': 'prepare_compaction', 'jsonlFile': {str(session)!r}}})\n"
        "mine = sorted(m for m in sys.modules if m.startswith('lsp_server.conformance.ops_'))\n"
        "print(json.dumps({'ok': answer['ok'], 'modules': mine, 'asyncio': 'asyncio' in sys.modules,"
        " 'client': 'lsp_server.llm.client' in sys.modules}))\n"
    )
    found = json.loads(_fresh(code))
    assert found["ok"] is True
    # ops_compaction reads its entries with ops_session's decoder; nothing else, and no model client
    assert found["modules"] == ["lsp_server.conformance.ops_compaction", "lsp_server.conformance.ops_session"]
    assert found["asyncio"] is False and found["client"] is False


def test_an_unknown_op_lists_every_op_of_the_table() -> None:
    answer = harness.handle({"op": "no_such_op"})
    assert answer["ok"] is False
    assert answer["error"] == f"unknown op: no_such_op. Known: {', '.join(sorted(harness.OP_HOMES))}"
    assert not harness.is_answerable({"op": "no_such_op"}) and harness.is_answerable({"op": "compact"})


def test_the_values_an_op_read_go_to_the_caller_to_free_after_the_answer(tmp_path: Path) -> None:
    session = tmp_path / "s.jsonl"
    lines = [
        {"type": "session", "version": 3, "id": "s", "timestamp": "2025-01-01T00:00:00.000Z", "cwd": "/w"},
        {
            "type": "message",
            "id": "a",
            "parentId": None,
            "timestamp": "2025-01-01T00:00:01.000Z",
            "message": {"role": "user", "content": "hi", "timestamp": 1},
        },
    ]
    session.write_text("".join(json.dumps(line) + "\n" for line in lines))
    request = {"op": "parse_session_jsonl", "jsonlFile": str(session)}
    retained: list[object] = []
    with_list = harness.handle({"op": "find_cut_point", "jsonlFile": str(session)}, retained=retained)
    assert with_list["ok"] is True
    assert retained == [lines]  # the file's values, as read (header included)
    assert harness.handle({"op": "find_cut_point", "jsonlFile": str(session)}) == with_list
    assert harness.handle(request, retained=[]) == harness.handle(request)
