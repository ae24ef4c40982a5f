"""Client-side helpers for the editing tests: positions in the negotiated encoding, applying edits.

A real editor applies a code action's ``WorkspaceEdit`` to its buffer itself; these helpers do the
same (offsets from positions counted in the encoding the server chose), so a test can send the
result back with ``didChange`` and watch the diagnostics clear.
"""

from __future__ import annotations

import re

from lsprotocol import types

from tests.lsp.conftest import Session

_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def encoding_of(session: Session) -> str:
    chosen = session.initialize_result.capabilities.position_encoding
    return str(chosen) if chosen is not None else "utf-16"


def _units(char: str, encoding: str) -> int:
    if encoding == "utf-8":
        return len(char.encode("utf-8"))
    if encoding == "utf-32":
        return 1
    return 2 if ord(char) > 0xFFFF else 1


def _lines(text: str) -> list[tuple[int, str]]:
    """(offset of the line's start, line without its break) for every line."""
    out, start = [], 0
    for match in _LINE_BREAK.finditer(text):
        out.append((start, text[start : match.start()]))
        start = match.end()
    out.append((start, text[start:]))
    return out


def offset_of(text: str, position: types.Position, encoding: str) -> int:
    lines = _lines(text)
    if position.line >= len(lines):
        return len(text)
    start, line = lines[position.line]
    units = 0
    for column, char in enumerate(line):
        if units >= position.character:
            return start + column
        units += _units(char, encoding)
    return start + len(line)


def position_of(text: str, line: int, column: int, encoding: str) -> types.Position:
    """A client position for a code-point column on ``line``."""
    content = _lines(text)[line][1]
    return types.Position(line=line, character=sum(_units(c, encoding) for c in content[:column]))


def text_edits_for(edit: types.WorkspaceEdit, uri: str) -> list[types.TextEdit]:
    found: list[types.TextEdit] = []
    for change in edit.document_changes or []:
        if isinstance(change, types.TextDocumentEdit) and change.text_document.uri == uri:
            found.extend(e for e in change.edits if isinstance(e, types.TextEdit))
    found.extend((edit.changes or {}).get(uri, []))
    return found


def apply_text_edits(text: str, edits: list[types.TextEdit], encoding: str) -> str:
    spans = sorted(
        (offset_of(text, e.range.start, encoding), offset_of(text, e.range.end, encoding), e.new_text) for e in edits
    )
    out, cursor = [], 0
    for start, end, new_text in spans:
        out.append(text[cursor:start])
        out.append(new_text)
        cursor = end
    out.append(text[cursor:])
    return "".join(out)
