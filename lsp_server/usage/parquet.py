"""The counted requests as one table for DuckDB: a Parquet file, or a table in a DuckDB database.

One row per request (the rows a usage report sums; the same filter by day): the session (id, file, the
project it ran in, its parent), the entry, the kind of request, provider and model, when it started and
when Pi wrote it (UTC instants), Pi's four counts, the cost and where it came from, and the stop
reason. A team can then ask DuckDB for anything over months of sessions::

    SELECT date_trunc('week', started_at) AS week, model, sum(cost) FROM 'usage.parquet' GROUP BY ALL;

Written with DuckDB itself (the optional ``duckdb`` extra: one wheel, no dependencies): the columns go
in as lists (``unnest``), so 200,000 rows take well under a second. The Parquet file is written to a
temporary name and renamed, so a reader never sees half of one; in a DuckDB database the table
``requests`` is replaced in one transaction and the database's other tables are left alone.
"""

from __future__ import annotations

import datetime as dt
import os
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Final

import duckdb

from lsp_server.cost.ledger import PricesFor
from lsp_server.usage.collect import UsageRun
from lsp_server.usage.report import Calendar, Pricer, in_range

TABLE: Final = "requests"

COLUMNS: Final = (
    ("session_id", "VARCHAR"),
    ("session_file", "VARCHAR"),
    ("project", "VARCHAR"),
    ("parent_session", "VARCHAR"),
    ("entry_id", "VARCHAR"),
    ("kind", "VARCHAR"),
    ("provider", "VARCHAR"),
    ("model", "VARCHAR"),
    ("started_at", "TIMESTAMPTZ"),
    ("written_at", "TIMESTAMPTZ"),
    ("input", "DOUBLE"),
    ("output", "DOUBLE"),
    ("cache_read", "DOUBLE"),
    ("cache_write", "DOUBLE"),
    ("cost", "DOUBLE"),
    ("cost_source", "VARCHAR"),
    ("stop_reason", "VARCHAR"),
)


def _instant(ms: int | None) -> dt.datetime | None:
    return dt.datetime.fromtimestamp(ms / 1000, dt.UTC) if ms is not None else None


@dataclass
class Rows:
    columns: dict[str, list[Any]]

    def __len__(self) -> int:
        return len(self.columns["entry_id"])


def request_rows(
    run: UsageRun,
    prices_for: PricesFor,
    *,
    calendar: Calendar | None = None,
    since: dt.date | None = None,
    until: dt.date | None = None,
) -> Rows:
    """The run's counted requests as columns, sessions in path order, requests in file order."""
    calendar = calendar if calendar is not None else Calendar()
    pricer = Pricer(prices_for)
    columns: dict[str, list[Any]] = {name: [] for name, _type in COLUMNS}
    for path in sorted(run.reads):
        head = run.reads[path].head
        if head is None:
            continue
        for record in run.attribution.counted.get(path, ()):
            if not in_range(record, calendar, since, until):
                continue
            cost, source = pricer.price(record)
            row = (
                head.id,
                path,
                head.cwd,
                head.parent,
                record.entry_id,
                record.kind,
                record.provider,
                record.model,
                _instant(record.time_ms),
                _instant(record.end_ms),
                float(record.input),
                float(record.output),
                float(record.cache_read),
                float(record.cache_write),
                cost,
                source,
                record.stop_reason,
            )
            for (name, _type), value in zip(COLUMNS, row, strict=True):
                columns[name].append(value)
    return Rows(columns)


def _select(rows: Rows) -> tuple[str, list[Any]]:
    """A SELECT that turns the column lists (one parameter each) into rows of the table's types."""
    parts = [f"unnest(${index + 1}::{kind}[]) AS {name}" for index, (name, kind) in enumerate(COLUMNS)]
    return "SELECT " + ", ".join(parts), [rows.columns[name] for name, _kind in COLUMNS]


def write_parquet(rows: Rows, path: str) -> None:
    """``path`` as one Parquet file (zstd) of the rows, replaced atomically."""
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    fd, temporary = tempfile.mkstemp(prefix=".usage-", suffix=".parquet", dir=folder)
    os.close(fd)
    try:
        with duckdb.connect() as connection:
            select, parameters = _select(rows)
            connection.execute(f"CREATE TABLE {TABLE} AS {select}", parameters)
            quoted = temporary.replace("'", "''")
            connection.execute(f"COPY {TABLE} TO '{quoted}' (FORMAT parquet, COMPRESSION zstd)")
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise


def write_duckdb(rows: Rows, path: str) -> None:
    """The table ``requests`` of the DuckDB database at ``path`` (created if needed), replaced in one transaction."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with duckdb.connect(path) as connection:
        select, parameters = _select(rows)
        connection.execute("BEGIN TRANSACTION")
        connection.execute(f"CREATE OR REPLACE TABLE {TABLE} AS {select}", parameters)
        connection.execute("COMMIT")


def column_names() -> Iterable[str]:
    return (name for name, _kind in COLUMNS)
