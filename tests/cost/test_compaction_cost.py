"""A compaction's cost, savings and break-even from the session model's prices."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from lsp_server.compaction.operations import plan_compaction
from lsp_server.compaction.summarize import SummaryOptions, compact, summary_prompts
from lsp_server.cost.compaction_cost import ASSUMED_SUMMARY_TOKENS, compaction_economics, expected_summary_tokens
from lsp_server.cost.prices import ModelPrices, Rates, Tier
from lsp_server.js.values import UNDEFINED
from lsp_server.llm.offline import OfflineSummarizer
from lsp_server.project.summaries import RecordingClient
from lsp_server.session.writer import load_for_append
from lsp_server.vocabulary.compaction import CompactionSettings

PRICES = ModelPrices("anthropic", "m", Rates(3, 15, 0.3, 3.75), (), "pi", 300, 3600, "pi")
UNKNOWN = ModelPrices("x", "y", None, (), "unknown", None, None, "unknown")


def test_the_break_even_is_the_one_time_cost_over_the_saving_per_request() -> None:
    economics = compaction_economics([20_000, 3_000], 1_000, 41_000, 100_000, PRICES)
    assert economics.removed_per_request == 40_000 and economics.context_after == 60_000
    summary = (3 / 1e6) * 20_000 + (15 / 1e6) * 500 + (3 / 1e6) * 3_000 + (15 / 1e6) * 500
    assert economics.summary_cost == pytest.approx(summary)
    rewrite = (3.75 / 1e6) * 60_000 - (0.3 / 1e6) * 100_000
    assert economics.rewrite_cost == rewrite
    assert economics.saving_per_request == pytest.approx((0.3 / 1e6) * 40_000)
    assert economics.summary_cost is not None and economics.saving_per_request is not None
    assert economics.break_even_requests == math.ceil((economics.summary_cost + rewrite) / economics.saving_per_request)


def test_a_cut_that_brings_requests_under_a_tier_saves_the_dearer_rate_on_every_token() -> None:
    """A tier prices a whole request by its size: 300k tokens read at the dear rate, 190k after the cut at the
    cheap one. The saving is the difference of the two reads, not 110k tokens read at either rate."""
    tiered = ModelPrices(
        "google", "gemini", Rates(1.25, 10, 0.125, 0), (Tier(200_000, Rates(2.5, 15, 0.25, 0)),), "pi", None, None, "pi"
    )
    economics = compaction_economics([120_000], 2_000, 112_000, 300_000, tiered)
    assert economics.context_after == 190_000
    assert economics.saving_per_request == pytest.approx((0.25 / 1e6) * 300_000 - (0.125 / 1e6) * 190_000)


def test_a_model_without_a_cache_write_rate_pays_the_rewrite_as_input() -> None:
    prices = ModelPrices("openai", "m", Rates(1, 4, 0.25, 0), (), "pi", None, None, "unknown")
    economics = compaction_economics([10_000], 500, 20_500, 50_000, prices)
    assert economics.rewrite_cost == (1 / 1e6) * 30_000 - (0.25 / 1e6) * 50_000


def test_unknown_prices_give_tokens_but_no_money() -> None:
    economics = compaction_economics([10_000], 500, 20_500, 50_000, UNKNOWN)
    assert economics.removed_per_request == 20_000
    assert (economics.summary_cost, economics.saving_per_request, economics.break_even_requests) == (None, None, None)


def test_a_summary_that_removes_nothing_never_breaks_even() -> None:
    economics = compaction_economics([8_000], 700, 0, 0, PRICES)
    assert economics.removed_per_request == -700 and economics.break_even_requests is None


EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "sessions" / "inventory-fix.jsonl"


@pytest.mark.parametrize(("keep", "calls"), [(100, 1), (200, 2), (30_000, 1)])  # whole turns; split; prefix only
async def test_the_summary_prompts_priced_before_a_run_are_the_ones_compact_sends(keep: int, calls: int) -> None:
    """The chat prices Pi's compaction before Pi runs it: the prompts must be the ones a run sends."""
    plan = plan_compaction(load_for_append(str(EXAMPLE)), CompactionSettings(keep_recent_tokens=keep))
    assert not isinstance(plan, str)
    recording = RecordingClient(OfflineSummarizer())
    await compact(plan.preparation, recording, options=SummaryOptions(custom_instructions="the tests"))
    sent = [json.loads(key)[1][0]["content"][0]["text"] for key, _ in recording.calls]
    assert summary_prompts(plan.preparation, "the tests") == sent
    assert len(sent) == calls


def test_a_summary_not_written_yet_is_expected_as_long_as_the_previous_one() -> None:
    assert expected_summary_tokens("x" * 4_001) == (1_001, "previous")
    assert expected_summary_tokens(UNDEFINED) == (ASSUMED_SUMMARY_TOKENS, "assumed")
    assert expected_summary_tokens("") == (ASSUMED_SUMMARY_TOKENS, "assumed")
