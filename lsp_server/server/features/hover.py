"""``textDocument/hover`` on SKILL.md frontmatter keys and values.

The content comes from :func:`lsp_server.editing.hovers.hover_at` (what the key does, which agents
honour it and how, the value's length against its limit, and what Pi makes of this file); it is
sent as Markdown when the client renders it, as plain text otherwise.
"""

from __future__ import annotations

from lsprotocol import types

from lsp_server.editing.hovers import hover_at
from lsp_server.server.app import PiLanguageServer
from lsp_server.server.features._editing import markup_kind, profile_of, skill_source


def hover(ls: PiLanguageServer, params: types.HoverParams) -> types.Hover | None:
    source = skill_source(ls, params.text_document.uri)
    if source is None:
        return None
    info = hover_at(source.path, source.text, source.from_client(params.position), profile_of(ls))
    if info is None:
        return None
    capabilities = ls.protocol.client_capabilities.text_document
    kind = markup_kind(capabilities.hover.content_format if capabilities and capabilities.hover else None)
    value = info.markdown if kind == types.MarkupKind.Markdown else info.plaintext
    return types.Hover(contents=types.MarkupContent(kind=kind, value=value), range=source.to_client_range(info.range))


def register(server: PiLanguageServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_HOVER)
    async def on_hover(ls: PiLanguageServer, params: types.HoverParams) -> types.Hover | None:
        await ls.wait_ready()
        return hover(ls, params)
