"""The turn ledger as text: one row per request, then totals per branch, model and session."""

from __future__ import annotations

import time
from typing import TextIO

from lsp_server import protocol
from lsp_server.base.money import format_usd
from lsp_server.cli._session_text import table

_SOURCE_MARK = {"recorded": "", "computed": "*", "unknown": "?"}


def _n(value: float) -> str:
    return f"{value:,.0f}"


def _ratio(value: float | None) -> str:
    return "-" if value is None else f"{value * 100:.0f}%"


def _gap(ms: int | None) -> str:
    if ms is None:
        return "-"
    seconds = ms / 1000
    if seconds < 60:
        return f"{seconds:.1f}s"
    if seconds < 3600:
        return f"{int(seconds // 60)}m{int(seconds % 60):02d}s"
    if seconds < 86400:
        return f"{int(seconds // 3600)}h{int(seconds % 3600 // 60):02d}m"
    return f"{int(seconds // 86400)}d{int(seconds % 86400 // 3600):02d}h"


def _row(label: str, request: protocol.LedgerRequest) -> list[str]:
    model = request.model or "-"
    return [
        label,
        request.entry_id or "-",
        model,
        _gap(request.since_previous_ms),
        _n(request.input),
        _n(request.cache_read),
        _n(request.cache_write),
        _n(request.output),
        _ratio(request.cache_hit_ratio),
        format_usd(request.cost) + _SOURCE_MARK[request.cost_source],
    ]


def _totals_line(name: str, totals: protocol.LedgerTotals) -> str:
    unknown = f" (+{totals.unknown_cost} unknown)" if totals.unknown_cost else ""
    return (
        f"{name}: {totals.requests:,} requests, {format_usd(totals.cost)}{unknown}; input {_n(totals.input)}, "
        f"cache read {_n(totals.cache_read)}, cache write {_n(totals.cache_write)}, output {_n(totals.output)}; "
        f"cache hits {_ratio(totals.cache_hit_ratio)}"
    )


def _next_request(out: TextIO, upcoming: protocol.NextRequestCostInfo, now_ms: int) -> None:
    prefix = upcoming.prefix
    out.write("\nNext request\n")
    if prefix is None:
        out.write(
            f"  no earlier request on this branch; whole prompt new: {_n(upcoming.cold.new_input)} tokens, "
            f"{format_usd(upcoming.cold.cost)}\n"
        )
    else:
        broken = prefix.broken_at
        where = (
            "the whole previous request is a prefix"
            if prefix.whole_previous
            else f"differs at {broken.kind} {broken.entry_id or ''} +{broken.offset}".replace("  ", " ")
            if broken is not None
            else ""
        )
        out.write(
            f"  byte-identical prefix: {prefix.segments} of {prefix.next_segments} segments, "
            f"{_n(prefix.chars)} chars, {_n(prefix.tokens)} tokens ({where}); "
            f"the next request is ~{_n(upcoming.cold.new_input)} provider tokens\n"
        )
    if upcoming.expires_at is None:
        state = "cache lifetime unknown"
    elif now_ms >= upcoming.expires_at:
        state = f"cache probably expired {_gap(now_ms - upcoming.expires_at)} ago"
    else:
        state = f"cache alive for about {_gap(upcoming.expires_at - now_ms)} more"
    lifetime = f"{upcoming.cache_lifetime_s:g}s [{upcoming.cache_source}]" if upcoming.cache_lifetime_s else "unknown"
    out.write(f"  {state} (lifetime {lifetime}, {upcoming.retention} retention)\n")
    warm, cold = upcoming.warm, upcoming.cold
    out.write(
        f"  if cached: read {_n(warm.cache_read)}, new {_n(warm.new_input)}, {format_usd(warm.cost)}; "
        f"if expired: new {_n(cold.new_input)}, {format_usd(cold.cost)} (prompt only, output not included)\n"
    )
    for note in upcoming.notes:
        out.write(f"  note: {note}\n")


def print_ledger(out: TextIO, ledger: protocol.TurnLedgerResult, now_ms: int | None = None) -> None:
    out.write(f"Costs  {ledger.session} (branch to {ledger.leaf_id or '-'})\n")
    rows = [["#", "entry", "model", "since", "input", "cache read", "cache write", "output", "hits", "cost"]]
    markers: dict[int, list[protocol.LedgerMarker]] = {}
    for marker in ledger.markers:
        markers.setdefault(marker.after_turn, []).append(marker)
    requests = sorted(
        [*ledger.turns, *ledger.other_requests], key=lambda r: r.timestamp if r.timestamp is not None else 0
    )
    turn_count = 0
    for request in requests:
        if request.kind == "turn":
            for marker in markers.pop(turn_count, []):
                rows.append(["", marker.entry_id or "-", f"-- {marker.kind}", "", "", "", "", "", "", ""])
            rows.append(_row(str(request.index), request))
            turn_count += 1
        else:
            rows.append(_row(request.kind, request))
    for after in sorted(markers):
        for marker in markers[after]:
            rows.append(["", marker.entry_id or "-", f"-- {marker.kind}", "", "", "", "", "", "", ""])
    for line in table(rows, "<<<>>>>>>>"):
        out.write(f"  {line}\n")
    out.write("  cost: as Pi recorded it; * computed from the model's prices; ? unknown\n")
    out.write(f"  {_totals_line('turns on this branch', ledger.totals)}\n")
    if ledger.other_requests:
        out.write(f"  {_totals_line('branch incl. cache warms and summaries', ledger.branch_totals)}\n")
    out.write(f"  {_totals_line('whole session (every branch)', ledger.session_totals)}\n")
    for model in ledger.by_model:
        out.write(f"  {_totals_line(model.model, model)}\n")
    for prices in ledger.prices:
        lifetime = prices.cache_lifetime
        cache = (
            f"cache lives {lifetime.short:g}s (short), {lifetime.long:g}s (long) [{prices.cache_source}]"
            if lifetime.short is not None and lifetime.long is not None
            else f"cache lifetime: {lifetime.short or lifetime.long or 'unknown'} [{prices.cache_source}]"
        )
        out.write(f"  prices: {prices.detail}; {cache}\n")
    for note in ledger.notes:
        out.write(f"  note: {note}\n")
    if ledger.next_request is not None:
        _next_request(out, ledger.next_request, int(time.time() * 1000) if now_ms is None else now_ms)
    if ledger.prompt_update is not None:
        _prompt_update(out, ledger.prompt_update, ledger.next_request)


def _prompt_update(
    out: TextIO, update: protocol.SessionPromptUpdateInfo, without: protocol.NextRequestCostInfo | None
) -> None:
    """What Pi sends this session when it next loads the workspace's files (docs/cost.md, "What a save costs")."""
    out.write("\nIf Pi loads the workspace's files now (a resumed session, /reload)\n")
    if not update.patch:
        out.write("  nothing changes: the session's recorded prompt is the workspace's\n")
        return
    cache = update.cache
    names = ", ".join(f"{name} (removed)" if text is None else name for name, text in update.patch.items())
    out.write(f"  Pi's patch: {names}; {_n(cache.patch_tokens.pi)} tokens by Pi's count\n")
    if update.mode == "patch":
        out.write(
            "  this model takes system messages mid-conversation: the patch goes at the end of the next request, "
            "the cached prefix is kept\n"
        )
    else:
        out.write(
            f"  this model gets the new prompt at the start: it first differs at character {cache.first_difference}, "
            f"after {_n(cache.kept_tokens.pi)} tokens; the {_n(cache.resent_tokens.pi)} tokens after that and the "
            "whole conversation are new input\n"
        )
    upcoming = update.next_request
    if upcoming is not None:
        line = f"  next request with it: cached {_n(upcoming.warm.cache_read)}, new {_n(upcoming.warm.new_input)}, "
        line += format_usd(upcoming.warm.cost)
        if without is not None:
            line += (
                f"; without it: cached {_n(without.warm.cache_read)}, new {_n(without.warm.new_input)}, "
                f"{format_usd(without.warm.cost)}"
            )
        out.write(line + " (if the cache holds)\n")
    read = update.new_session_cache_read.pi
    kept = cache.kept_tokens.pi
    where = (
        f"{_n(read)} can be read from the cache"
        if read == kept
        else "none of them read from the cache on this API: Pi's first cache breakpoint is after the whole prompt"
    )
    out.write(
        f"  a new session sends the workspace's prompt: its first {_n(kept)} tokens match this session's ({where}), "
        f"{_n(cache.resent_tokens.pi)} after them are new\n"
    )


def economics_text(economics: protocol.CompactionEconomicsInfo) -> str:
    """A compaction's or branch summary's cost in three lines (see docs/cost.md)."""
    calls = f"{economics.requests} summary call{'s' if economics.requests != 1 else ''}"
    tokens = f"{_n(economics.summary_input)} tokens in (uncached), {_n(economics.summary_output)} out"
    if economics.summary_model is None:  # the calls as Pi makes them, with the session's model
        priced = f"{format_usd(economics.summary_cost)} at {economics.model}'s prices [{economics.price_source}]"
        lines = [f"{calls}: {tokens}, {priced}"]
    else:  # pi-context's summarizer made them: its model's prices, the usage its provider reported
        counted = (
            "as the provider reported"
            if economics.summary_tokens_source == "reported"
            else "by Pi's estimate (the provider reported no usage)"
        )
        source = economics.summary_price_source or "unknown"
        priced = f"{format_usd(economics.summary_cost)} at {economics.summary_model}'s prices [{source}]"
        lines = [f"{calls}: {tokens} {counted}, {priced}"]
    later = "" if economics.summary_model is None else f" at {economics.model}'s prices [{economics.price_source}]"
    if economics.removed_per_request > 0:
        lines.append(
            f"every later request carries {_n(economics.removed_per_request)} fewer tokens "
            f"({_n(economics.context_before)} -> {_n(economics.context_after)}), "
            f"saving {format_usd(economics.saving_per_request)} each with a warm cache{later}; "
            f"the first one rewrites the cache ({format_usd(economics.rewrite_cost)})"
        )
        even = economics.break_even_requests
        lines.append(f"pays for itself after {even} later requests" if even is not None else "break-even: unknown")
    elif economics.context_before > 0:
        lines.append(
            f"every later request carries {_n(-economics.removed_per_request)} more tokens: the summary is longer "
            "than the messages it replaces"
        )
    else:
        lines.append(f"every later request carries {_n(-economics.removed_per_request)} more tokens (the summary)")
    return "\n".join(lines)
