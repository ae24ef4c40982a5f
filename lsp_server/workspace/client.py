"""The editor as the workspace sees it: a small interface, implemented by the LSP binding.

The workspace never builds an LSP message. It asks its client to send a notification (the
protocol's payload models, as JSON), to publish a file's findings, to log, to run a long operation
with the editor's progress UI, and to translate between paths and the editor's URIs. The LSP
binding (:class:`lsp_server.server.app.LspClient`) implements it over pygls; a test can implement it
with a list.
"""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from typing import TYPE_CHECKING, Any, Literal, Protocol

if TYPE_CHECKING:
    from lsp_server.workspace.cancellation import Operation
    from lsp_server.workspace.diagnostics import FileDiagnostics

LogLevel = Literal["info", "warning", "error"]


class Client(Protocol):
    """What the workspace asks of the editor it serves."""

    def notify(self, method: str, params: Any) -> None:
        """Send a server → client notification (a row of :mod:`lsp_server.methods`)."""

    def publish(self, entry: FileDiagnostics) -> None:
        """Show a file's findings (an entry without findings clears them)."""

    def log(self, message: str, level: LogLevel = "info") -> None:
        """A line in the editor's output channel (and the server's log), keys redacted."""

    def log_failure(self, what: str, exc: BaseException) -> None:
        """A failure that is not an answer: logged with its last frames; never raises."""

    def long_operation(
        self, title: str, *, cancellable: bool = True, message: str | None = None
    ) -> AbstractAsyncContextManager[Operation]:
        """Progress and cancellation for the request being handled (``$/progress``, ``$/cancelRequest``)."""
        ...

    def uri_for(self, path: str) -> str:
        """The editor's URI for a file (its own spelling when the file is open)."""
        ...

    def folder_uri(self, root: str) -> str:
        """The editor's URI for a workspace folder, as it sent it."""
        ...

    def path_of(self, uri: str) -> str | None:
        """The path of a ``file:`` URI (normalised as the document store keys it), else None."""
        ...

    def folders(self) -> list[str]:
        """The workspace folders the editor has open now (their paths)."""
        ...

    def refresh_code_lenses(self) -> None:
        """Ask the editor to ask for code lenses again (when it can)."""
