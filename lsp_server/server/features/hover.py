"""``textDocument/hover`` on SKILL.md frontmatter keys and values, and on a context file's first line.

The content comes from :mod:`lsp_server.editing.hovers`: for a skill, what the key does, which
agents honour it and how, the value's length against its limit, and what Pi makes of this file;
for AGENTS.md / CLAUDE.md, which candidate Pi takes in that folder and when Pi sends the file (the
place the diagnostics use, ``ls.ws.inclusions_for``). It is sent as Markdown when
the client renders it, as plain text otherwise.

Whether Pi loads the skill in its project (``#3 of 40 in the skills listing``) needs the folder's
prompt. A hover waits for it at most :data:`PROMPT_WAIT_S`: in a workspace of 20,000 skills the
first build takes seconds, and the hover then says what the file alone decides (it loads, or why
not) while the build goes on for the next one.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from lsprotocol import types

from lsp_server.editing.hovers import context_file_hover, hover_at
from lsp_server.server.app import PiLanguageServer
from lsp_server.server.features._editing import is_context_file, markup_kind, profile_of, read_source, skill_source
from lsp_server.server.features.symbols import role_of

if TYPE_CHECKING:
    from lsp_server.project.file_roles import FileRole
    from lsp_server.project.prompt_state import PromptSnapshot

PROMPT_WAIT_S = 0.25  # how long a hover waits for its folder's prompt


async def _role_in_time(ls: PiLanguageServer, path: str, text: str | None) -> tuple[FileRole, PromptSnapshot] | None:
    """The file's role in its folder's prompt when that prompt is there within :data:`PROMPT_WAIT_S`."""

    task = asyncio.ensure_future(role_of(ls, path, text))
    task.add_done_callback(lambda done: done.cancelled() or done.exception())  # a late failure is not lost noise
    try:
        return await asyncio.wait_for(asyncio.shield(task), PROMPT_WAIT_S)
    except TimeoutError:
        return None  # the build goes on (shielded): the next hover has it


async def hover(ls: PiLanguageServer, params: types.HoverParams) -> types.Hover | None:

    uri = params.text_document.uri
    path = ls.uri_to_path(uri)
    context = path is not None and is_context_file(path)
    source = read_source(ls, uri) if context else skill_source(ls, uri)
    if source is None:
        return None
    position = source.from_client(params.position)
    if context:
        # The place the diagnostics speak of (the workspace folder holding the file): a few stats, no build.
        inclusion = ls.ws.inclusions_for(source.path).context(source.path) if position.line == 0 else None
        info = context_file_hover(source.path, source.text, position, inclusion)
    else:
        found = await _role_in_time(ls, source.path, source.text)
        loads = f"{found[0].load_sentence()}." if found is not None and found[0].is_skill else None
        info = hover_at(source.path, source.text, position, profile_of(ls), loads)
    if info is None:
        return None
    capabilities = ls.protocol.client_capabilities.text_document
    kind = markup_kind(capabilities.hover.content_format if capabilities and capabilities.hover else None)
    value = info.markdown if kind == types.MarkupKind.Markdown else info.plaintext
    return types.Hover(contents=types.MarkupContent(kind=kind, value=value), range=source.to_client_range(info.range))


def register(server: PiLanguageServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_HOVER)
    async def on_hover(ls: PiLanguageServer, params: types.HoverParams) -> types.Hover | None:
        await ls.ws.wait_ready()
        return await hover(ls, params)
