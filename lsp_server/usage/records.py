"""One record per paid request of a session file, and the session's header.

A record is what the turn ledger counts for one request (:func:`lsp_server.cost.ledger.request_of`:
an assistant reply, a ``usage`` entry such as Pi's cache warming, the summary call of a compaction or
branch summary), reduced to what usage across sessions needs: the counts, the cost Pi recorded, the
model, when it happened, and the two things a fork or clone copies unchanged: the entry's ``id`` and
its ``timestamp`` string. Pi's ``createBranchedSession`` (``/fork``, ``/clone``) and ``forkFrom``
(``--fork``) write the parent's entries again with the same id and timestamp (only ``parentId`` may
change), so that pair is the request's identity across files (:mod:`.lineage`).

The cost kept is the one Pi recorded (``usage.cost.total``); a request without one is priced when the
report is made (:mod:`.report`), with the prices known then, so the records do not depend on prices.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final, NamedTuple

from lsp_server.cost.ledger import request_of
from lsp_server.cost.prices import ModelPrices
from lsp_server.js.dates import js_date_ms
from lsp_server.js.values import js_get
from lsp_server.session.raw import Entry

_UNPRICED: Final = ModelPrices(None, None, None, (), "unknown", None, None, "unknown")


def _no_prices(provider: str | None, model: str | None) -> ModelPrices:
    return _UNPRICED


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _ms(value: Any) -> int | None:
    return js_date_ms(value) if isinstance(value, str) else None


@dataclass(frozen=True, slots=True)
class SessionHead:
    """What a session's header says: its id, folder, creation time and the session it was copied from."""

    id: str | None
    cwd: str | None
    parent: str | None  # the header's ``parentSession``: the file a fork or clone was made from
    created_ms: int | None
    version: float | None

    @classmethod
    def of(cls, header: Entry) -> SessionHead:
        version = header.get("version")
        number = float(version) if isinstance(version, (int, float)) and not isinstance(version, bool) else None
        return cls(
            _str(header.get("id")),
            _str(header.get("cwd")) or None,
            _str(header.get("parentSession")) or None,
            _ms(header.get("timestamp")),
            number,
        )

    def to_row(self) -> list[Any]:
        return [self.id, self.cwd, self.parent, self.created_ms, self.version]

    @classmethod
    def from_row(cls, row: list[Any]) -> SessionHead:
        return cls(*row)


class UsageRecord(NamedTuple):
    """One paid request: its identity, model, time, counts and recorded cost.

    A named tuple: a cache of 200,000 of them is rebuilt from JSON rows on every run, and a tuple is
    made several times faster than a frozen dataclass.
    """

    entry_id: str | None
    entry_time: str | None  # the entry's ``timestamp`` as Pi wrote it
    kind: str  # "turn", a usage entry's kind ("cache_warm"), "compaction", "branchSummary"
    provider: str | None
    model: str | None
    time_ms: int | None  # when the request started (the ledger's timestamp), else when the entry was written
    end_ms: int | None  # when the entry was written
    input: float
    output: float
    cache_read: float
    cache_write: float
    cache_write_1h: float | None
    recorded_cost: float | None  # Pi's ``usage.cost.total``
    stop_reason: str | None
    line: int  # 1-based line in the file

    @property
    def key(self) -> tuple[str, str] | None:
        """The identity a copy keeps (entry id and timestamp); ``None`` for an entry without both."""
        if self.entry_id is None or self.entry_time is None:
            return None
        return (self.entry_id, self.entry_time)

    @property
    def is_turn(self) -> bool:
        return self.kind == "turn"

    def to_row(self) -> list[Any]:
        return list(self)

    @classmethod
    def from_row(cls, row: list[Any]) -> UsageRecord:
        if len(row) != len(cls._fields):
            raise ValueError(f"a usage record has {len(cls._fields)} fields, not {len(row)}")
        return cls._make(row)


def record_of(entry: Entry, line: int) -> UsageRecord | None:
    """The paid request ``entry`` records, if any (the ledger's rule), as a record."""
    request = request_of(entry, _no_prices)
    if request is None:
        return None
    entry_time = _str(js_get(entry, "timestamp"))
    end_ms = _ms(entry_time)
    pricing = request.pricing
    usage = request.usage
    return UsageRecord(
        _str(js_get(entry, "id")),
        entry_time,
        request.kind,
        request.provider,
        request.model,
        request.timestamp_ms if request.timestamp_ms is not None else end_ms,
        end_ms,
        usage.input,
        usage.output,
        usage.cache_read,
        usage.cache_write,
        usage.cache_write_1h,
        pricing.cost.total if pricing.cost is not None and pricing.source == "recorded" else None,
        request.stop_reason,
        line,
    )
