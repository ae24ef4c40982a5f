"""The answers a request can end with besides its result: bad params, or a request that could not be carried out.

Raised by the application layer, which knows no JSON-RPC; the LSP binding (:mod:`lsp_server.server.errors`)
turns them into JSON-RPC errors: :class:`InvalidParams` into ``-32602`` with ``<method>: <message>``,
:class:`RequestFailed` into ``-32803`` (LSP's RequestFailed) with its ``data``. Nothing is written
when either is raised: they are answers, not failures, and are not logged.
"""

from __future__ import annotations

from typing import Any


class InvalidParams(Exception):
    """The params name something that is not there (a folder, a session file, an entry), or are malformed."""

    def __init__(self, method: str, message: str) -> None:
        super().__init__(f"{method}: {message}")
        self.method = method
        self.detail = message


class RequestFailed(Exception):
    """A valid request the workspace could not carry out (the summarizer failed, Pi refused, nothing to compact)."""

    def __init__(self, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.message = message
        self.data = data
