"""Findings to LSP diagnostics, in the client's position encoding.

Findings count columns in code points; the client counts in its negotiated position encoding
(UTF-16 unless it offered UTF-8 or UTF-32), so each range is converted with the text the finding
was computed from. What each file has is the workspace's book (:mod:`lsp_server.workspace.diagnostics`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from lsprotocol import types
from pygls.workspace.position_codec import PositionCodec

from lsp_server.base.findings import Finding, Position

if TYPE_CHECKING:
    pass

SOURCE = "pi-context"


def _client_position(position: Position, lines: Sequence[str], codec: PositionCodec) -> types.Position:
    if 0 <= position.line < len(lines):
        before = lines[position.line][: position.column]
        # ASCII is one unit in every encoding: the codec walks the text a character at a time
        character = len(before) if before.isascii() else codec.client_num_units(before)
        return types.Position(line=position.line, character=character)
    return types.Position(line=max(position.line, 0), character=max(position.column, 0))


def to_diagnostic(finding: Finding, lines: Sequence[str], codec: PositionCodec) -> types.Diagnostic:
    """One LSP diagnostic; ``data`` carries the finding's details for code actions."""
    return types.Diagnostic(
        range=types.Range(
            start=_client_position(finding.range.start, lines, codec),
            end=_client_position(finding.range.end, lines, codec),
        ),
        message=finding.message,
        severity=types.DiagnosticSeverity(int(finding.severity)),
        code=finding.code,
        source=SOURCE,
        data=finding.data or None,
    )


def to_diagnostics(findings: Sequence[Finding], text: str | None, codec: PositionCodec) -> list[types.Diagnostic]:
    lines = text.split("\n") if text is not None else []
    return [to_diagnostic(finding, lines, codec) for finding in findings]
