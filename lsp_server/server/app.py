"""The pygls binding: LSP messages in, calls on the workspace, LSP messages out.

``PiLanguageServer`` is pygls's server with what only LSP has: the protocol adjustments below, the
registry of running operations (``cancels``, for ``$/cancelRequest`` and the progress UI's cancel),
the guard on every handler, logging to ``window/logMessage``, and the editor's URIs, capabilities and
folders. Everything else lives in its workspace (``ls.ws``, :class:`lsp_server.workspace.workspace.Workspace`,
pygls-free), which talks back through :class:`LspClient`. The handlers are registered by
:func:`lsp_server.server.create.create_server`: the custom methods from the method table
(:mod:`.handlers`), the rest in small modules (``lifecycle``, ``sync``, the editor features in
``features/``, ``debug_commands``).

Two pygls behaviours are adjusted here, both in ``PiProtocol``:

* ``$/cancelRequest`` also sets our cancel token for the request, because for
  ``workspace/executeCommand`` pygls cancels only the outer future and the command keeps running;
* ``workspace/executeCommand`` records its params and request id in a context variable, so a
  command can find its ``workDoneToken`` (pygls passes only ``arguments`` to commands).
"""

from __future__ import annotations

import contextvars
import logging
import os
from collections.abc import AsyncIterator, Callable, Generator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

from lsprotocol import types
from lsprotocol.converters import get_converter
from pygls.exceptions import FeatureRequestError
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.language_server import lsp_method
from pygls.uris import from_fs_path, to_fs_path

from lsp_server import __version__
from lsp_server.redaction.keyring import KeyRing
from lsp_server.server.diagnostics import to_diagnostics
from lsp_server.server.errors import SENT_TO_CLIENT, guard, is_notification, log_failure
from lsp_server.server.progress import create_progress_token, long_operation
from lsp_server.workspace.cancellation import CancelRegistry, Operation
from lsp_server.workspace.client import LogLevel
from lsp_server.workspace.diagnostics import FileDiagnostics
from lsp_server.workspace.documents import path_key
from lsp_server.workspace.workspace import Workspace

logger = logging.getLogger(__name__)

SERVER_NAME = "pi-context"
MESSAGE_TYPES: Mapping[LogLevel, types.MessageType] = {
    "info": types.MessageType.Info,
    "warning": types.MessageType.Warning,
    "error": types.MessageType.Error,
}

F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True)
class CommandCall:
    """The ``workspace/executeCommand`` request being handled in this context."""

    params: types.ExecuteCommandParams
    request_id: int | str | None


_COMMAND_CALL: contextvars.ContextVar[CommandCall | None] = contextvars.ContextVar("pi_command_call", default=None)


def current_command() -> CommandCall | None:
    return _COMMAND_CALL.get()


class PiProtocol(LanguageServerProtocol):
    _server: PiLanguageServer

    def _handle_cancel_notification(self, msg_id: int | str) -> None:
        self._server.cancels.cancel_request(msg_id)
        super()._handle_cancel_notification(msg_id)

    @lsp_method(types.SHUTDOWN)
    def lsp_shutdown(self, *args: Any) -> Generator[Any, Any, None]:
        """pygls' shutdown, over a copy of the pending requests: it cancels them while iterating over the
        dictionary, and the future of a running command (``workspace/executeCommand``: a compaction waiting
        for its model) removes itself from it as it is cancelled, so a window closed during a Compact got
        "dictionary changed size during iteration" instead of a clean shutdown."""
        if (user_handler := self.fm.features.get(types.SHUTDOWN)) is not None:
            yield user_handler, args, None
        current_id = self.msg_id
        for msg_id, future in list(self._request_futures.items()):
            if msg_id != current_id and not future.done():
                future.cancel()
        self._shutdown = True

    @lsp_method(types.WORKSPACE_EXECUTE_COMMAND)
    def lsp_workspace__execute_command(self, params: types.ExecuteCommandParams) -> Generator[Any, Any, Any]:
        # Runs inside the request's context; the command's task copies it, and with it this var.
        _COMMAND_CALL.set(CommandCall(params=params, request_id=self.msg_id))
        return (yield from super().lsp_workspace__execute_command(params))


class PiLanguageServer(LanguageServer):
    """pi-context's language server. Construct with :func:`lsp_server.server.create.create_server`."""

    def __init__(
        self, *, debug: bool = False, keys: KeyRing | None = None, env: Mapping[str, str] | None = None
    ) -> None:
        super().__init__(
            SERVER_NAME,
            __version__,
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
            protocol_cls=PiProtocol,
            # lsprotocol's converter without pygls' hook that turns the params of custom methods
            # into namedtuples (lossy for keys that are not identifiers): custom handlers get JSON.
            converter_factory=get_converter,
        )
        self.debug = debug
        # The keys learned so far (each chat's, the summarizer's): every log line and logMessage is redacted
        # with them (serve's log handler shares this ring).
        self.keys = keys if keys is not None else KeyRing()
        self.cancels = CancelRegistry()
        # The process's environment is the workspace's: the front end hands it down here.
        self.ws = Workspace(LspClient(self), env=os.environ if env is None else env, keys=self.keys, debug=debug)

    # --- registration: every handler goes through the guard --------------------------------

    def feature(self, feature_name: str, options: Any | None = None) -> Callable[[F], F]:
        register = super().feature(feature_name, options)
        request = not is_notification(feature_name)

        def decorator(fn: F) -> F:
            register(guard(fn, what=feature_name, request=request))
            return fn

        return decorator

    def command(self, command_name: str) -> Callable[[F], F]:
        register = super().command(command_name)

        def decorator(fn: F) -> F:
            register(guard(fn, what=f"command {command_name}", request=True))
            return fn

        return decorator

    def report_server_error(self, error: Exception, source: Any) -> None:
        """Out-of-band errors go to the log, not to a pop-up; request errors were answered."""
        if source is FeatureRequestError:
            return
        log_failure(self, "server", error)

    # --- logging -----------------------------------------------------------------------------

    def log(self, message: str, kind: types.MessageType = types.MessageType.Info) -> None:
        level = logging.WARNING if kind <= types.MessageType.Warning else logging.INFO
        logger.log(level, "%s", message, extra={SENT_TO_CLIENT: True})  # stderr shows it once (cli/serve.py)
        try:
            self.window_log_message(types.LogMessageParams(type=kind, message=message))
        except Exception:
            logger.exception("could not send window/logMessage")

    def window_log_message(self, params: types.LogMessageParams) -> None:
        """``window/logMessage`` (the editor's output channel) with every key the server knows redacted."""
        message = self.keys.redact(params.message)
        if message is not params.message:
            params = types.LogMessageParams(type=params.type, message=message)
        super().window_log_message(params)

    # --- paths, URIs, folders, capabilities ------------------------------------------------------

    @staticmethod
    def uri_to_path(uri: str) -> str | None:
        path = to_fs_path(uri) if uri.startswith("file:") else None
        return path_key(path) if path else None

    def path_to_uri(self, path: str) -> str:
        buffer = self.ws.documents.get(path)
        if buffer is not None:
            return buffer.uri  # the client's own spelling of the URI
        return from_fs_path(path) or f"file://{path}"

    def folder_uri(self, root: str) -> str:
        """The client's own URI for a workspace folder (as it sent it), else a file URI."""
        try:
            folders = list(self.workspace.folders.values())
            root_uri = self.workspace.root_uri
        except RuntimeError:
            folders, root_uri = [], None
        for folder in folders:
            if self.uri_to_path(folder.uri) == root:
                return str(folder.uri)
        if root_uri and self.uri_to_path(root_uri) == root:
            return str(root_uri)
        return self.path_to_uri(root)

    def workspace_roots(self) -> list[str]:
        """Folders from initialize / didChangeWorkspaceFolders, else the root URI."""
        try:
            workspace = self.workspace
        except RuntimeError:
            return []
        uris = [folder.uri for folder in workspace.folders.values()]
        if not uris and workspace.root_uri and not self.client_supports("workspace", "workspace_folders"):
            uris = [workspace.root_uri]  # a client without folders: the root stands in (once folders are known, never)
        paths = [self.uri_to_path(uri) for uri in uris]
        return list(dict.fromkeys(path for path in paths if path))

    def client_supports(self, *attrs: str) -> bool:
        """``client_supports("workspace", "configuration")``: walk the capabilities, truthy at the end."""
        value: Any = getattr(self.protocol, "client_capabilities", None)
        for attr in attrs:
            if value is None:
                return False
            value = getattr(value, attr, None)
        return bool(value)

    # --- long operations -----------------------------------------------------------------------

    @asynccontextmanager
    async def long_operation(
        self, title: str, *, cancellable: bool = True, message: str | None = None
    ) -> AsyncIterator[Operation]:
        """Progress + cancellation for the current command (see ``progress.long_operation``)."""
        call = current_command()
        progress_token = call.params.work_done_token if call is not None else None
        if progress_token is None:
            progress_token = await create_progress_token(
                self.work_done_progress, self.client_supports("window", "work_done_progress")
            )
        async with long_operation(
            title,
            registry=self.cancels,
            progress=self.work_done_progress,
            progress_token=progress_token,
            request_id=call.request_id if call is not None else None,
            cancellable=cancellable,
            message=message,
        ) as operation:
            yield operation

    def publish(self, entry: FileDiagnostics) -> None:
        """``textDocument/publishDiagnostics`` for one file, in the client's position encoding."""
        diagnostics = to_diagnostics(entry.findings, entry.text, self.workspace.position_codec)
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(
                uri=self.path_to_uri(entry.path), diagnostics=diagnostics, version=entry.version
            )
        )


class LspClient:
    """The workspace's client over pygls: what :class:`lsp_server.workspace.client.Client` asks, as LSP."""

    def __init__(self, ls: PiLanguageServer) -> None:
        self.ls = ls

    def notify(self, method: str, params: Any) -> None:
        self.ls.protocol.notify(method, params)

    def publish(self, entry: FileDiagnostics) -> None:
        self.ls.publish(entry)

    def log(self, message: str, level: LogLevel = "info") -> None:
        self.ls.log(message, MESSAGE_TYPES[level])

    def log_failure(self, what: str, exc: BaseException) -> None:
        log_failure(self.ls, what, exc)

    def long_operation(self, title: str, *, cancellable: bool = True, message: str | None = None) -> Any:
        return self.ls.long_operation(title, cancellable=cancellable, message=message)

    def uri_for(self, path: str) -> str:
        return self.ls.path_to_uri(path)

    def folder_uri(self, root: str) -> str:
        return self.ls.folder_uri(root)

    def path_of(self, uri: str) -> str | None:
        return self.ls.uri_to_path(uri)

    def folders(self) -> list[str]:
        return self.ls.workspace_roots()

    def refresh_code_lenses(self) -> None:
        if not self.ls.client_supports("workspace", "code_lens", "refresh_support"):
            return
        try:
            self.ls.workspace_code_lens_refresh(None)
        except Exception as exc:  # a client that cannot refresh keeps its old lenses
            logger.info("workspace/codeLens/refresh failed: %s", exc)
