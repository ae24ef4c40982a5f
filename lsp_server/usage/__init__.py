"""Usage across every session: the paid requests of many Pi session files, counted once each.

The turn ledger (:mod:`lsp_server.cost.ledger`) is exact for one session. This package reads many:
:mod:`.discover` finds the session files, :mod:`.records` takes one :class:`~.records.UsageRecord`
per paid request out of a file (the ledger's rule) and :mod:`.reading` reads a file whole or from where
the last read stopped, :mod:`.cache` keeps the records between runs (a file that did not change is not
read again), :mod:`.lineage` counts a request that a fork or clone copied from its parent once,
:mod:`.report` groups and sums, :mod:`.collect` is one run of all that. :mod:`.otlp` (spans, with the
OpenTelemetry SDK), :mod:`.content` (a turn's messages, when asked), :mod:`.cursor` and :mod:`.export`
send each request once to a collector, and :mod:`.parquet` writes them for DuckDB. Nothing here imports
the language server; the CLI (``pi-context usage``) and the server (``pi/usage``) both call it.
"""
