"""``textDocument/codeAction``: quick fixes for the findings of a checked file, computed from the current text.

The client's diagnostics may be older than its buffer, so fixes are never derived from them: the
rules run again on the text the server holds now (the buffer the client just synchronised) and
:func:`lsp_server.editing.fixes.compute_fixes` builds and verifies the fixes on that text. A
finding is fixed when its range touches the requested range or when the client names it in
``context.diagnostics`` (same code and range, or same code and message); each action is linked to
the client's own diagnostic objects when it sent them.

Text edits go in a ``TextDocumentEdit`` carrying the buffer's version when the client takes
``documentChanges`` (so a client refuses an edit meant for another version), else in ``changes``.
Renaming the skill's folder is offered only to clients that accept ``documentChanges`` with the
``rename`` resource operation.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from lsprotocol import types
from pygls.uris import from_fs_path

from lsp_server.editing.fixes import compute_fixes

if TYPE_CHECKING:
    from lsp_server.editing.fixes import Fix
from lsp_server.base.findings import Finding, Range
from lsp_server.editing.text import ranges_touch
from lsp_server.server.app import PiLanguageServer
from lsp_server.server.diagnostics import SOURCE, to_diagnostic
from lsp_server.server.features._editing import SkillSource, checked_source, profile_of, thresholds_of

OPTIONS = types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix])


def _wants_quickfix(only: Sequence[str] | None) -> bool:
    if not only:
        return True
    return any(types.CodeActionKind.QuickFix.startswith(kind) or kind == "" for kind in only)


def _client_match(finding: Finding, source: SkillSource, sent: Sequence[types.Diagnostic]) -> types.Diagnostic | None:
    where = source.to_client_range(finding.range)
    for diagnostic in sent:
        if diagnostic.code != finding.code or diagnostic.source not in (None, SOURCE):
            continue
        if diagnostic.range == where or diagnostic.message == finding.message:
            return diagnostic
    return None


def _can_rename_folders(ls: PiLanguageServer) -> bool:
    edit = getattr(getattr(ls.protocol.client_capabilities, "workspace", None), "workspace_edit", None)
    operations = getattr(edit, "resource_operations", None) or ()
    return bool(getattr(edit, "document_changes", False)) and types.ResourceOperationKind.Rename in operations


def _workspace_edit(ls: PiLanguageServer, fix: Fix, source: SkillSource) -> types.WorkspaceEdit:
    if fix.rename is not None:
        rename = types.RenameFile(
            old_uri=from_fs_path(fix.rename.old_path) or "",
            new_uri=from_fs_path(fix.rename.new_path) or "",
            options=types.RenameFileOptions(overwrite=False, ignore_if_exists=False),
        )
        return types.WorkspaceEdit(document_changes=[rename])
    edits: list[types.TextEdit | types.AnnotatedTextEdit | types.SnippetTextEdit] = [
        types.TextEdit(range=source.to_client_range(edit.range), new_text=edit.new_text) for edit in fix.edits
    ]
    if ls.client_supports("workspace", "workspace_edit", "document_changes"):
        document = types.OptionalVersionedTextDocumentIdentifier(uri=source.uri, version=source.version)
        return types.WorkspaceEdit(document_changes=[types.TextDocumentEdit(text_document=document, edits=edits)])
    return types.WorkspaceEdit(changes={source.uri: [e for e in edits if isinstance(e, types.TextEdit)]})


def code_actions(ls: PiLanguageServer, params: types.CodeActionParams) -> list[types.CodeAction] | None:
    """The quick fixes for ``params`` (None: not a checked file, or the client wants other kinds)."""

    if not _wants_quickfix(params.context.only):
        return None
    source = checked_source(ls, params.text_document.uri)
    if source is None:
        return None
    requested: Range = source.from_client_range(params.range)
    sent = list(params.context.diagnostics)

    def wanted(finding: Finding) -> bool:
        return ranges_touch(finding.range, requested) or _client_match(finding, source, sent) is not None

    fixes = compute_fixes(source.path, source.text, profile_of(ls), thresholds=thresholds_of(ls), wanted=wanted)
    renames = _can_rename_folders(ls)
    lines = source.lines()
    actions = []
    for fix in fixes:
        if fix.rename is not None and not renames:
            continue
        diagnostics = [_client_match(f, source, sent) or to_diagnostic(f, lines, source.codec) for f in fix.findings]
        actions.append(
            types.CodeAction(
                title=fix.title,
                kind=types.CodeActionKind.QuickFix,
                diagnostics=diagnostics,
                is_preferred=fix.preferred or None,
                edit=_workspace_edit(ls, fix, source),
            )
        )
    return actions


def register(server: PiLanguageServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION, OPTIONS)
    async def on_code_action(ls: PiLanguageServer, params: types.CodeActionParams) -> list[types.CodeAction] | None:
        await ls.ws.wait_ready()
        return code_actions(ls, params)
