"""Code lenses and document symbols for context files, SYSTEM.md, APPEND_SYSTEM.md and SKILL.md.

* **Code lens** at the top of the file: its place and cost in the assembled prompt of the
  workspace folder it belongs to (``project_context #2 of 3, ~1,234 tokens (Pi: 1,300)``), or
  why Pi does not load it (``not loaded: shadowed by AGENTS.override.md``). The lens is text
  only (an empty command id: clients show it without a link).
* **Document symbols**: the file's ``#`` headings as a tree, each with the tokens of its section
  (both counters) as the symbol's detail.

Positions are converted from code points to the client's encoding. Both follow the open buffer.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING

from lsprotocol import types

from lsp_server.editing.outline import markdown_outline
from lsp_server.project.file_roles import file_role, is_prompt_file

if TYPE_CHECKING:
    from lsp_server.editing.outline import Heading
    from lsp_server.project.file_roles import FileRole
    from lsp_server.project.prompt_state import PromptSnapshot
from lsp_server.server.app import PiLanguageServer


def folders_for(ls: PiLanguageServer, path: str) -> list[str]:
    """Workspace folders to look for ``path`` in: the innermost one containing it first."""
    containing = sorted((root for root in ls.ws.roots if path.startswith(root.rstrip(os.sep) + os.sep)), key=len)
    ordered = [*reversed(containing), *(root for root in ls.ws.roots if root not in containing)]
    return ordered or [os.path.dirname(path)]


async def role_of(ls: PiLanguageServer, path: str, text: str | None) -> tuple[FileRole, PromptSnapshot] | None:
    """The file's role in the first folder prompt that loads it, else in the folder that contains it."""

    fallback: tuple[FileRole, PromptSnapshot] | None = None
    for cwd in folders_for(ls, path):
        snapshot = await ls.ws.projects.snapshot(cwd)
        role = file_role(snapshot, path, text)
        if role is None:
            continue
        if role.loaded:
            return role, snapshot
        fallback = fallback or (role, snapshot)
    return fallback


def _position(lines: list[str], line: int, column: int, ls: PiLanguageServer) -> types.Position:
    text = lines[line] if 0 <= line < len(lines) else ""
    return types.Position(line=line, character=ls.workspace.position_codec.client_num_units(text[:column]))


def _symbol(heading: Heading, lines: list[str], ls: PiLanguageServer) -> types.DocumentSymbol:
    return types.DocumentSymbol(
        name=heading.title,
        detail=f"~{heading.tokens.estimate:,} tokens (Pi: {heading.tokens.pi:,})",
        kind=types.SymbolKind.String,
        range=types.Range(
            start=_position(lines, heading.line, 0, ls),
            end=_position(lines, heading.end_line, heading.end_column, ls),
        ),
        selection_range=types.Range(
            start=_position(lines, heading.line, heading.title_start, ls),
            end=_position(lines, heading.line, heading.title_end, ls),
        ),
        children=[_symbol(child, lines, ls) for child in heading.children],
    )


def _flatten(
    symbols: Sequence[types.DocumentSymbol], uri: str, container: str | None = None
) -> list[types.SymbolInformation]:
    out: list[types.SymbolInformation] = []
    for symbol in symbols:
        out.append(
            types.SymbolInformation(
                name=symbol.name,
                kind=symbol.kind,
                location=types.Location(uri=uri, range=symbol.range),
                container_name=container,
            )
        )
        out.extend(_flatten(symbol.children or [], uri, symbol.name))
    return out


def register(server: PiLanguageServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_CODE_LENS)
    async def code_lens(ls: PiLanguageServer, params: types.CodeLensParams) -> list[types.CodeLens]:

        path = ls.uri_to_path(params.text_document.uri)
        if path is None or not is_prompt_file(path):
            return []
        await ls.ws.wait_ready()
        found = await role_of(ls, path, ls.ws.documents.read(path).text)
        if found is None:
            return []
        role, _ = found
        start = types.Position(line=0, character=0)
        return [
            types.CodeLens(
                range=types.Range(start=start, end=start),
                command=types.Command(title=role.title(), command=""),
                data={"path": path, "section": role.section, "position": role.position, "count": role.count},
            )
        ]

    @server.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    async def document_symbols(
        ls: PiLanguageServer, params: types.DocumentSymbolParams
    ) -> list[types.DocumentSymbol] | list[types.SymbolInformation]:

        uri = params.text_document.uri
        path = ls.uri_to_path(uri)
        if path is None or not is_prompt_file(path):
            return []
        text = ls.ws.documents.read(path).text
        if text is None:
            return []
        await ls.ws.wait_ready()
        snapshot = await ls.ws.projects.snapshot(folders_for(ls, path)[0])
        lines = text.split("\n")
        symbols = [_symbol(heading, lines, ls) for heading in markdown_outline(text, snapshot.counter.counter.count)]
        if ls.client_supports("text_document", "document_symbol", "hierarchical_document_symbol_support"):
            return symbols
        return _flatten(symbols, uri)
