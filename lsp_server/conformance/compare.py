"""Compare our ``debug eval`` answer with the Pi oracle's answer for the same request.

The contract: every key the oracle returns must be in our answer with the same value; we may add
keys. Lists must have the same length and match element by element. Before comparing, the op's
mask (registered with the op) is applied to both sides, so prose we deliberately do not copy and
parser-specific error wording drop out of the comparison while everything structural stays in.
"""

from __future__ import annotations

from typing import Any

from lsp_server.conformance.harness import load_ops
from lsp_server.js.json import js_json_stringify

Json = Any


def _same_scalar(expected: Json, actual: Json) -> bool:
    if isinstance(expected, bool) or isinstance(actual, bool):
        return expected is actual
    if isinstance(expected, (int, float)) and isinstance(actual, (int, float)):
        return float(expected) == float(actual)
    return bool(expected == actual)


def differences(expected: Json, actual: Json, path: str = "$", limit: int = 20) -> list[str]:
    """Where ``actual`` fails to contain ``expected`` (subset semantics for objects)."""
    found: list[str] = []
    _diff(expected, actual, path, found, limit)
    return found


def _short(value: Json) -> str:
    text = js_json_stringify(value)
    return text if len(text) <= 300 else text[:300] + "..."


def _diff(expected: Json, actual: Json, path: str, found: list[str], limit: int) -> None:
    if len(found) >= limit:
        return
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            found.append(f"{path}: expected an object, got {_short(actual)}")
            return
        for key, value in expected.items():
            if key not in actual:
                found.append(f"{path}.{key}: missing (expected {_short(value)})")
            else:
                _diff(value, actual[key], f"{path}.{key}", found, limit)
        return
    if isinstance(expected, list):
        if not isinstance(actual, list):
            found.append(f"{path}: expected a list, got {_short(actual)}")
            return
        if len(expected) != len(actual):
            found.append(f"{path}: expected {len(expected)} items, got {len(actual)}")
        for index, (e, a) in enumerate(zip(expected, actual, strict=False)):
            _diff(e, a, f"{path}[{index}]", found, limit)
        return
    if not _same_scalar(expected, actual):
        if isinstance(expected, str) and isinstance(actual, str):
            at = next(
                (i for i, (x, y) in enumerate(zip(expected, actual, strict=False)) if x != y),
                min(len(expected), len(actual)),
            )
            found.append(
                f"{path}: strings differ at index {at}: expected ...{expected[max(0, at - 40) : at + 60]!r}"
                f" got ...{actual[max(0, at - 40) : at + 60]!r}"
            )
        else:
            found.append(f"{path}: expected {_short(expected)}, got {_short(actual)}")


def compare_answers(request: dict[str, Any], expected: dict[str, Any], actual: dict[str, Any]) -> list[str]:
    """Differences between the oracle's envelope and ours, after the op's mask."""
    if expected.get("ok") != actual.get("ok"):
        detail = actual.get("error") if actual.get("ok") is False else expected.get("error")
        return [f"$.ok: expected {expected.get('ok')}, got {actual.get('ok')} ({detail})"]
    spec = load_ops().get(str(request.get("op")))
    if expected.get("ok") is False:
        exp_err, act_err = expected.get("error"), actual.get("error")
        if spec and spec.mask:
            exp_err = spec.mask(request, {"error": exp_err})["error"]
            act_err = spec.mask(request, {"error": act_err})["error"]
        return differences(exp_err, act_err, "$.error")
    exp_result, act_result = expected.get("result"), actual.get("result")
    if spec and spec.mask:
        exp_result = spec.mask(request, exp_result)
        act_result = spec.mask(request, act_result)
    return differences(exp_result, act_result, "$.result")
