"""A model's prices and prompt-cache lifetimes, from where Pi takes them, with the source of each.

Pi prices a reply with pi-ai's ``calculateCost(model, usage)`` using the model's ``cost`` (US dollars
per million tokens: ``input``, ``output``, ``cacheRead``, ``cacheWrite``, optional request-wide
``tiers``), and a prompt cache entry lives ``model.promptCache[retention]`` seconds (``short`` unless
``PI_CACHE_RETENTION=long``; pi-ai's ``getPromptCacheTtlMs``). The model comes from, in order:

1. **models.json** -- a provider's ``models`` entry in ``<agentDir>/models.json`` (Pi gives a custom
   model without ``cost`` all-zero prices, and no cache lifetime unless it sets ``promptCache``);
   ``modelOverrides[<id>]`` then patches single rates and lifetimes of any model of the provider;
2. **pi** -- pi-ai's catalog of an installed Pi (``pi-ai/dist/providers/data/<provider>.json``), or,
   when no Pi is installed, the snapshot of Pi 1.6.0's catalog bundled with pi-context
   (:mod:`lsp_server.cost.catalog_snapshot`; the detail names it);
3. **unknown** -- none knows the model: no price and no lifetime, never a guess.

:func:`calculate_cost` is ``calculateCost`` step by step (same operations in the same order, so the
floating-point results are the same numbers; a conformance golden checks it against Pi).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, Final, Literal

from lsp_server.budget.models import (
    ModelsJson,
    catalog_chat_models,
    find_pi_ai_data_dir,
    model_name,
    read_models_json,
)
from lsp_server.cost.catalog_snapshot import CatalogSnapshot, bundled_snapshot

PriceSource = Literal["models.json", "pi", "unknown"]
CacheRetention = Literal["short", "long", "none"]

RATE_KEYS: Final = ("input", "output", "cacheRead", "cacheWrite")
PER_MILLION: Final = 1_000_000

_SOURCE_WORDS: Final[Mapping[PriceSource, str]] = {
    "models.json": "models.json",
    "pi": "Pi's model catalog",
    "unknown": "unknown model",
}


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


@dataclass(frozen=True)
class Rates:
    """US dollars per million tokens, as pi-ai's ``ModelCost`` holds them."""

    input: float = 0.0
    output: float = 0.0
    cache_read: float = 0.0
    cache_write: float = 0.0

    @classmethod
    def from_json(cls, value: Any, base: Rates | None = None) -> Rates | None:
        """A ``cost`` object (``base`` fills missing rates, as a partial override does); ``None`` if malformed."""
        if not isinstance(value, Mapping):
            return None
        fallback = base or Rates()
        got: dict[str, float] = {}
        for key, attr in zip(RATE_KEYS, ("input", "output", "cache_read", "cache_write"), strict=True):
            rate = value.get(key)
            if rate is None:
                if base is None:
                    return None  # a full cost object needs every rate (pi-ai's schema)
                got[attr] = getattr(fallback, attr)
            elif _number(rate):
                got[attr] = rate
            else:
                return None
        return cls(**got)

    def to_json(self) -> dict[str, float]:
        return {
            "input": self.input,
            "output": self.output,
            "cacheRead": self.cache_read,
            "cacheWrite": self.cache_write,
        }


@dataclass(frozen=True)
class Tier:
    """A request-wide pricing tier: these rates when input + cacheRead + cacheWrite exceeds the threshold."""

    input_tokens_above: float
    rates: Rates

    def to_json(self) -> dict[str, float]:
        return {"inputTokensAbove": self.input_tokens_above, **self.rates.to_json()}


def parse_tiers(value: Any) -> tuple[Tier, ...] | None:
    if value is None:
        return ()
    if not isinstance(value, list):
        return None
    tiers = []
    for item in value:
        rates = Rates.from_json(item)
        above = item.get("inputTokensAbove") if isinstance(item, Mapping) else None
        if rates is None or not isinstance(above, (int, float)) or isinstance(above, bool):
            return None
        tiers.append(Tier(above, rates))
    return tuple(tiers)


@dataclass(frozen=True)
class ModelPrices:
    """What one model costs and how long its prompt cache lives, each with the source it came from.

    ``rates`` is ``None`` when the model is unknown (or its ``cost`` malformed); a lifetime is ``None``
    when neither source gives one for that retention.
    """

    provider: str | None
    model_id: str | None
    rates: Rates | None
    tiers: tuple[Tier, ...]
    price_source: PriceSource
    cache_short_s: float | None
    cache_long_s: float | None
    cache_source: PriceSource
    notes: tuple[str, ...] = ()
    catalog: str | None = None  # for "pi": which catalog, when it is the bundled snapshot (no Pi installed)
    # compat.supportsMidConvoSystemMessages: a changed system prompt is sent as a system message at the
    # end (the cached prefix survives) instead of a new prompt at the start (pi-ai's default: false).
    mid_conversation_system: bool = False

    @property
    def name(self) -> str:
        return model_name(self.provider, self.model_id)

    @property
    def known(self) -> bool:
        return self.rates is not None

    def cache_lifetime_s(self, retention: CacheRetention) -> float | None:
        """``model.promptCache[retention]`` in seconds; ``None`` for ``none`` or when not given."""
        if retention == "none":
            return None
        return self.cache_short_s if retention == "short" else self.cache_long_s

    @property
    def detail(self) -> str:
        """One sentence for people: ``anthropic/claude-opus-4-5: $5/M input ... (Pi's model catalog)``."""
        if self.rates is None:
            return f"{self.name}: prices unknown ({_SOURCE_WORDS[self.price_source]})"
        r = self.rates
        tiers = f", {len(self.tiers)} tier{'s' if len(self.tiers) != 1 else ''}" if self.tiers else ""
        source = self.catalog if self.price_source == "pi" and self.catalog else _SOURCE_WORDS[self.price_source]
        return (
            f"{self.name}: ${_rate(r.input)}/M input, ${_rate(r.output)}/M output, "
            f"${_rate(r.cache_read)}/M cache read, "
            f"${_rate(r.cache_write)}/M cache write{tiers} ({source})"
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "provider": self.provider,
            "id": self.model_id,
            "rates": self.rates.to_json() if self.rates is not None else None,
            "tiers": [tier.to_json() for tier in self.tiers],
            "priceSource": self.price_source,
            "cacheLifetime": {"short": self.cache_short_s, "long": self.cache_long_s},
            "cacheSource": self.cache_source,
            "detail": self.detail,
            "notes": list(self.notes),
            "midConversationSystem": self.mid_conversation_system,
        }


def _rate(value: float) -> str:
    return f"{value:g}"


# --- the usage Pi records and calculateCost ---------------------------------------------------


@dataclass(frozen=True)
class UsageCounts:
    """The token counts of one request (pi-ai's ``Usage`` without the cost)."""

    input: float = 0
    output: float = 0
    cache_read: float = 0
    cache_write: float = 0
    cache_write_1h: float | None = None  # Anthropic's 1-hour writes, part of cache_write

    @property
    def prompt_tokens(self) -> float:
        """Everything the provider read: new input plus cache reads and writes."""
        return self.input + self.cache_read + self.cache_write


@dataclass(frozen=True)
class CostParts:
    """Dollars per bucket and the total, as ``usage.cost`` holds them."""

    input: float
    output: float
    cache_read: float
    cache_write: float
    total: float

    def to_json(self) -> dict[str, float]:
        return {
            "input": self.input,
            "output": self.output,
            "cacheRead": self.cache_read,
            "cacheWrite": self.cache_write,
            "total": self.total,
        }


def calculate_cost(rates: Rates, tiers: tuple[Tier, ...], usage: UsageCounts) -> CostParts:
    """pi-ai's ``calculateCost``: the highest tier whose threshold the prompt exceeds sets every rate."""
    prompt = usage.input + usage.cache_read + usage.cache_write
    chosen, matched = rates, -1.0
    for tier in tiers:
        if prompt > tier.input_tokens_above and tier.input_tokens_above > matched:
            chosen, matched = tier.rates, tier.input_tokens_above
    long_write = usage.cache_write_1h or 0
    short_write = usage.cache_write - long_write
    cost_input = (chosen.input / PER_MILLION) * usage.input
    cost_output = (chosen.output / PER_MILLION) * usage.output
    cost_read = (chosen.cache_read / PER_MILLION) * usage.cache_read
    cost_write = (chosen.cache_write * short_write + chosen.input * 2 * long_write) / PER_MILLION
    return CostParts(cost_input, cost_output, cost_read, cost_write, cost_input + cost_output + cost_read + cost_write)


# --- where the prices come from ---------------------------------------------------------------


def parse_lifetimes(value: Any) -> tuple[float | None, float | None] | None:
    """``promptCache`` -> (short, long) seconds; ``None`` when malformed."""
    if value is None:
        return (None, None)
    if not isinstance(value, Mapping):
        return None
    short, long = value.get("short"), value.get("long")
    if (short is not None and not _number(short)) or (long is not None and not _number(long)):
        return None
    return (short, long)


class PriceCatalog:
    """Resolves ``(provider, model id)`` to :class:`ModelPrices`; catalog files are read once each, lazily."""

    def __init__(
        self,
        *,
        models_json: ModelsJson | None = None,
        data_dir: str | None = None,
        snapshot: CatalogSnapshot | None = None,
    ) -> None:
        """``data_dir``: an installed Pi's catalog; ``snapshot``: the catalog used when there is none."""
        self.models_json = models_json
        self.data_dir = data_dir
        self.snapshot = snapshot if data_dir is None else None
        self._catalog: dict[str, dict[str, Mapping[str, Any]]] = {}
        self._resolved: dict[tuple[str | None, str | None], ModelPrices] = {}

    @classmethod
    def for_agent_dir(cls, agent_dir: str, *, package_dir: str | None = None) -> PriceCatalog:
        """The usual catalog: the agent dir's models.json and an installed Pi's model data if any."""
        data_dir = find_pi_ai_data_dir(package_dir)
        snapshot = bundled_snapshot() if data_dir is None else None
        return cls(models_json=read_models_json(agent_dir), data_dir=data_dir, snapshot=snapshot)

    def _catalog_model(self, provider: str, model_id: str) -> Mapping[str, Any] | None:
        if self.data_dir is None:
            return self.snapshot.model(provider, model_id) if self.snapshot is not None else None
        models = self._catalog.get(provider)
        if models is None:
            models = {model["id"]: model for model in catalog_chat_models(self.data_dir, provider)}  # later groups win
            self._catalog[provider] = models
        return models.get(model_id)

    def _provider_config(self, provider: str) -> Mapping[str, Any]:
        if self.models_json is None or self.models_json.problem is not None:
            return {}
        config = self.models_json.providers.get(provider)
        return config if isinstance(config, Mapping) else {}

    def prices_for(self, provider: str | None, model_id: str | None) -> ModelPrices:
        key = (provider, model_id)
        found = self._resolved.get(key)
        if found is None:
            found = self._resolve(provider, model_id)
            self._resolved[key] = found
        return found

    def _resolve(self, provider: str | None, model_id: str | None) -> ModelPrices:
        unknown = ModelPrices(provider, model_id, None, (), "unknown", None, None, "unknown")
        if provider is None or model_id is None:
            return unknown
        config = self._provider_config(provider)
        base: ModelPrices | None = None
        custom = next(
            (m for m in config.get("models") or () if isinstance(m, Mapping) and m.get("id") == model_id), None
        )
        if custom is not None:
            base = _from_definition(provider, model_id, custom, "models.json", default_cost=Rates())
            base = replace(base, mid_conversation_system=_mid_conversation(config.get("compat"), custom.get("compat")))
        else:
            entry = self._catalog_model(provider, model_id)
            if entry is not None:
                base = _from_definition(provider, model_id, entry, "pi", default_cost=None)
                base = replace(base, mid_conversation_system=_mid_conversation(entry.get("compat")))
                if self.snapshot is not None:
                    note = f"no Pi installed: prices from {self.snapshot.label} (pi-context's copy)"
                    base = replace(base, catalog=self.snapshot.label, notes=(*base.notes, note))
        overrides = config.get("modelOverrides")
        override = overrides.get(model_id) if isinstance(overrides, Mapping) else None
        if base is None:
            return unknown  # an override alone names no model Pi knows
        if isinstance(override, Mapping):
            base = _apply_override(base, override)
            flag = _mid_conversation(override.get("compat"))
            if isinstance(override.get("compat"), Mapping) and "supportsMidConvoSystemMessages" in override["compat"]:
                base = replace(base, mid_conversation_system=flag)
        return base


def _mid_conversation(*compats: Any) -> bool:
    """``compat.supportsMidConvoSystemMessages``, later objects winning (Pi's ``mergeCompat``), default false."""
    flag = False
    for compat in compats:
        value = compat.get("supportsMidConvoSystemMessages") if isinstance(compat, Mapping) else None
        if isinstance(value, bool):
            flag = value
    return flag


_NO_COST_NOTE = "models.json gives no cost: Pi prices this model at 0"


def _from_definition(
    provider: str, model_id: str, model: Mapping[str, Any], source: PriceSource, *, default_cost: Rates | None
) -> ModelPrices:
    notes: list[str] = []
    raw_cost = model.get("cost")
    rates: Rates | None
    tiers: tuple[Tier, ...] = ()
    if raw_cost is None:
        rates = default_cost
        if rates is not None:
            notes.append(_NO_COST_NOTE)
    else:
        rates = Rates.from_json(raw_cost)
        parsed_tiers = parse_tiers(raw_cost.get("tiers")) if isinstance(raw_cost, Mapping) else None
        if rates is None or parsed_tiers is None:
            notes.append(f"{_SOURCE_WORDS[source]}: cost is malformed")
            rates, parsed_tiers = None, ()
        tiers = parsed_tiers
    lifetimes = parse_lifetimes(model.get("promptCache"))
    if lifetimes is None:
        notes.append(f"{_SOURCE_WORDS[source]}: promptCache is malformed")
        lifetimes = (None, None)
    return ModelPrices(
        provider,
        model_id,
        rates,
        tiers,
        source if rates is not None else "unknown",
        lifetimes[0],
        lifetimes[1],
        source if lifetimes != (None, None) else "unknown",
        tuple(notes),
    )


def _apply_override(base: ModelPrices, override: Mapping[str, Any]) -> ModelPrices:
    """Pi's ``applyModelOverride`` for cost (rate by rate, tiers whole) and ``promptCache`` (key by key)."""
    result = base
    raw_cost = override.get("cost")
    if isinstance(raw_cost, Mapping) and base.rates is not None:
        rates = Rates.from_json(raw_cost, base=base.rates)
        tiers = parse_tiers(raw_cost["tiers"]) if "tiers" in raw_cost else base.tiers
        if rates is None or tiers is None:
            result = replace(
                result, notes=(*result.notes, "models.json: modelOverrides cost is malformed, not applied")
            )
        else:
            # The override's rates replace the zero Pi assumed for a model defined without a cost.
            notes = tuple(note for note in result.notes if note != _NO_COST_NOTE)
            result = replace(result, rates=rates, tiers=tiers, price_source="models.json", notes=notes)
    lifetimes = parse_lifetimes(override.get("promptCache"))
    if lifetimes is not None and lifetimes != (None, None):
        short = lifetimes[0] if lifetimes[0] is not None else base.cache_short_s
        long = lifetimes[1] if lifetimes[1] is not None else base.cache_long_s
        result = replace(result, cache_short_s=short, cache_long_s=long, cache_source="models.json")
    return result


def default_retention(env: Mapping[str, str]) -> CacheRetention:
    """The retention Pi's requests use: ``long`` when ``PI_CACHE_RETENTION=long``, else ``short``."""
    return "long" if env.get("PI_CACHE_RETENTION") == "long" else "short"
