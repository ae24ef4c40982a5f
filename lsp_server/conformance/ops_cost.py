"""Conformance ops for cost: pi-ai's ``calculateCost`` and ``getPromptCacheTtlMs``.

Pi's oracle has no op for them; ``tests/conformance/oracle/pi_ai_cost.mjs`` (our glue) calls the
two pi-ai functions with the same request shape, and ``regen_goldens.py`` runs these ops through it.
"""

from __future__ import annotations

from typing import Any

from lsp_server.conformance.op_table import EvalContext, OpError, OpTable
from lsp_server.cost.ledger import usage_counts
from lsp_server.cost.prices import ModelPrices, Rates, calculate_cost, default_retention, parse_lifetimes, parse_tiers

OPS = OpTable()


@OPS.op("calculate_cost")
def _calculate_cost(req: dict[str, Any], ctx: EvalContext) -> Any:
    cost = req.get("cost")
    rates = Rates.from_json(cost)
    tiers = parse_tiers(cost.get("tiers")) if isinstance(cost, dict) else None
    if rates is None or tiers is None:
        raise OpError("cost must hold input, output, cacheRead and cacheWrite rates")
    return {"cost": calculate_cost(rates, tiers, usage_counts(req.get("usage"))).to_json()}


@OPS.op("prompt_cache_ttl")
def _prompt_cache_ttl(req: dict[str, Any], ctx: EvalContext) -> Any:
    lifetimes = parse_lifetimes(req.get("promptCache")) or (None, None)
    prices = ModelPrices(None, None, None, (), "unknown", lifetimes[0], lifetimes[1], "unknown")
    retention = req.get("cacheRetention") or default_retention(req.get("env") or {})
    seconds = prices.cache_lifetime_s(retention)
    return {"ttlMs": None if seconds is None else seconds * 1000}
