"""Sending the counted requests of a usage run that the collector has not accepted yet.

:func:`pending` lists them (the run's counted requests, in the asked range, minus the cursor's),
:func:`send_pending` turns them into spans and sends them in batches, writing each accepted batch to
the cursor before the next one goes. A batch the collector refuses stops the export: nothing after
it is marked, so the next run (or the next change under ``--watch``) sends it again.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, replace
from typing import Any

from lsp_server.cost.ledger import PricesFor
from lsp_server.session.bounds import SessionReadLimits
from lsp_server.session.raw import Entry
from lsp_server.session.tail import load_session
from lsp_server.usage.collect import UsageRun
from lsp_server.usage.content import input_messages, output_messages
from lsp_server.usage.cursor import SentCursor
from lsp_server.usage.otlp import BATCH_SIZE, Outgoing, SpanSender, record_id_text
from lsp_server.usage.report import Calendar, Pricer, in_range


@dataclass(frozen=True)
class ExportResult:
    sent: int  # requests the collector accepted in this export
    already: int  # requests skipped because the cursor holds them
    error: str | None = None

    def to_json(self) -> dict[str, object]:
        return {"sent": self.sent, "alreadySent": self.already, "error": self.error}


def pending(
    run: UsageRun,
    cursor: SentCursor,
    prices_for: PricesFor,
    *,
    calendar: Calendar | None = None,
    since: dt.date | None = None,
    until: dt.date | None = None,
    content: SessionReadLimits | None = None,
) -> tuple[list[tuple[str, Outgoing]], int]:
    """The requests to send, each with its cursor id, in session then file order; and how many were sent before.

    ``content`` (the read limits) adds each reply's messages: its session is loaded once, only when it has
    something to send.
    """
    calendar = calendar if calendar is not None else Calendar()
    pricer = Pricer(prices_for)
    out: list[tuple[str, Outgoing]] = []
    queued: set[str] = set()  # a line Pi wrote twice in one file: one span (the same ids) for both
    already = 0
    for path in sorted(run.reads):
        head = run.reads[path].head
        if head is None:
            continue
        entries: dict[Any, Entry] | None = None
        for record in run.attribution.counted.get(path, ()):
            if not in_range(record, calendar, since, until):
                continue
            record_id = record_id_text(record, path)
            if record_id in cursor:
                already += 1
                continue
            if record_id in queued:
                continue
            queued.add(record_id)
            cost, source = pricer.price(record)
            item = Outgoing(path, head, record, cost, source)
            if content is not None and record.entry_id is not None:
                if entries is None:
                    entries = load_session(path, content).index.by_id
                entry = entries.get(record.entry_id)
                if entry is not None:
                    item = replace(
                        item, input_messages=input_messages(entry, entries), output_messages=output_messages(entry)
                    )
            out.append((record_id, item))
    return out, already


def send_pending(
    run: UsageRun,
    cursor: SentCursor,
    sender: SpanSender,
    prices_for: PricesFor,
    *,
    calendar: Calendar | None = None,
    since: dt.date | None = None,
    until: dt.date | None = None,
    content: SessionReadLimits | None = None,
) -> ExportResult:
    """Send what the collector has not accepted yet, batch by batch, each accepted batch remembered at once."""
    todo, already = pending(run, cursor, prices_for, calendar=calendar, since=since, until=until, content=content)
    sent = 0
    for start in range(0, len(todo), BATCH_SIZE):
        batch = todo[start : start + BATCH_SIZE]
        spans = sender.spans(item for _record_id, item in batch)
        error = sender.export(spans)
        if error is not None:
            return ExportResult(sent, already, error)
        cursor.add(record_id for record_id, _item in batch)
        sent += len(batch)
    return ExportResult(sent, already)
