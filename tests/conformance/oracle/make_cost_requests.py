"""Write ``requests/calculate_cost.jsonl`` and ``requests/prompt_cache_ttl.jsonl``.

The usages are real: every assistant reply with cache traffic in Pi's own fixtures (Anthropic and
OpenAI sessions) priced at the rates Pi 1.6.0's catalog gives their model today, plus edge cases
(request-wide tiers at and around the threshold, Anthropic's 1-hour cache writes, zero rates).
Run from the repository root, then ``python tests/conformance/regen_goldens.py calculate_cost prompt_cache_ttl``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[3]
DATA = Path(
    os.environ.get(
        "PI_AI_DATA",
        Path.home() / ".cache/pi-oracle/node_modules/@earendil-works/pi-ai/dist/providers/data",
    )
)


def catalog_cost(provider: str, model_id: str) -> dict[str, Any] | None:
    """The model's ``cost`` in Pi's catalog (``None``: the catalog no longer lists it)."""
    groups = json.loads((DATA / f"{provider}.json").read_text(encoding="utf-8"))
    for group in groups.values():
        for model in group.values():
            if model.get("type") == "chat" and model.get("id") == model_id:
                return dict(model["cost"])
    return None


def fixture_requests() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for name in ("before-compaction.jsonl", "large-session.jsonl"):
        per_model: dict[tuple[str, str], int] = {}
        lines = (REPO / "tests/fixtures/pi" / name).read_text(encoding="utf-8").splitlines()
        for number, line in enumerate(lines, start=1):
            entry = json.loads(line)
            message = entry.get("message") or {}
            if entry.get("type") != "message" or message.get("role") != "assistant":
                continue
            usage = {k: message["usage"][k] for k in ("input", "output", "cacheRead", "cacheWrite")}
            key = (message["provider"], message["model"])
            cost = catalog_cost(*key)
            if cost is None:
                continue
            if per_model.get(key, 0) >= 12 or (usage["cacheRead"] + usage["cacheWrite"] == 0 and per_model.get(key)):
                continue
            per_model[key] = per_model.get(key, 0) + 1
            out.append(
                {
                    "name": f"fixture/{name}:{number}",
                    "op": "calculate_cost",
                    "cost": cost,
                    "usage": usage,
                }
            )
    return out


def edge_requests() -> list[dict[str, Any]]:
    tiered = catalog_cost("anthropic", "claude-haiku-5-5")
    opus = catalog_cost("anthropic", "claude-opus-4-5")
    assert tiered is not None and opus is not None, "Pi's catalog lacks the models the edge cases use"
    above = tiered["tiers"][0]["inputTokensAbove"]
    two_tiers = {
        "input": 1, "output": 2, "cacheRead": 0.1, "cacheWrite": 1.25,
        "tiers": [
            {"inputTokensAbove": 200000, "input": 3, "output": 6, "cacheRead": 0.3, "cacheWrite": 3.75},
            {"inputTokensAbove": 100000, "input": 2, "output": 4, "cacheRead": 0.2, "cacheWrite": 2.5},
        ],
    }  # fmt: skip
    zero = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0}
    cheap = {"input": 0.15, "output": 0.6, "cacheRead": 0.0375, "cacheWrite": 0.1875}
    cases: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
        ("tier/below", tiered, {"input": above - 1, "output": 10, "cacheRead": 0, "cacheWrite": 0}),
        ("tier/at-threshold", tiered, {"input": 1, "output": 10, "cacheRead": above - 2, "cacheWrite": 1}),
        ("tier/above", tiered, {"input": 1, "output": 10, "cacheRead": above, "cacheWrite": 0}),
        ("tier/highest-wins-unordered", two_tiers, {"input": 10, "output": 10, "cacheRead": 250000, "cacheWrite": 5}),
        ("tier/middle", two_tiers, {"input": 10, "output": 10, "cacheRead": 150000, "cacheWrite": 5}),
        ("write-1h/all", opus, {"input": 3, "output": 50, "cacheRead": 0, "cacheWrite": 4000, "cacheWrite1h": 4000}),
        ("write-1h/part", opus, {"input": 3, "output": 50, "cacheRead": 900, "cacheWrite": 4000, "cacheWrite1h": 1234}),
        ("zero-rates", zero, {"input": 5, "output": 5, "cacheRead": 5, "cacheWrite": 5}),
        ("zero-usage", opus, zero),
        ("fractional-rates", cheap, {"input": 12345, "output": 678, "cacheRead": 91011, "cacheWrite": 1213}),
    ]  # fmt: skip
    return [
        {"name": f"edge/{name}", "op": "calculate_cost", "cost": cost, "usage": usage} for name, cost, usage in cases
    ]


def ttl_requests() -> list[dict[str, Any]]:
    both = {"short": 300, "long": 3600}
    cases: list[tuple[str, dict[str, Any]]] = [
        ("default-short", {"promptCache": both}),
        ("env-long", {"promptCache": both, "env": {"PI_CACHE_RETENTION": "long"}}),
        ("env-other-value", {"promptCache": both, "env": {"PI_CACHE_RETENTION": "short"}}),
        ("explicit-long", {"promptCache": both, "cacheRetention": "long"}),
        ("explicit-none", {"promptCache": both, "cacheRetention": "none", "env": {"PI_CACHE_RETENTION": "long"}}),
        ("no-prompt-cache", {}),
        ("short-only-asked-long", {"promptCache": {"short": 300}, "cacheRetention": "long"}),
        ("fractional", {"promptCache": {"short": 0.5, "long": 86400}}),
    ]
    return [{"name": f"ttl/{name}", "op": "prompt_cache_ttl", **request} for name, request in cases]


def main() -> None:
    folder = REPO / "tests/conformance/requests"
    for name, requests in (
        ("calculate_cost", fixture_requests() + edge_requests()),
        ("prompt_cache_ttl", ttl_requests()),
    ):
        with (folder / f"{name}.jsonl").open("w", encoding="utf-8") as handle:
            for request in requests:
                handle.write(json.dumps(request) + "\n")
        print(f"{name}: {len(requests)} requests")


if __name__ == "__main__":
    main()
