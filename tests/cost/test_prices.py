"""Prices and cache lifetimes from where Pi takes them: models.json, then Pi's catalog, else unknown."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from lsp_server.budget.models import find_pi_ai_data_dir, read_models_json
from lsp_server.cost.prices import PriceCatalog, Rates, Tier, UsageCounts, calculate_cost, default_retention

PI_PACKAGE = Path.home() / ".cache/pi-oracle/node_modules/@earendil-works/pi-coding-agent"
needs_pi = pytest.mark.skipif(not PI_PACKAGE.is_dir(), reason="Pi is not installed in ~/.cache/pi-oracle")


def catalog(tmp_path: Path, models_json: dict[str, Any] | None = None, *, data: Path | None = None) -> PriceCatalog:
    agent = tmp_path / "agent"
    agent.mkdir(exist_ok=True)
    if models_json is not None:
        (agent / "models.json").write_text(json.dumps(models_json), encoding="utf-8")
    return PriceCatalog(models_json=read_models_json(str(agent)), data_dir=str(data) if data else None)


def fake_catalog_dir(tmp_path: Path) -> Path:
    data = tmp_path / "data"
    data.mkdir()
    model = {
        "id": "m1",
        "type": "chat",
        "cost": {"input": 3, "output": 15, "cacheRead": 0.3, "cacheWrite": 3.75},
        "promptCache": {"short": 300, "long": 3600},
    }
    (data / "acme.json").write_text(json.dumps({"anthropic-messages": {"chat:m1": model}}), encoding="utf-8")
    return data


def test_a_model_in_pis_catalog_has_its_rates_and_cache_lifetimes(tmp_path: Path) -> None:
    prices = catalog(tmp_path, data=fake_catalog_dir(tmp_path)).prices_for("acme", "m1")
    assert prices.rates == Rates(3, 15, 0.3, 3.75)
    assert (prices.price_source, prices.cache_source) == ("pi", "pi")
    assert (prices.cache_lifetime_s("short"), prices.cache_lifetime_s("long"), prices.cache_lifetime_s("none")) == (
        300,
        3600,
        None,
    )
    assert "Pi's model catalog" in prices.detail


def test_an_unknown_model_has_no_price_and_no_lifetime_not_a_guess(tmp_path: Path) -> None:
    prices = catalog(tmp_path, data=fake_catalog_dir(tmp_path)).prices_for("acme", "nope")
    assert prices.rates is None and prices.price_source == "unknown"
    assert prices.cache_lifetime_s("short") is None and prices.cache_source == "unknown"
    assert catalog(tmp_path).prices_for(None, None).price_source == "unknown"


def test_a_models_json_model_without_cost_is_priced_at_zero_as_pi_does(tmp_path: Path) -> None:
    models = {"providers": {"local": {"baseUrl": "http://x", "api": "openai-completions", "models": [{"id": "q"}]}}}
    prices = catalog(tmp_path, models).prices_for("local", "q")
    assert prices.rates == Rates() and prices.price_source == "models.json"
    assert prices.cache_source == "unknown"  # no promptCache: Pi knows no lifetime
    assert any("prices this model at 0" in note for note in prices.notes)


def test_a_models_json_model_replaces_the_catalogs_entry(tmp_path: Path) -> None:
    rates = {"input": 1, "output": 2, "cacheRead": 0, "cacheWrite": 0}
    entry = {"id": "m1", "cost": rates, "promptCache": {"short": 60}}
    models = {"providers": {"acme": {"models": [entry]}}}
    prices = catalog(tmp_path, models, data=fake_catalog_dir(tmp_path)).prices_for("acme", "m1")
    assert prices.rates == Rates(1, 2, 0, 0)
    assert (prices.cache_short_s, prices.cache_long_s, prices.cache_source) == (60, None, "models.json")


def test_model_overrides_patch_single_rates_and_lifetimes(tmp_path: Path) -> None:
    override = {"cost": {"output": 10}, "promptCache": {"long": 7200}}
    models = {"providers": {"acme": {"modelOverrides": {"m1": override}}}}
    prices = catalog(tmp_path, models, data=fake_catalog_dir(tmp_path)).prices_for("acme", "m1")
    assert prices.rates == Rates(3, 10, 0.3, 3.75) and prices.price_source == "models.json"
    assert (prices.cache_short_s, prices.cache_long_s, prices.cache_source) == (300, 7200, "models.json")


def test_an_override_cost_for_a_model_defined_without_one_drops_the_priced_at_zero_note(tmp_path: Path) -> None:
    provider = {"models": [{"id": "q"}], "modelOverrides": {"q": {"cost": {"input": 2, "output": 8}}}}
    prices = catalog(tmp_path, {"providers": {"local": provider}}).prices_for("local", "q")
    assert prices.rates == Rates(2, 8, 0, 0) and prices.price_source == "models.json"
    assert prices.notes == ()
    bare = catalog(tmp_path, {"providers": {"local": {"models": [{"id": "q"}]}}}).prices_for("local", "q")
    assert bare.notes == ("models.json gives no cost: Pi prices this model at 0",)


def test_a_malformed_cost_makes_the_price_unknown_with_a_note(tmp_path: Path) -> None:
    entry = {"id": "q", "cost": {"input": "cheap", "output": 1, "cacheRead": 0, "cacheWrite": 0}}
    prices = catalog(tmp_path, {"providers": {"local": {"models": [entry]}}}).prices_for("local", "q")
    assert prices.rates is None and prices.price_source == "unknown"
    assert prices.notes == ("models.json: cost is malformed",)


def test_pi_cache_retention_long_picks_the_long_lifetime() -> None:
    assert default_retention({}) == "short"
    assert default_retention({"PI_CACHE_RETENTION": "long"}) == "long"
    assert default_retention({"PI_CACHE_RETENTION": "yes"}) == "short"


def test_the_highest_exceeded_tier_prices_the_whole_request() -> None:
    tiers = (Tier(200, Rates(3, 3, 3, 3)), Tier(100, Rates(2, 2, 2, 2)))
    base = Rates(1, 1, 1, 1)
    assert calculate_cost(base, tiers, UsageCounts(input=100)).input == (1 / 1_000_000) * 100  # not above 100
    assert calculate_cost(base, tiers, UsageCounts(input=101)).input == (2 / 1_000_000) * 101
    assert calculate_cost(base, tiers, UsageCounts(input=50, cache_read=151)).input == (3 / 1_000_000) * 50


@needs_pi
def test_the_installed_pis_catalog_prices_anthropic_models_with_a_five_minute_cache() -> None:
    prices = PriceCatalog(data_dir=find_pi_ai_data_dir(str(PI_PACKAGE))).prices_for("anthropic", "claude-opus-4-5")
    assert prices.price_source == "pi" and prices.rates is not None and prices.rates.input > 0
    assert prices.cache_lifetime_s("short") == 300
