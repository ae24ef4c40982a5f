"""Text synchronisation and pull diagnostics: the editor's buffers become the truth for their files.

pygls applies incremental changes to its own copy of each document before our handler runs; we
take the resulting text into the workspace's document store and ask for a (debounced) re-check.
Closing a file hands it back to the disk: it is re-checked from what is saved there.

Pull diagnostics: a client that sends ``textDocument/diagnostic`` for an open file gets fresh
findings in the answer and no longer gets pushes for that file while it stays open (clients keep
pulled and pushed diagnostics apart, so both would show every problem twice).
"""

from __future__ import annotations

from lsprotocol import types

from lsp_server.server.app import PiLanguageServer
from lsp_server.server.diagnostics import to_diagnostics
from lsp_server.workspace.diagnostics import FileDiagnostics
from lsp_server.workspace.events import BufferChanged, BufferClosed, BufferOpened, BufferSaved

DIAGNOSTIC_OPTIONS = types.DiagnosticOptions(
    inter_file_dependencies=False, workspace_diagnostics=False, identifier="pi-context"
)


def register(server: PiLanguageServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: PiLanguageServer, params: types.DidOpenTextDocumentParams) -> None:
        doc = params.text_document
        path = ls.uri_to_path(doc.uri)
        if path is None:
            return
        ls.ws.documents.open(path, doc.uri, doc.text, doc.version, doc.language_id)
        ls.ws.request_check(path)
        ls.ws.emit(BufferOpened(path))

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: PiLanguageServer, params: types.DidChangeTextDocumentParams) -> None:
        uri = params.text_document.uri
        path = ls.uri_to_path(uri)
        if path is None:
            return
        document = ls.workspace.get_text_document(uri)  # pygls applied the changes already
        ls.ws.documents.update(path, document.source, params.text_document.version)
        ls.ws.request_check(path)
        ls.ws.emit(BufferChanged(path))

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: PiLanguageServer, params: types.DidSaveTextDocumentParams) -> None:
        path = ls.uri_to_path(params.text_document.uri)
        if path is None:
            return
        ls.ws.request_check(path)
        ls.ws.emit(BufferSaved(path))

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: PiLanguageServer, params: types.DidCloseTextDocumentParams) -> None:
        ws = ls.ws
        path = ls.uri_to_path(params.text_document.uri)
        if path is None:
            return
        ws.documents.close(path)
        if path in ws.pulled:
            ws.pulled.discard(path)
            ws.book.forget(path)  # so the next check pushes what the client stops pulling
        ws.request_check(path)
        ws.emit(BufferClosed(path))

    @server.feature(types.TEXT_DOCUMENT_DIAGNOSTIC, DIAGNOSTIC_OPTIONS)
    async def pull_diagnostics(
        ls: PiLanguageServer, params: types.DocumentDiagnosticParams
    ) -> types.RelatedFullDocumentDiagnosticReport:
        ws = ls.ws
        path = ls.uri_to_path(params.text_document.uri)
        if path is None or not ws.checker.wants(path, ws.check_options()):
            return types.RelatedFullDocumentDiagnosticReport(items=[])
        if ws.documents.is_open(path) and path not in ws.pulled:
            ws.pulled.add(path)
            if ws.book.get(path) is not None:  # clear what we pushed before the client pulled
                uri = ls.path_to_uri(path)
                ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))
        ws.scheduler.cancel(path)
        entry: FileDiagnostics = await ws.check_now(path)
        return types.RelatedFullDocumentDiagnosticReport(
            items=to_diagnostics(entry.findings, entry.text, ls.workspace.position_codec)
        )
