"""``textDocument/completion`` inside SKILL.md frontmatter: keys, boolean values, a name.

Items come from :func:`lsp_server.editing.completions.completions_at` and replace the word being
typed through a ``textEdit``. Keys insert ``key: `` (a snippet with a ``true``/``false`` choice for
booleans when the client takes snippets); documentation is Markdown when the client renders it.
``:`` triggers completion, as in VS Code's own prompt files, so typing ``disable-model-invocation:``
offers ``true`` and ``false`` at once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from lsp_server.editing.completions import completions_at
from lsp_server.editing.hovers import to_plaintext

if TYPE_CHECKING:
    from lsp_server.editing.completions import Completion
from lsp_server.editing.triggers import TRIGGER_CHARACTERS
from lsp_server.server.app import PiLanguageServer
from lsp_server.server.features._editing import SkillSource, markup_kind, profile_of, skill_source

OPTIONS = types.CompletionOptions(trigger_characters=list(TRIGGER_CHARACTERS))


def _item(completion: Completion, source: SkillSource, snippets: bool, docs: types.MarkupKind) -> types.CompletionItem:

    snippet = snippets and completion.snippet is not None
    text = completion.snippet if snippet and completion.snippet is not None else completion.text
    documentation = completion.documentation
    if docs == types.MarkupKind.PlainText:
        documentation = to_plaintext(documentation)
    return types.CompletionItem(
        label=completion.label,
        kind=types.CompletionItemKind.Property if completion.kind == "key" else types.CompletionItemKind.Value,
        detail=completion.detail,
        documentation=types.MarkupContent(kind=docs, value=documentation),
        sort_text=completion.sort_text,
        filter_text=completion.label,
        preselect=completion.preselect or None,
        insert_text_format=types.InsertTextFormat.Snippet if snippet else types.InsertTextFormat.PlainText,
        text_edit=types.TextEdit(range=source.to_client_range(completion.range), new_text=text),
    )


def completion(ls: PiLanguageServer, params: types.CompletionParams) -> types.CompletionList | None:

    source = skill_source(ls, params.text_document.uri)
    if source is None:
        return None
    found = completions_at(source.path, source.text, source.from_client(params.position), profile_of(ls))
    if not found:
        return None
    capabilities = ls.protocol.client_capabilities.text_document
    item_caps = capabilities.completion.completion_item if capabilities and capabilities.completion else None
    snippets = bool(item_caps and item_caps.snippet_support)
    docs = markup_kind(item_caps.documentation_format if item_caps else None)
    return types.CompletionList(is_incomplete=False, items=[_item(c, source, snippets, docs) for c in found])


def register(server: PiLanguageServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_COMPLETION, OPTIONS)
    async def on_completion(ls: PiLanguageServer, params: types.CompletionParams) -> types.CompletionList | None:
        await ls.ws.wait_ready()
        return completion(ls, params)
