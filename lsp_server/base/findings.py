"""Findings: what pi-context reports about a file, with a position a user can jump to.

One type serves the CLI (``path:line:col: severity code message``), the language server
(diagnostics) and JSON output, so a rule is written once. Positions are 0-based lines and
0-based columns counted in code points (Python string indices); the LSP layer converts
columns to the client's position encoding, the CLI prints 1-based numbers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any


class Severity(IntEnum):
    """LSP's DiagnosticSeverity values, so the server can pass them through."""

    ERROR = 1
    WARNING = 2
    INFORMATION = 3
    HINT = 4

    @property
    def label(self) -> str:
        return {1: "error", 2: "warning", 3: "info", 4: "hint"}[int(self)]

    @classmethod
    def parse(cls, text: str) -> Severity:
        lookup = {
            "error": cls.ERROR,
            "warning": cls.WARNING,
            "info": cls.INFORMATION,
            "information": cls.INFORMATION,
            "hint": cls.HINT,
        }
        try:
            return lookup[text.lower()]
        except KeyError:
            raise ValueError(f"unknown severity {text!r} (use error, warning, info or hint)") from None


@dataclass(frozen=True, order=True)
class Position:
    line: int
    column: int


@dataclass(frozen=True)
class Range:
    start: Position
    end: Position

    @classmethod
    def at(cls, line: int, column: int, end_line: int | None = None, end_column: int | None = None) -> Range:
        return cls(
            Position(line, column),
            Position(line if end_line is None else end_line, column if end_column is None else end_column),
        )

    @classmethod
    def file_start(cls) -> Range:
        """For findings about a whole file (unreadable, too large): the first character."""
        return cls.at(0, 0)

    def to_json(self) -> dict[str, Any]:
        return {
            "start": {"line": self.start.line, "column": self.start.column},
            "end": {"line": self.end.line, "column": self.end.column},
        }


@dataclass(frozen=True)
class Finding:
    path: str
    range: Range
    severity: Severity
    code: str
    message: str
    # Machine-readable details for quick fixes (e.g. the suggested name); never shown as text.
    data: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    def format_line(self) -> str:
        """``path:line:col: severity code message`` with 1-based line and column.

        One finding is always one line: a file name may hold a newline (a skill folder named so by
        a repository), and a line made from it must not pass for another finding.
        """
        start = self.range.start
        first_line = self.message.splitlines()[0] if self.message else ""
        where = f"{escape_controls(self.path)}:{start.line + 1}:{start.column + 1}"
        return f"{where}: {self.severity.label} {self.code} {escape_controls(first_line)}"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "path": self.path,
            "range": self.range.to_json(),
            "severity": self.severity.label,
            "code": self.code,
            "message": self.message,
        }
        if self.data:
            out["data"] = self.data
        return out


_CONTROLS = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def escape_controls(text: str) -> str:
    """``text`` with control characters (line breaks, escape sequences) written as ``\\n``, ``\\x1b``...

    For one-line output to a terminal or a log that a name from a repository must not break up
    or recolour.
    """

    def escape(match: re.Match[str]) -> str:
        char = match.group()
        named = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}.get(char)
        if named is not None:
            return named
        code = ord(char)
        return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"

    return _CONTROLS.sub(escape, text)
