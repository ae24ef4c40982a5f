"""``pi/turnLedger`` from the real server over stdio: the CLI's ``session --costs --json``, kept current."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pygls.exceptions import JsonRpcInvalidParams

from tests.lsp._custom import install_session
from tests.lsp.conftest import Launch, Workspace
from tests.lsp.test_custom_requests import cli, request

FIXTURE = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "pi" / "before-compaction.jsonl"
RATES = {"input": 3, "output": 15, "cacheRead": 0.3, "cacheWrite": 3.75}


def price_the_example_model(workspace: Workspace) -> None:
    """models.json prices for the example session's model (its replies record a cost of 0)."""
    override = {"claude-sonnet-4-5": {"cost": RATES, "promptCache": {"short": 300}}}
    models = {"providers": {"anthropic": {"modelOverrides": override, "models": [{"id": "claude-sonnet-4-5"}]}}}
    (workspace.agent_dir / "models.json").write_text(json.dumps(models), encoding="utf-8")


@pytest.mark.parametrize("source", ["example", "fixture"])
async def test_the_turn_ledger_is_what_pi_context_session_costs_prints(
    launch: Launch, workspace: Workspace, source: str
) -> None:
    price_the_example_model(workspace)
    path = install_session(workspace) if source == "example" else install_session(workspace, FIXTURE)
    session = await launch()
    result = await request(session, "pi/turnLedger", {"session": str(path)})
    assert result == cli(workspace, "session", str(path), "--costs")
    assert result["turns"] and all(
        {"entryId", "input", "output", "cacheRead", "cacheWrite", "cost"} <= t.keys() for t in result["turns"]
    )
    budget = await request(session, "pi/contextBudget", {"session": str(path)})
    assert (result["contextWindow"], result["threshold"]) == (budget["window"], budget["threshold"])
    if source == "example":
        prices = result["prices"][0]
        assert (prices["priceSource"], prices["cacheSource"], prices["cacheLifetime"]["short"]) == (
            "models.json",
            "models.json",
            300,
        )
        # Recorded as 0 by the session; the current prices give the check value beside it.
        first = result["turns"][0]
        assert (first["cost"], first["costSource"]) == (0, "recorded")
        assert first["computedCost"] == (3 / 1e6) * first["input"] + (15 / 1e6) * first["output"]


async def test_a_reply_appended_to_the_file_is_in_the_next_answer(launch: Launch, workspace: Workspace) -> None:
    path = install_session(workspace)
    session = await launch()
    before = await request(session, "pi/turnLedger", {"session": str(path)})
    last = json.loads(path.read_text(encoding="utf-8").splitlines()[-1])
    usage = {"input": 7, "output": 3, "cacheRead": 40000, "cacheWrite": 0, "cost": {"total": 0.0125}}
    reply = {
        "type": "message",
        "id": "feedc0de",
        "parentId": last["id"],
        "timestamp": "2026-01-01T00:00:00.000Z",
        "message": {
            "role": "assistant",
            "content": [{"type": "text", "text": "done"}],
            "provider": "anthropic",
            "model": "claude-sonnet-4-5",
            "usage": usage,
            "stopReason": "stop",
            "timestamp": 1767225600000,
        },
    }
    with path.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(reply) + "\n")
    after = await request(session, "pi/turnLedger", {"session": str(path)})
    assert len(after["turns"]) == len(before["turns"]) + 1
    added = after["turns"][-1]
    assert (added["entryId"], added["cacheRead"], added["cost"], added["cacheHitRatio"]) == (
        "feedc0de",
        40000,
        0.0125,
        40000 / 40007,
    )
    assert after["totals"]["cost"] == pytest.approx(before["totals"]["cost"] + 0.0125)


async def test_bad_params_are_invalid_params(launch: Launch, workspace: Workspace) -> None:
    path = install_session(workspace)
    session = await launch()
    with pytest.raises(JsonRpcInvalidParams, match="pi/turnLedger: session: Field required"):
        await request(session, "pi/turnLedger", {})
    with pytest.raises(JsonRpcInvalidParams, match="pi/turnLedger: no entry with id 'nope'"):
        await request(session, "pi/turnLedger", {"session": str(path), "leafId": "nope"})
