"""The turn ledger as text: one row per request, then totals per branch, model and session."""

from __future__ import annotations

from typing import TextIO

from lsp_server import protocol
from lsp_server.cli._session_text import table

_SOURCE_MARK = {"recorded": "", "computed": "*", "unknown": "?"}


def _n(value: float) -> str:
    return f"{value:,.0f}"


def _usd(value: float | None) -> str:
    if value is None:
        return "unknown"
    return f"${value:,.4f}" if value < 100 else f"${value:,.2f}"


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
    return f"{int(seconds // 3600)}h{int(seconds % 3600 // 60):02d}m"


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
        _usd(request.cost) + _SOURCE_MARK[request.cost_source],
    ]


def _totals_line(name: str, totals: protocol.LedgerTotals) -> str:
    unknown = f" (+{totals.unknown_cost} unknown)" if totals.unknown_cost else ""
    return (
        f"{name}: {totals.requests:,} requests, {_usd(totals.cost)}{unknown}; input {_n(totals.input)}, "
        f"cache read {_n(totals.cache_read)}, cache write {_n(totals.cache_write)}, output {_n(totals.output)}; "
        f"cache hits {_ratio(totals.cache_hit_ratio)}"
    )


def print_ledger(out: TextIO, ledger: protocol.TurnLedgerResult) -> None:
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
