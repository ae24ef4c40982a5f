"""The bundled snapshot of Pi's model catalog: prices without an installed Pi, superseded by an installed one."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from lsp_server.cost.catalog_snapshot import SNAPSHOT_PATH, bundled_snapshot, render, snapshot_of_package
from lsp_server.cost.prices import PriceCatalog, Rates

PI_PACKAGE = Path(
    os.environ.get("PI_PKG_DIR") or Path.home() / ".cache/pi-oracle/node_modules/@earendil-works/pi-coding-agent"
)


def test_the_snapshot_is_what_the_installed_pi_160_gives() -> None:
    """``pi_catalog.json`` is generated, never edited: ``python -m lsp_server.cost.catalog_snapshot`` rewrites it."""
    snapshot = snapshot_of_package(str(PI_PACKAGE)) if PI_PACKAGE.is_dir() else None
    if snapshot is None or snapshot["piVersion"] != "1.6.0":
        message = f"Pi 1.6.0 with its model catalog is not installed at {PI_PACKAGE} (tests/support/install_pi.sh)"
        if os.environ.get("PI_CONTEXT_REQUIRE_ORACLE") == "1":
            pytest.fail(message)
        pytest.skip(message)
    assert SNAPSHOT_PATH.read_text(encoding="utf-8") == render(snapshot)


def test_prices_of_pis_models_are_known_without_an_installed_pi(tmp_path: Path) -> None:
    catalog = PriceCatalog.for_agent_dir(str(tmp_path), package_dir=str(tmp_path / "no-pi"))
    prices = catalog.prices_for("anthropic", "claude-sonnet-4-5")
    snapshot = bundled_snapshot()
    assert snapshot is not None and snapshot.pi_version == "1.6.0"
    assert prices.rates == Rates(3, 15, 0.3, 3.75) and prices.price_source == "pi"
    assert (prices.cache_short_s, prices.cache_long_s) == (300, 3600)
    assert prices.detail == (
        "anthropic/claude-sonnet-4-5: $3/M input, $15/M output, $0.3/M cache read, $3.75/M cache write "
        "(Pi 1.6.0's model catalog, bundled snapshot)"
    )
    assert prices.notes == (
        "no Pi installed: prices from Pi 1.6.0's model catalog, bundled snapshot (pi-context's copy)",
    )
    assert catalog.prices_for("anthropic", "no-such-model").price_source == "unknown"  # never a guess


def test_an_installed_pis_catalog_supersedes_the_snapshot(tmp_path: Path) -> None:
    """Another Pi's catalog, even one that lacks a model the snapshot has, is the one used (one Pi's numbers)."""
    package = tmp_path / "node_modules" / "@earendil-works" / "pi-coding-agent"
    data = tmp_path / "node_modules" / "@earendil-works" / "pi-ai" / "dist" / "providers" / "data"
    package.mkdir(parents=True)
    data.mkdir(parents=True)
    model = {
        "id": "claude-sonnet-4-5",
        "type": "chat",
        "cost": {"input": 4, "output": 16, "cacheRead": 0.4, "cacheWrite": 5},
    }
    (data / "anthropic.json").write_text(json.dumps({"anthropic-messages": {"chat:x": model}}), encoding="utf-8")
    catalog = PriceCatalog.for_agent_dir(str(tmp_path), package_dir=str(package))
    assert catalog.prices_for("anthropic", "claude-sonnet-4-5").rates == Rates(4, 16, 0.4, 5)
    assert catalog.prices_for("anthropic", "claude-sonnet-4-5").detail.endswith("(Pi's model catalog)")
    assert catalog.prices_for("anthropic", "claude-opus-4-5").price_source == "unknown"


def test_a_models_json_entry_still_wins_over_the_snapshot(tmp_path: Path) -> None:
    models = {"providers": {"anthropic": {"modelOverrides": {"claude-sonnet-4-5": {"cost": {"output": 1}}}}}}
    (tmp_path / "models.json").write_text(json.dumps(models), encoding="utf-8")
    prices = PriceCatalog.for_agent_dir(str(tmp_path), package_dir=str(tmp_path / "no-pi")).prices_for(
        "anthropic", "claude-sonnet-4-5"
    )
    assert prices.rates == Rates(3, 1, 0.3, 3.75) and prices.price_source == "models.json"
