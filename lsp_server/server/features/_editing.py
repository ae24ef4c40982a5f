"""What the quick-fix, hover and completion handlers share: the file's current text and positions.

The editing domain (``lsp_server.editing``) counts columns in code points over the text it is
given; the client counts in its negotiated position encoding (UTF-16 unless it chose UTF-8 or
UTF-32). These helpers read the text the server holds right now (the open buffer, else the disk)
and convert positions both ways over that same text, so an edit computed here lands where the
client expects it. Not a feature module (the leading underscore keeps ``register_all`` away).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

from lsprotocol import types
from pygls.workspace.position_codec import PositionCodec

from lsp_server.base.findings import Position, Range
from lsp_server.editing.text import LineIndex
from lsp_server.server.app import PiLanguageServer
from lsp_server.vocabulary.pi_files import CONTEXT_FILE_CANDIDATES

if TYPE_CHECKING:
    from lsp_server.vocabulary.limits import Thresholds
    from lsp_server.vocabulary.profiles import ProfileId


@dataclass(frozen=True)
class SkillSource:
    """A file's current text (a skill file, for most features), with positions to and from the client."""

    uri: str
    path: str
    text: str
    version: int | None  # the buffer's version; None when read from disk
    index: LineIndex
    codec: PositionCodec

    def to_client(self, position: Position) -> types.Position:
        line = self.index.line(position.line)
        return types.Position(line=position.line, character=self.codec.client_num_units(line[: position.column]))

    def to_client_range(self, where: Range) -> types.Range:
        return types.Range(start=self.to_client(where.start), end=self.to_client(where.end))

    def from_client(self, position: types.Position) -> Position:
        """Code-point position of a client position (a column past the line's end stays past it)."""
        line = self.index.line(position.line)
        units = 0
        for column, char in enumerate(line):
            if units >= position.character:
                return Position(position.line, column)
            units += self.codec.client_num_units(char)
        return Position(position.line, len(line) + max(0, position.character - units))

    def from_client_range(self, where: types.Range) -> Range:
        return Range(self.from_client(where.start), self.from_client(where.end))

    def lines(self) -> list[str]:
        return self.index.lines()


def read_source(ls: PiLanguageServer, uri: str) -> SkillSource | None:
    """The current text of the file behind a ``file:`` URI (buffer, else disk), or None."""
    path = ls.uri_to_path(uri)
    if path is None:
        return None
    source = ls.ws.documents.read(path)
    if source.text is None:
        return None
    return SkillSource(uri, path, source.text, source.version, LineIndex(source.text), ls.workspace.position_codec)


def is_context_file(path: str) -> bool:
    return os.path.basename(path) in CONTEXT_FILE_CANDIDATES


def skill_source(ls: PiLanguageServer, uri: str) -> SkillSource | None:
    """The skill file behind ``uri`` (a SKILL.md or a loose skill .md), or None for anything else."""
    path = ls.uri_to_path(uri)
    if path is None or is_context_file(path) or not ls.ws.checker.wants(path, ls.ws.check_options()):
        return None
    return read_source(ls, uri)


def checked_source(ls: PiLanguageServer, uri: str) -> SkillSource | None:
    """Any file the checker reports on (skill, context file, SYSTEM.md, APPEND_SYSTEM.md), or None."""
    path = ls.uri_to_path(uri)
    if path is None or not ls.ws.checker.wants(path, ls.ws.check_options()):
        return None
    return read_source(ls, uri)


def profile_of(ls: PiLanguageServer) -> ProfileId:
    return ls.ws.settings.rule_profile


def thresholds_of(ls: PiLanguageServer) -> Thresholds:
    return ls.ws.settings.limits


def markup_kind(formats: object) -> types.MarkupKind:
    """Markdown when the client lists it among the formats it renders, else plain text."""
    if isinstance(formats, (list, tuple)) and types.MarkupKind.Markdown in formats:
        return types.MarkupKind.Markdown
    return types.MarkupKind.PlainText
