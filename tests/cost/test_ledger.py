"""The turn ledger: Pi's recorded usage per reply, cache hits, gaps between requests, totals.

Goldens (``golden/<fixture>.ledger.json``) hold the ledger of Pi's own fixture sessions (real
Anthropic and OpenAI usage with cache reads and writes). The sums are also recomputed here straight
from the raw JSON lines, so a golden regenerated from a wrong ledger would still fail.
Regenerate with ``PI_CONTEXT_REGEN=1 python -m pytest tests/cost/test_ledger.py``.
"""

from __future__ import annotations

import itertools
import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from lsp_server.budget.models import read_models_json
from lsp_server.cost.ledger import build_ledger
from lsp_server.cost.prices import ModelPrices, PriceCatalog, Rates
from lsp_server.session.tail import load_session
from lsp_server.session.tree import build_path
from tests.budget._sessions import assistant, entry, message, user

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "pi"
GOLDEN = Path(__file__).resolve().parent / "golden"


def no_prices(provider: str | None, model: str | None) -> ModelPrices:
    return ModelPrices(provider, model, None, (), "unknown", None, None, "unknown")


def flat_prices(provider: str | None, model: str | None) -> ModelPrices:
    return ModelPrices(provider, model, Rates(1, 2, 0.1, 1.25), (), "pi", 300, 3600, "pi")


def compact(ledger: dict[str, Any]) -> dict[str, Any]:
    """The golden's shape: one short row per turn, the totals and markers as they are."""
    keys = ("entryId", "input", "output", "cacheRead", "cacheWrite", "cost", "sincePreviousMs", "totalTokens")
    return {
        "turns": [[turn[key] for key in keys] for turn in ledger["turns"]],
        "columns": list(keys),
        "totals": ledger["totals"],
        "sessionTotals": ledger["sessionTotals"],
        "byModel": ledger["byModel"],
        "markers": ledger["markers"],
    }


@pytest.mark.parametrize("name", ["before-compaction", "large-session"])
def test_the_ledger_of_pis_fixture_sessions_matches_its_golden(name: str) -> None:
    session = load_session(FIXTURES / f"{name}.jsonl")
    branch = build_path(session.entries, by_id=session.index.by_id)
    ledger = build_ledger(
        branch,
        no_prices,
        all_entries=session.entries,
        children_count=lambda entry_id: len(session.index.get_children(entry_id)),
    ).to_json()
    golden_file = GOLDEN / f"{name}.ledger.json"
    if os.environ.get("PI_CONTEXT_REGEN"):
        golden_file.write_text(json.dumps(compact(ledger), indent=1) + "\n", encoding="utf-8")
    assert compact(ledger) == json.loads(golden_file.read_text(encoding="utf-8"))

    # The same sums straight from the file's lines, without our session code. Both fixtures are
    # version-1 files (no ids, one linear path), so every reply is on the branch.
    raw = [json.loads(line) for line in (FIXTURES / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()]
    assert all("id" not in e for e in raw[1:])
    path_replies = [e["message"] for e in raw if e.get("type") == "message" and e["message"]["role"] == "assistant"]
    assert ledger["totals"]["requests"] == len(path_replies) == len(ledger["turns"])
    assert ledger["sessionTotals"] == ledger["totals"]
    for key in ("input", "output", "cacheRead", "cacheWrite"):
        assert ledger["totals"][key] == sum(m["usage"][key] for m in path_replies)
    assert ledger["totals"]["cost"] == pytest.approx(sum(m["usage"]["cost"]["total"] for m in path_replies))
    gaps = [b["timestamp"] - a["timestamp"] for a, b in itertools.pairwise(path_replies)]
    assert [t["sincePreviousMs"] for t in ledger["turns"][1:]] == gaps
    assert all(t["costSource"] == "recorded" for t in ledger["turns"])


def reply(entry_id: str, parent: str | None, at_ms: int, **counts: Any) -> dict[str, Any]:
    usage = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, **counts}
    msg = {**assistant("a"), "usage": usage, "timestamp": at_ms}
    return message(entry_id, parent, msg)


def test_a_reply_without_a_recorded_cost_is_priced_from_the_models_rates() -> None:
    branch = [message("u", None, user("q")), reply("a", "u", 1000, input=1000, output=100, cacheRead=9000)]
    turn = build_ledger(branch, flat_prices).to_json()["turns"][0]
    assert (turn["costSource"], turn["priceSource"]) == ("computed", "pi")
    assert turn["cost"] == (1 / 1e6) * 1000 + (2 / 1e6) * 100 + (0.1 / 1e6) * 9000 + 0
    assert turn["cacheHitRatio"] == 0.9


def test_a_reply_without_cost_or_prices_has_an_unknown_cost_counted_apart() -> None:
    branch = [message("u", None, user("q")), reply("a", "u", 1000, input=5)]
    ledger = build_ledger(branch, no_prices).to_json()
    assert ledger["turns"][0]["cost"] is None and ledger["turns"][0]["costSource"] == "unknown"
    assert ledger["totals"]["unknownCost"] == 1 and ledger["totals"]["cost"] == 0


def test_cache_warms_and_summary_calls_are_other_requests_and_count_in_the_branch_totals() -> None:
    warm_usage = {"input": 0, "output": 1, "cacheRead": 500, "cacheWrite": 0, "cost": {"total": 0.01}}
    summary_usage = {"input": 800, "output": 100, "cacheRead": 0, "cacheWrite": 0, "cost": {"total": 0.02}}
    branch = [
        message("u", None, user("q")),
        reply("a", "u", 1_000, input=10, cacheWrite=500),
        {
            **entry("usage", "w", "a", 30),
            "kind": "cache_warm",
            "provider": "anthropic",
            "model": "claude-test",
            "usage": warm_usage,
        },
        {**entry("compaction", "c", "w", 40), "summary": "s", "firstKeptEntryId": "a", "tokensBefore": 510},
        {**entry("branch_summary", "b", "c", 45), "fromId": "x", "summary": "s", "usage": summary_usage},
        reply("a2", "b", 301_000, input=20, cacheRead=500),
    ]
    ledger = build_ledger(branch, flat_prices).to_json()
    assert [r["kind"] for r in ledger["otherRequests"]] == ["cache_warm", "branchSummary"]
    warm = ledger["otherRequests"][0]
    assert warm["timestamp"] == 1735689630000 and warm["sincePreviousMs"] == 1735689630000 - 1_000
    # The next turn's gap is measured from the cache warm, the last request that touched the cache.
    assert ledger["turns"][1]["sincePreviousMs"] == 301_000 - 1735689630000
    assert ledger["totals"]["requests"] == 2 and ledger["branchTotals"]["requests"] == 4
    assert ledger["branchTotals"]["cost"] == pytest.approx(ledger["totals"]["cost"] + 0.03)
    assert [(m["kind"], m["afterTurn"]) for m in ledger["markers"]] == [("compaction", 1), ("branchSummary", 1)]
    assert ledger["markers"][0]["tokensBefore"] == 510


def test_branch_points_and_model_changes_are_marked_and_models_totalled_apart() -> None:
    other = {**assistant("b"), "model": "claude-other", "usage": {"input": 7, "output": 1}, "timestamp": 5000}
    branch = [
        message("u", None, user("q")),
        reply("a", "u", 1000, input=3),
        message("u2", "a", user("again")),
        message("a2", "u2", other),
    ]
    ledger = build_ledger(branch, no_prices, children_count=lambda i: 2 if i == "a" else 1).to_json()
    assert [(m["kind"], m["entryId"], m["afterTurn"]) for m in ledger["markers"]] == [
        ("branchPoint", "a", 1),
        ("modelChange", "a2", 1),
    ]
    assert [(m["model"], m["input"]) for m in ledger["byModel"]] == [
        ("anthropic/claude-test", 3),
        ("anthropic/claude-other", 7),
    ]


def test_the_ledger_of_a_session_real_pi_wrote_matches_its_golden(tmp_path: Path) -> None:
    """Pi 1.6.0 against the loopback model server (tests/pi_rpc/test_real_costs.py records it): three
    replies with the usage the server reported and the cost Pi computed at the models.json rates."""
    session = load_session(GOLDEN / "real-pi.session.jsonl")
    branch = build_path(session.entries, by_id=session.index.by_id)
    shutil.copyfile(GOLDEN / "real-pi.models.json", tmp_path / "models.json")
    prices = PriceCatalog(models_json=read_models_json(str(tmp_path)))
    ledger = build_ledger(branch, prices.prices_for).to_json()
    assert ledger == json.loads((GOLDEN / "real-pi.ledger.json").read_text(encoding="utf-8"))
    raw = [json.loads(line) for line in (GOLDEN / "real-pi.session.jsonl").read_text(encoding="utf-8").splitlines()]
    replies = [e["message"] for e in raw if e.get("type") == "message" and e["message"]["role"] == "assistant"]
    assert [(t["input"], t["cacheRead"], t["output"]) for t in ledger["turns"]] == [
        (r["usage"]["input"], r["usage"]["cacheRead"], r["usage"]["output"]) for r in replies
    ]
    assert [t["cost"] for t in ledger["turns"]] == [r["usage"]["cost"]["total"] for r in replies]
    assert [t["computedCost"] for t in ledger["turns"]] == [t["cost"] for t in ledger["turns"]]
    assert ledger["prices"][0]["priceSource"] == "models.json"
