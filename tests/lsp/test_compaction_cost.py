"""``pi.compact`` / ``pi.branchSummary`` previews carry what the summary calls cost and what they save."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator

import pytest

from tests.lsp._custom import install_session
from tests.lsp.conftest import Launch, Workspace, plain
from tests.lsp.test_summaries import SUMMARY, endpoint
from tests.support.fake_llm_server import FakeLlmServer, ScriptedResponse

RATES = {"input": 3, "output": 15, "cacheRead": 0.3, "cacheWrite": 3.75}  # the session's model
SUMMARIZER_RATES = {"input": 1, "output": 5, "cacheRead": 0.1, "cacheWrite": 1.25}  # endpoint(llm)'s summary-model
USAGE = {"input": 1500, "output": 200, "cacheRead": 100}  # what the model server reports for each call


@pytest.fixture
def llm() -> Iterator[FakeLlmServer]:
    with FakeLlmServer(default=ScriptedResponse(text=SUMMARY, usage=USAGE)) as server:
        yield server


def summary_call_cost() -> float:
    """One summary call at the summarizer's prices, with the usage its provider reported."""
    rates = SUMMARIZER_RATES
    return (rates["input"] * USAGE["input"] + rates["output"] * USAGE["output"] + rates["cacheRead"] * 100) / 1e6


def pi_tokens(text: str) -> int:
    return math.ceil(len(text.encode("utf-16-le")) / 2 / 4)


def price_the_session_model(workspace: Workspace) -> None:
    models = {"providers": {"anthropic": {"modelOverrides": {"claude-sonnet-4-5": {"cost": RATES}},
                                          "models": [{"id": "claude-sonnet-4-5"}]},
                            "openai": {"models": [{"id": "summary-model", "cost": SUMMARIZER_RATES}]}}}  # fmt: skip
    (workspace.agent_dir / "models.json").write_text(json.dumps(models), encoding="utf-8")


async def test_a_compaction_preview_prices_the_summary_calls_the_model_received(
    launch: Launch, workspace: Workspace, llm: FakeLlmServer
) -> None:
    """The calls the summarizer made, at its model's prices with its provider's usage; the savings at the session's."""
    price_the_session_model(workspace)
    path = install_session(workspace)
    session = await launch(init_options=endpoint(llm))
    outcome = plain(await session.command("pi.compact", {"session": str(path), "previewOnly": True}))
    economics = outcome["economics"]
    calls = llm.requests
    assert economics["requests"] == len(calls) == 2  # the cut splits a turn: history, then the turn prefix
    assert (economics["summaryModel"], economics["summaryPriceSource"], economics["summaryTokensSource"]) == (
        "openai/summary-model",
        "models.json",
        "reported",
    )
    assert economics["summaryInput"] == 2 * (USAGE["input"] + USAGE["cacheRead"])  # as the provider counted them
    assert economics["summaryOutput"] == 2 * USAGE["output"]
    assert economics["summaryCost"] == pytest.approx(2 * summary_call_cost())
    assert economics["contextBefore"] == outcome["tokensBefore"]
    removed = economics["removedPerRequest"]
    assert 0 < removed < economics["contextBefore"]
    assert economics["contextAfter"] == economics["contextBefore"] - removed
    assert economics["savingPerRequest"] == pytest.approx((0.3 / 1e6) * removed)
    assert economics["rewriteCost"] == pytest.approx(
        (3.75 / 1e6) * economics["contextAfter"] - (0.3 / 1e6) * economics["contextBefore"]
    )
    one_time = economics["summaryCost"] + economics["rewriteCost"]
    assert economics["breakEvenRequests"] == math.ceil(one_time / economics["savingPerRequest"])
    assert (economics["priceSource"], economics["model"]) == ("models.json", "anthropic/claude-sonnet-4-5")


async def test_a_branch_summary_preview_costs_its_call_and_saves_nothing(
    launch: Launch, workspace: Workspace, llm: FakeLlmServer
) -> None:
    price_the_session_model(workspace)
    path = install_session(workspace)
    session = await launch(init_options=endpoint(llm))
    args = {"session": str(path), "fromId": "4647f052", "toId": "9c947358", "previewOnly": True}
    outcome = plain(await session.command("pi.branchSummary", args))
    economics = outcome["economics"]
    assert economics["requests"] == len(llm.requests) == 1
    assert economics["removedPerRequest"] == -pi_tokens(outcome["summary"])
    assert "breakEvenRequests" not in economics  # never: nothing is removed (null values are left out)
    assert economics["summaryInput"] == USAGE["input"] + USAGE["cacheRead"]
    assert economics["summaryCost"] == pytest.approx(summary_call_cost())
    assert (economics["model"], economics["summaryModel"]) == ("anthropic/claude-sonnet-4-5", "openai/summary-model")
