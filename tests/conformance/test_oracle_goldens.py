"""Our ``debug eval`` answers against Pi 1.6.0's answers (committed goldens).

Every request line in ``requests/<op>.jsonl`` has its oracle answer on the same line of
``golden/<op>.jsonl`` (made by ``regen_goldens.py``). Each case runs our implementation on the
request and checks that every key of Pi's result is in ours with the same value, after the op's
mask (Pi prose we do not copy; the YAML parser's own error wording).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from lsp_server.conformance.compare import compare_answers
from lsp_server.conformance.harness import handle, load_ops

HERE = Path(__file__).resolve().parent


def _cases() -> list[Any]:
    cases = []
    for request_file in sorted((HERE / "requests").glob("*.jsonl")):
        golden_file = HERE / "golden" / request_file.name
        requests = [json.loads(x) for x in request_file.read_text(encoding="utf-8").split("\n") if x.strip()]
        goldens = [json.loads(x) for x in golden_file.read_text(encoding="utf-8").split("\n") if x.strip()]
        assert len(requests) == len(goldens), f"{golden_file.name} is stale: run regen_goldens.py"
        for index, (request, golden) in enumerate(zip(requests, goldens, strict=True)):
            name = request.get("name") or f"{request_file.stem}[{index}]"
            cases.append(pytest.param(request, golden, id=name))
    return cases


@pytest.mark.parametrize(("request_", "golden"), _cases())
def test_matches_pi(request_: dict[str, Any], golden: dict[str, Any]) -> None:
    if request_["op"] not in load_ops():
        pytest.skip(f"op {request_['op']} is not implemented yet")
    ours = handle(request_)
    problems = compare_answers(request_, golden, ours)
    assert not problems, "\n".join(problems)
