"""The next request, priced: how much of it the provider can still have cached, and what it will cost.

A provider's prompt cache hits only on a byte-identical prefix of an earlier request, so the next
request is compared with the previous one: the request that produced the branch's last reply, i.e.
the session projected at that reply's parent. Both are laid out as *segments* in the order the
provider receives them -- the system prompt, then one segment per message (``role`` + the text pi-context
renders for it) -- and the common prefix is the run of equal leading segments plus the common start
of the first differing one.

How the system prompt is laid out depends on the model (pi-ai's ``resolveTranscript``): a model with
``compat.supportsMidConvoSystemMessages`` gets the first system message as its prompt and every later
change as a system message in place (Pi's section patch), so a changed AGENTS.md keeps the prefix;
any other model gets the replayed current prompt first, so a change rewrites the start of every
request.

What the provider bills as a cache read is then modelled per API: Anthropic (``anthropic-messages``,
``bedrock-converse-stream``) reads only up to a cache breakpoint, and Pi sets two: after the system
prompt and tools, and at the end of the previous request; other APIs cache any common prefix. Token
counts are pi-context's estimates scaled to the provider's own count of the previous request
(``input + cacheRead + cacheWrite`` of its reply), so a prefix as long as the previous request costs
exactly what the provider reported for it. The cache is alive while the time since the last request
(a reply or a cache warm) is below the model's cache lifetime; the answer gives the expiry instant and
the price both ways instead of a verdict that would age.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Final

from lsp_server.budget.parts import llm_message_text
from lsp_server.cost.ledger import Request, request_of, usage_counts
from lsp_server.cost.prices import CacheRetention, ModelPrices, UsageCounts, calculate_cost
from lsp_server.js.strings import js_len
from lsp_server.js.values import UNDEFINED, js_get
from lsp_server.prompt.system_messages import current_system_message, render_system_message_update, system_message_text
from lsp_server.session.messages import convert_message_to_llm
from lsp_server.session.projection import SessionProjection, build_session_projection
from lsp_server.session.raw import Entry
from lsp_server.session.transform import transform_messages
from lsp_server.tokens.pi import pi_text_tokens

BREAKPOINT_APIS: Final = frozenset({"anthropic-messages", "bedrock-converse-stream"})

PricesFor = Callable[[str | None, str | None], ModelPrices]
Count = Callable[[str], int]


@dataclass(frozen=True)
class Segment:
    """One piece of a request in the provider's order: the system prompt, a system update, or a message."""

    kind: str  # "system", "systemUpdate", or the message role
    entry_id: str | None
    text: str


def request_segments(
    projection: SessionProjection, *, mid_conversation_system: bool, workspace_system: str | None = None
) -> list[Segment]:
    """The request a projection gives, as segments (see the module docstring for the two layouts)."""
    llm: list[Any] = []
    entry_ids: list[str | None] = []
    for projected in projection.entries:
        entry_id = js_get(projected.source_entry, "id")
        for message in projected.messages:
            converted = convert_message_to_llm(message)
            if converted is not None:
                llm.append(converted)
                entry_ids.append(entry_id if isinstance(entry_id, str) else None)
    model = projection.model
    sent = transform_messages(
        llm,
        provider=model.provider if model is not None and isinstance(model.provider, str) else None,
        model_id=model.model_id if model is not None and isinstance(model.model_id, str) else None,
    )
    segments: list[Segment] = []
    in_place = mid_conversation_system and any(js_get(piece.message, "role") == "system" for piece in sent)
    if not in_place:
        current = current_system_message(projection.messages)
        if current is not None:
            segments.append(Segment("system", None, system_message_text(current)))
        elif workspace_system:
            segments.append(Segment("system", None, workspace_system))
    first_system_seen = False
    for piece in sent:
        outgoing = piece.message
        role = js_get(outgoing, "role")
        entry_id = entry_ids[piece.source] if piece.source is not None else None
        if role == "system":
            if not in_place:
                continue
            if not first_system_seen:
                first_system_seen = True
                segments.append(Segment("system", entry_id, system_message_text(outgoing)))
            else:
                update = render_system_message_update(outgoing)
                if update:
                    segments.append(Segment("systemUpdate", entry_id, update))
            continue
        segments.append(Segment(str(role), entry_id, f"{role}\n{llm_message_text(outgoing)}"))
    return segments


@dataclass(frozen=True)
class Prefix:
    """The common start of two requests."""

    segments: int  # equal leading segments
    previous_segments: int
    next_segments: int
    chars: int  # UTF-16 units of the common prefix (whole segments plus the common start of the next one)
    pi_tokens: int
    tokens: int
    broken_at: Segment | None  # the next request's first segment that differs (None: the previous is a prefix)
    broken_offset: int | None  # UTF-16 units into that segment where they differ
    whole_previous: bool  # the previous request is entirely a prefix of the next
    system_kept: bool  # the system segment is unchanged


def _common_start(a: str, b: str) -> int:
    limit = min(len(a), len(b))
    index = 0
    while index < limit and a[index] == b[index]:
        index += 1
    return index


def common_prefix(previous: Sequence[Segment], following: Sequence[Segment], count: Count) -> Prefix:
    """The equal leading segments and the common start of the first differing one, with their tokens."""
    equal = 0
    limit = min(len(previous), len(following))
    while equal < limit and _bytes(previous[equal]) == _bytes(following[equal]):
        equal += 1
    text = "".join(segment.text for segment in following[:equal])
    broken: Segment | None = None
    offset: int | None = None
    if equal < len(following):
        broken = following[equal]
        if equal < len(previous) and previous[equal].kind == broken.kind:
            start = _common_start(previous[equal].text, broken.text)
            offset = js_len(broken.text[:start])
            text += broken.text[:start]
        else:
            offset = 0
    whole = equal == len(previous)
    system_kept = bool(previous) and bool(following) and previous[0].kind == "system" and equal >= 1
    return Prefix(
        equal,
        len(previous),
        len(following),
        js_len(text),
        pi_text_tokens(text),
        count(text),
        broken,
        offset,
        whole,
        system_kept,
    )


def _bytes(segment: Segment) -> tuple[str, str]:
    """What is compared: kind and text (the entry id is provenance, not bytes sent)."""
    return (segment.kind, segment.text)


@dataclass(frozen=True)
class Expected:
    """What the next request's prompt costs if the cache holds (``warm``) or not (``cold``)."""

    cache_read: int
    new_input: int
    cost: float | None  # US dollars for the prompt side (output not included), None when prices are unknown

    def to_json(self) -> dict[str, Any]:
        return {"cacheRead": self.cache_read, "newInput": self.new_input, "cost": self.cost}


@dataclass(frozen=True)
class NextRequestCost:
    previous: Request | None  # the reply whose request is compared (None: no earlier request on the branch)
    last_request_ms: int | None  # the last request that touched the cache (reply or cache warm)
    retention: CacheRetention
    cache_lifetime_s: float | None
    cache_source: str
    same_model: bool
    api: str | None
    prefix: Prefix | None
    next_pi_tokens: int
    next_tokens: int
    scale: float  # provider tokens per estimated token, from the previous request
    warm: Expected
    cold: Expected
    price_source: str
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def expires_at_ms(self) -> int | None:
        if self.last_request_ms is None or self.cache_lifetime_s is None:
            return None
        return self.last_request_ms + int(self.cache_lifetime_s * 1000)

    def expired(self, now_ms: int) -> bool | None:
        """Whether the cache has probably expired at ``now_ms`` (None: lifetime or last request unknown)."""
        expires = self.expires_at_ms
        return None if expires is None else now_ms >= expires

    def to_json(self) -> dict[str, Any]:
        prefix = self.prefix
        return {
            "previousEntryId": self.previous.entry_id if self.previous is not None else None,
            "lastRequestAt": self.last_request_ms,
            "retention": self.retention,
            "cacheLifetimeS": self.cache_lifetime_s,
            "cacheSource": self.cache_source,
            "expiresAt": self.expires_at_ms,
            "sameModel": self.same_model,
            "api": self.api,
            "prefix": None
            if prefix is None
            else {
                "segments": prefix.segments,
                "previousSegments": prefix.previous_segments,
                "nextSegments": prefix.next_segments,
                "chars": prefix.chars,
                "piTokens": prefix.pi_tokens,
                "tokens": prefix.tokens,
                "wholePrevious": prefix.whole_previous,
                "systemKept": prefix.system_kept,
                "brokenAt": None
                if prefix.broken_at is None
                else {
                    "kind": prefix.broken_at.kind,
                    "entryId": prefix.broken_at.entry_id,
                    "offset": prefix.broken_offset,
                },
            },
            "nextPiTokens": self.next_pi_tokens,
            "nextTokens": self.next_tokens,
            "scale": self.scale,
            "warm": self.warm.to_json(),
            "cold": self.cold.to_json(),
            "priceSource": self.price_source,
            "notes": list(self.notes),
        }


def _segments_tokens(segments: Sequence[Segment], count: Count) -> tuple[int, int]:
    text = "".join(segment.text for segment in segments)
    return pi_text_tokens(text), count(text)


def _last_reply_index(branch: Sequence[Entry]) -> int | None:
    """The last reply the provider counted a prompt for (a failed request with zero usage wrote no cache;
    Pi's cache statistics skip such replies too)."""
    for index in range(len(branch) - 1, -1, -1):
        entry = branch[index]
        message = js_get(entry, "message")
        reply = js_get(entry, "type") == "message" and js_get(message, "role") == "assistant"
        if reply and usage_counts(js_get(message, "usage")).prompt_tokens > 0:
            return index
    return None


def _last_request_ms(branch: Sequence[Entry], prices_for: PricesFor) -> int | None:
    for entry in reversed(branch):
        kind = js_get(entry, "type")
        if kind == "usage" and js_get(entry, "kind") != "cache_warm":
            continue
        if kind in ("message", "usage"):
            request = request_of(entry, prices_for)
            if request is not None and request.timestamp_ms is not None:
                return request.timestamp_ms
    return None


def _prompt_cost(prices: ModelPrices, cache_read: int, new_input: int) -> float | None:
    """The prompt side: reads at the cache-read rate, the rest written to the cache where the model has a
    write rate (what Pi's breakpoints do on Anthropic), else billed as input -- pi-ai's own split in
    ``evaluateCacheWarming``."""
    if prices.rates is None:
        return None
    writes = prices.rates.cache_write > 0
    usage = UsageCounts(input=0 if writes else new_input, cache_read=cache_read, cache_write=new_input if writes else 0)
    return calculate_cost(prices.rates, prices.tiers, usage).total


def price_next_request(
    branch: Sequence[Entry],
    next_projection: SessionProjection,
    prices_for: PricesFor,
    count: Count,
    *,
    retention: CacheRetention = "short",
    workspace_system: str | None = None,
) -> NextRequestCost:
    """The request ``next_projection`` gives (the branch's next request) priced against the previous one."""
    model = next_projection.model
    provider = model.provider if model is not None and isinstance(model.provider, str) else None
    model_id = model.model_id if model is not None and isinstance(model.model_id, str) else None
    prices = prices_for(provider, model_id)
    notes: list[str] = list(prices.notes)
    following = request_segments(
        next_projection, mid_conversation_system=prices.mid_conversation_system, workspace_system=workspace_system
    )
    next_pi, next_est = _segments_tokens(following, count)
    last_ms = _last_request_ms(branch, prices_for)
    reply_index = _last_reply_index(branch)
    lifetime = prices.cache_lifetime_s(retention)
    cache_source = prices.cache_source if lifetime is not None else "unknown"
    if reply_index is None:
        cold_input = next_est
        cold = Expected(0, cold_input, _prompt_cost(prices, 0, cold_input))
        return NextRequestCost(
            None, last_ms, retention, lifetime, cache_source, True, None, None, next_pi, next_est, 1.0,
            cold, cold, prices.price_source, (*notes, "no earlier request on this branch: nothing is cached"),
        )  # fmt: skip
    reply = branch[reply_index]
    previous = request_of(reply, prices_for)
    assert previous is not None
    parent = js_get(reply, "parentId")
    by_id = {js_get(entry, "id"): entry for entry in branch[:reply_index]}
    previous_projection = build_session_projection(
        branch[:reply_index], parent if isinstance(parent, str) else UNDEFINED, by_id
    )
    before = request_segments(
        previous_projection, mid_conversation_system=prices.mid_conversation_system, workspace_system=workspace_system
    )
    prefix = common_prefix(before, following, count)
    _, previous_est = _segments_tokens(before, count)
    reported = previous.usage.prompt_tokens
    scale = reported / previous_est if reported > 0 and previous_est > 0 else 1.0
    next_tokens = round(next_est * scale)
    same_model = (previous.provider, previous.model) == (provider, model_id)
    api = js_get(js_get(reply, "message"), "api")
    api = api if isinstance(api, str) else None
    if not same_model:
        cached = 0
        notes.append("the model changed since the last request: its cache is not this model's")
    elif api in BREAKPOINT_APIS:
        # What the previous request left in the cache: its reads and writes, up to its last breakpoint
        # (its ``input`` is what came after that breakpoint, never stored).
        stored = round(previous.usage.cache_read + previous.usage.cache_write)
        if prefix.whole_previous:
            cached = stored
        elif prefix.system_kept and before:
            cached = min(stored, round(_segments_tokens(before[:1], count)[1] * scale))
            notes.append("the prefix breaks after the system prompt: only its cache breakpoint still matches")
        else:
            cached = 0
    else:
        cached = min(round(prefix.tokens * scale), round(reported))
    cached = min(cached, next_tokens)
    warm = Expected(cached, next_tokens - cached, _prompt_cost(prices, cached, next_tokens - cached))
    cold = Expected(0, next_tokens, _prompt_cost(prices, 0, next_tokens))
    if lifetime is None:
        notes.append(f"{prices.name}: no cache lifetime known (Pi's catalog and models.json give none)")
    return NextRequestCost(
        previous, last_ms, retention, lifetime, cache_source, same_model, api, prefix, next_pi, next_est, scale,
        warm, cold, prices.price_source, tuple(notes),
    )  # fmt: skip


def with_prompt(cost: NextRequestCost, prompt_tokens: int, prices: ModelPrices) -> NextRequestCost:
    """The same request with a user prompt of ``prompt_tokens`` (estimated) appended: new input both ways."""
    extra = round(prompt_tokens * cost.scale)
    warm = Expected(cost.warm.cache_read, cost.warm.new_input + extra, None)
    cold = Expected(0, cost.cold.new_input + extra, None)
    return replace(
        cost,
        next_pi_tokens=cost.next_pi_tokens + prompt_tokens,
        next_tokens=cost.next_tokens + prompt_tokens,
        warm=replace(warm, cost=_prompt_cost(prices, warm.cache_read, warm.new_input)),
        cold=replace(cold, cost=_prompt_cost(prices, 0, cold.new_input)),
    )
