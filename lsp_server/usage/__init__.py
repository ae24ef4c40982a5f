"""Usage across every session: the paid requests of many Pi session files, counted once each.

The turn ledger (:mod:`lsp_server.cost.ledger`) is exact for one session. This package reads many:
:mod:`.discover` finds the session files, :mod:`.records` takes one :class:`~.records.UsageRecord`
per paid request out of a file, :mod:`.cache` keeps those records between runs (a file that did not
change is not read again, one that grew is read from where the last run stopped), :mod:`.lineage`
counts a request that a fork or clone copied from its parent once, :mod:`.report` groups and sums,
:mod:`.otlp` and :mod:`.cursor` send each request once to an OpenTelemetry backend, and
:mod:`.parquet` writes them for DuckDB. Nothing here imports the language server; the CLI
(``pi-context usage``) and the server (``pi/usage``) both call it.
"""
