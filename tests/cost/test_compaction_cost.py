"""A compaction's cost, savings and break-even from the session model's prices."""

from __future__ import annotations

import math

import pytest

from lsp_server.cost.compaction_cost import compaction_economics
from lsp_server.cost.prices import ModelPrices, Rates

PRICES = ModelPrices("anthropic", "m", Rates(3, 15, 0.3, 3.75), (), "pi", 300, 3600, "pi")
UNKNOWN = ModelPrices("x", "y", None, (), "unknown", None, None, "unknown")


def test_the_break_even_is_the_one_time_cost_over_the_saving_per_request() -> None:
    economics = compaction_economics([20_000, 3_000], 1_000, 41_000, 100_000, PRICES)
    assert economics.removed_per_request == 40_000 and economics.context_after == 60_000
    summary = (3 / 1e6) * 20_000 + (15 / 1e6) * 500 + (3 / 1e6) * 3_000 + (15 / 1e6) * 500
    assert economics.summary_cost == pytest.approx(summary)
    rewrite = (3.75 / 1e6) * 60_000 - (0.3 / 1e6) * 100_000
    assert economics.rewrite_cost == rewrite
    assert economics.saving_per_request == (0.3 / 1e6) * 40_000
    assert economics.summary_cost is not None
    assert economics.break_even_requests == math.ceil((economics.summary_cost + rewrite) / ((0.3 / 1e6) * 40_000))


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
