"""The turn ledger: what every request of a session cost, as Pi recorded it.

Pi writes each assistant reply with the provider's usage (``input``: new input tokens, ``cacheRead``,
``cacheWrite``, ``output``, ``totalTokens``) and the cost pi-ai computed from the model's prices at
the time (``usage.cost``). The reply's ``timestamp`` is taken when pi-ai starts the request, so the
gap between two replies' timestamps is the time between two requests -- what decides whether the
provider's prompt cache still holds the prefix. Other paid requests are entries of their own: a
``usage`` entry (``kind: "cache_warm"``: Pi re-sending the last request to keep the cache alive) and
the ``usage`` of compaction and branch-summary entries (their summary calls).

:func:`build_ledger` reads them for one branch (the current path, root first) and, for the session
totals, every entry of the file. A reply whose cost was not recorded is priced with
:func:`~.prices.calculate_cost` and the model's prices (the source is named); without prices the
cost is ``None`` ("unknown"), never a guess. Totals keep count of the unknown ones.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from lsp_server.cost.prices import CostParts, ModelPrices, PriceSource, UsageCounts, calculate_cost
from lsp_server.js.dates import js_date_ms
from lsp_server.js.values import js_get
from lsp_server.session.raw import Entry

CostSource = Literal["recorded", "computed", "unknown"]
MarkerKind = Literal["compaction", "branchSummary", "branchPoint", "modelChange"]
PricesFor = Callable[[str | None, str | None], ModelPrices]

NUMBER_KEYS = ("input", "output", "cacheRead", "cacheWrite")


def _finite(value: Any) -> bool:
    """A JSON number we can count with: ``1e999`` reads as Infinity (as ``JSON.parse`` gives it), which would
    make every total Infinity or NaN and the JSON we send invalid, so it counts as absent."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _num(value: Any) -> float:
    return value if _finite(value) else 0


def _int_or_float(value: float) -> int | float:
    return int(value) if float(value).is_integer() else value


def usage_counts(usage: Any) -> UsageCounts:
    """A recorded ``usage`` as counts (missing or non-numeric counts are 0, as Pi's sums treat them)."""
    fields = usage if isinstance(usage, dict) else {}
    write_1h = fields.get("cacheWrite1h")
    return UsageCounts(
        input=_num(fields.get("input")),
        output=_num(fields.get("output")),
        cache_read=_num(fields.get("cacheRead")),
        cache_write=_num(fields.get("cacheWrite")),
        cache_write_1h=_num(write_1h) if _finite(write_1h) else None,
    )


def recorded_cost(usage: Any) -> CostParts | None:
    """``usage.cost`` as Pi recorded it, when it has a numeric total."""
    cost = usage.get("cost") if isinstance(usage, dict) else None
    if not isinstance(cost, dict):
        return None
    total = cost.get("total")
    if not _finite(total):
        return None
    return CostParts(
        _num(cost.get("input")),
        _num(cost.get("output")),
        _num(cost.get("cacheRead")),
        _num(cost.get("cacheWrite")),
        _num(total),
    )


@dataclass(frozen=True)
class Pricing:
    """The cost of one request and where it came from."""

    cost: CostParts | None
    source: CostSource
    price_source: PriceSource | None  # for "computed": which prices
    computed: CostParts | None  # the model's current prices applied to the usage (a check on the recorded cost)


def price_usage(usage: Any, prices: ModelPrices, counts: UsageCounts | None = None) -> Pricing:
    """The recorded cost if any, else the usage priced with ``prices``, else unknown."""
    if counts is None:
        counts = usage_counts(usage)
    computed = calculate_cost(prices.rates, prices.tiers, counts) if prices.rates is not None else None
    recorded = recorded_cost(usage)
    if recorded is not None:
        return Pricing(recorded, "recorded", None, computed)
    if computed is not None:
        return Pricing(computed, "computed", prices.price_source, computed)
    return Pricing(None, "unknown", None, None)


@dataclass(slots=True)
class Request:
    """One paid request: an assistant reply (a turn) or another request (cache warm, summary call).

    Not frozen: :func:`build_ledger` sets the two positional fields once, in place (a copy per turn
    cost a second on a 100 MB session); nothing changes a request after the ledger is built.
    """

    entry_id: str | None
    kind: str  # "turn", or the usage entry's kind ("cache_warm", ...), "compaction", "branchSummary"
    provider: str | None
    model: str | None
    timestamp_ms: int | None
    usage: UsageCounts
    total_tokens: float  # Pi's calculateContextTokens: totalTokens if truthy, else the sum
    pricing: Pricing
    stop_reason: str | None = None
    since_previous_ms: int | None = None  # since the previous request of the conversation on this branch
    turn_index: int | None = None  # 0-based among the turns; None for other requests

    @property
    def cache_hit_ratio(self) -> float | None:
        prompt = self.usage.prompt_tokens
        return self.usage.cache_read / prompt if prompt > 0 else None

    def to_json(self) -> dict[str, Any]:
        cost = self.pricing.cost
        out: dict[str, Any] = {
            "entryId": self.entry_id,
            "kind": self.kind,
            "provider": self.provider,
            "model": self.model,
            "timestamp": self.timestamp_ms,
            "input": _int_or_float(self.usage.input),
            "output": _int_or_float(self.usage.output),
            "cacheRead": _int_or_float(self.usage.cache_read),
            "cacheWrite": _int_or_float(self.usage.cache_write),
            "totalTokens": _int_or_float(self.total_tokens),
            "cost": cost.total if cost is not None else None,
            "costParts": cost.to_json() if cost is not None else None,
            "costSource": self.pricing.source,
            "priceSource": self.pricing.price_source,
            "computedCost": self.pricing.computed.total if self.pricing.computed is not None else None,
            "cacheHitRatio": self.cache_hit_ratio,
            "sincePreviousMs": self.since_previous_ms,
        }
        if self.turn_index is not None:
            out["index"] = self.turn_index
        if self.stop_reason is not None:
            out["stopReason"] = self.stop_reason
        return out


@dataclass
class Totals:
    """Sums over requests; ``cost`` adds the known costs and ``unknown_cost`` counts the others."""

    requests: int = 0
    input: float = 0
    output: float = 0
    cache_read: float = 0
    cache_write: float = 0
    cost: float = 0.0
    unknown_cost: int = 0

    def add(self, request: Request) -> None:
        self.requests += 1
        self.input += request.usage.input
        self.output += request.usage.output
        self.cache_read += request.usage.cache_read
        self.cache_write += request.usage.cache_write
        if request.pricing.cost is None:
            self.unknown_cost += 1
        else:
            self.cost += request.pricing.cost.total

    @property
    def cache_hit_ratio(self) -> float | None:
        prompt = self.input + self.cache_read + self.cache_write
        return self.cache_read / prompt if prompt > 0 else None

    def to_json(self) -> dict[str, Any]:
        return {
            "requests": self.requests,
            "input": _int_or_float(self.input),
            "output": _int_or_float(self.output),
            "cacheRead": _int_or_float(self.cache_read),
            "cacheWrite": _int_or_float(self.cache_write),
            "cost": self.cost,
            "unknownCost": self.unknown_cost,
            "cacheHitRatio": self.cache_hit_ratio,
        }


@dataclass(frozen=True)
class Marker:
    """Something the chart marks between turns: a compaction, a branch summary, a branch point, a model change."""

    kind: MarkerKind
    entry_id: str | None
    after_turn: int  # how many turns of the branch come before it
    tokens_before: float | None = None  # compaction: Pi's tokensBefore

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "entryId": self.entry_id, "afterTurn": self.after_turn}
        if self.tokens_before is not None:
            out["tokensBefore"] = _int_or_float(self.tokens_before)
        return out


@dataclass(frozen=True)
class TurnLedger:
    turns: tuple[Request, ...]
    other_requests: tuple[Request, ...]
    totals: Totals  # the branch's turns
    branch_totals: Totals  # the branch's turns and other requests
    session_totals: Totals  # every request in the file, all branches
    by_model: tuple[tuple[str, Totals], ...]  # the branch's turns per "provider/model"
    markers: tuple[Marker, ...]
    prices: tuple[ModelPrices, ...]  # of every model the branch used, in first-use order
    leaf_id: str | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)

    def to_json(self) -> dict[str, Any]:
        return {
            "leafId": self.leaf_id,
            "turns": [turn.to_json() for turn in self.turns],
            "otherRequests": [request.to_json() for request in self.other_requests],
            "totals": self.totals.to_json(),
            "branchTotals": self.branch_totals.to_json(),
            "sessionTotals": self.session_totals.to_json(),
            "byModel": [{"model": name, **totals.to_json()} for name, totals in self.by_model],
            "markers": [marker.to_json() for marker in self.markers],
            "prices": [prices.to_json() for prices in self.prices],
            "notes": list(self.notes),
        }


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _context_tokens(usage: Any, counts: UsageCounts) -> float:
    total = js_get(usage, "totalTokens")
    if _finite(total) and total:
        return float(total)
    return counts.input + counts.output + counts.cache_read + counts.cache_write


_PAID_KINDS = frozenset({"message", "usage", "compaction", "branch_summary"})


def request_of(entry: Entry, prices_for: PricesFor) -> Request | None:
    """The paid request an entry records, if any (an assistant reply, a usage entry, a summary's usage)."""
    kind = js_get(entry, "type")
    if kind not in _PAID_KINDS:
        return None
    entry_id = _str(js_get(entry, "id"))
    if kind == "message":
        message = js_get(entry, "message")
        if js_get(message, "role") != "assistant":
            return None
        usage = js_get(message, "usage")
        provider, model = _str(js_get(message, "provider")), _str(js_get(message, "model"))
        timestamp = js_get(message, "timestamp")
        counts = usage_counts(usage)
        return Request(
            entry_id,
            "turn",
            provider,
            model,
            js_date_ms(timestamp) if _finite(timestamp) else None,
            counts,
            _context_tokens(usage, counts),
            price_usage(usage, prices_for(provider, model), counts),
            stop_reason=_str(js_get(message, "stopReason")),
        )
    if kind == "usage":
        usage = js_get(entry, "usage")
        provider, model = _str(js_get(entry, "provider")), _str(js_get(entry, "model"))
        counts = usage_counts(usage)
        return Request(
            entry_id,
            _str(js_get(entry, "kind")) or "usage",
            provider,
            model,
            js_date_ms(js_get(entry, "timestamp")),
            counts,
            _context_tokens(usage, counts),
            price_usage(usage, prices_for(provider, model), counts),
        )
    if kind in ("compaction", "branch_summary"):
        usage = js_get(entry, "usage")
        if not isinstance(usage, Mapping):
            return None
        counts = usage_counts(usage)
        return Request(
            entry_id,
            "compaction" if kind == "compaction" else "branchSummary",
            None,
            None,
            js_date_ms(js_get(entry, "timestamp")),
            counts,
            _context_tokens(usage, counts),
            price_usage(usage, prices_for(None, None), counts),  # the summary model is not recorded: only Pi's cost
        )
    return None


def build_ledger(
    branch: Sequence[Entry],
    prices_for: PricesFor,
    *,
    all_entries: Sequence[Entry] | None = None,
    children_count: Callable[[Any], int] | None = None,
) -> TurnLedger:
    """The ledger of ``branch`` (root first).

    ``all_entries`` (every entry of the file) gives the session totals; ``children_count`` (an entry
    id's number of children) marks the branch points.
    """
    turns: list[Request] = []
    others: list[Request] = []
    markers: list[Marker] = []
    totals, branch_totals, session_totals = Totals(), Totals(), Totals()
    by_model: dict[str, Totals] = {}
    seen_models: dict[tuple[str | None, str | None], ModelPrices] = {}
    previous_ms: int | None = None
    last_model: str | None = None
    seen: dict[int, Request | None] = {}  # id(entry) -> its request, so the session totals reuse the branch's
    for entry in branch:
        kind = js_get(entry, "type")
        request = request_of(entry, prices_for)
        seen[id(entry)] = request
        if request is not None:
            conversational = request.kind in ("turn", "cache_warm")
            since = (
                request.timestamp_ms - previous_ms
                if conversational and request.timestamp_ms is not None and previous_ms is not None
                else None
            )
            request.since_previous_ms = since
            if request.kind == "turn":
                request.turn_index = len(turns)
                turns.append(request)
                totals.add(request)
                name = f"{request.provider}/{request.model}" if request.provider else (request.model or "unknown")
                if last_model is not None and name != last_model:
                    markers.append(Marker("modelChange", request.entry_id, len(turns) - 1))
                last_model = name
                by_model.setdefault(name, Totals()).add(request)
                key = (request.provider, request.model)
                if key not in seen_models:
                    seen_models[key] = prices_for(*key)
            else:
                others.append(request)
            branch_totals.add(request)
            if conversational and request.timestamp_ms is not None:
                previous_ms = request.timestamp_ms
        if kind == "compaction":
            tokens_before = js_get(entry, "tokensBefore")
            markers.append(
                Marker(
                    "compaction",
                    _str(js_get(entry, "id")),
                    len(turns),
                    tokens_before if _finite(tokens_before) else None,
                )
            )
        elif kind == "branch_summary":
            markers.append(Marker("branchSummary", _str(js_get(entry, "id")), len(turns)))
        if children_count is not None and children_count(js_get(entry, "id")) > 1:
            markers.append(Marker("branchPoint", _str(js_get(entry, "id")), len(turns)))
    for entry in all_entries if all_entries is not None else branch:
        entry_key = id(entry)
        request = seen[entry_key] if entry_key in seen else request_of(entry, prices_for)
        if request is not None:
            session_totals.add(request)
    leaf = _str(js_get(branch[-1], "id")) if branch else None
    notes = tuple(note for prices in seen_models.values() for note in prices.notes)
    return TurnLedger(
        tuple(turns),
        tuple(others),
        totals,
        branch_totals,
        session_totals,
        tuple(by_model.items()),
        tuple(markers),
        tuple(seen_models.values()),
        leaf,
        notes,
    )
