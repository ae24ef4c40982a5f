"""``pi-context debug eval``: the oracle's envelope, and an exit status that tells a bad request apart."""

from __future__ import annotations

import json
import subprocess
import sys


def _eval(stdin: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "lsp_server", "debug", "eval", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_an_answer_exits_0() -> None:
    done = _eval(json.dumps({"op": "format_size", "bytes": 2048}))
    assert done.returncode == 0 and json.loads(done.stdout)["ok"] is True


def test_an_unknown_op_or_a_request_that_is_not_an_object_exits_2() -> None:
    for request in ({"op": "nope"}, [1, 2]):
        done = _eval(json.dumps(request))
        assert done.returncode == 2, request
        assert json.loads(done.stdout)["ok"] is False


def test_jsonl_answers_every_line_and_exits_2_when_one_was_unanswerable() -> None:
    lines = [json.dumps({"op": "format_size", "bytes": 1}), "not json", json.dumps({"op": "nope"})]
    done = _eval("\n".join(lines) + "\n", "--jsonl")
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert [a["ok"] for a in answers] == [True, False, False]
    assert done.returncode == 2
    assert _eval(lines[0] + "\n", "--jsonl").returncode == 0
