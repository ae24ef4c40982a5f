"""The compaction ops' mask hides our instruction prose only: structural differences still show."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from lsp_server.conformance.compare import compare_answers
from lsp_server.conformance.harness import handle

HERE = Path(__file__).resolve().parent


def _case(op: str, name: str) -> tuple[dict[str, Any], dict[str, Any]]:
    requests = (HERE / "requests" / f"{op}.jsonl").read_text(encoding="utf-8").splitlines()
    goldens = (HERE / "golden" / f"{op}.jsonl").read_text(encoding="utf-8").splitlines()
    for request_line, golden_line in zip(requests, goldens, strict=True):
        request = json.loads(request_line)
        if request["name"] == name:
            return request, json.loads(golden_line)
    raise AssertionError(name)


def _tamper(op: str, name: str, change: Any) -> list[str]:
    request, golden = _case(op, name)
    ours = handle(request)
    change(ours["result"])
    return compare_answers(request, golden, ours)


def test_our_own_answers_match_after_the_mask() -> None:
    assert _tamper("compact", "example/compact_update", lambda r: None) == []


def test_a_missing_previous_summary_block_is_caught() -> None:
    def drop_block(result: Any) -> None:
        request = result["requests"][0]
        request["promptText"] = request["promptText"].replace("<previous-summary>", "<prev>")

    assert _tamper("compact", "example/compact_update", drop_block)


def test_a_wrong_heading_is_caught() -> None:
    def rename(result: Any) -> None:
        request = result["requests"][1]
        request["promptText"] = request["promptText"].replace("## Progress So Far", "## Progress")

    assert _tamper("compact", "example/compact_update", rename)


def test_a_missing_focus_line_is_caught() -> None:
    def drop_focus(result: Any) -> None:
        request = result["requests"][0]
        request["promptText"] = request["promptText"].replace("\n\nAdditional focus: Mention file names.", "")

    assert _tamper("branch_summary", "example/branch_summary", drop_focus)


def test_a_changed_conversation_is_caught() -> None:
    def edit(result: Any) -> None:
        request = result["requests"][0]
        request["promptText"] = request["promptText"].replace("[User]: ", "[Human]: ", 1)

    assert _tamper("branch_summary", "example/branch_summary", edit)


def test_a_changed_summary_is_caught() -> None:
    def edit(result: Any) -> None:
        result["result"]["summary"] = result["result"]["summary"].replace("No prior history.", "No history.")

    assert _tamper("compact", "example/compact", edit)


def test_a_request_without_pis_no_caching_option_is_caught() -> None:
    def cap(result: Any) -> None:
        result["requests"][0]["options"].pop("cacheRetention")

    assert _tamper("compact", "example/compact", cap)
