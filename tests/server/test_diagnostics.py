"""Findings become LSP diagnostics in the client's units; the book publishes only changes."""

from __future__ import annotations

import pytest
from lsprotocol import types
from pygls.workspace.position_codec import PositionCodec

from lsp_server.base.findings import Finding, Range, Severity
from lsp_server.server.diagnostics import to_diagnostics
from lsp_server.vocabulary.profiles import ProfileId
from lsp_server.workspace.diagnostics import DiagnosticsBook, FileDiagnostics, left_to_the_editor


def finding(line: int, start: int, end: int, code: str = "x") -> Finding:
    return Finding("/w/SKILL.md", Range.at(line, start, line, end), Severity.WARNING, code, "message", {"fix": 1})


def test_columns_become_utf16_units_by_default() -> None:
    text = "name: 😀bad"
    (diagnostic,) = to_diagnostics([finding(0, 7, 10)], text, PositionCodec())
    assert (diagnostic.range.start.character, diagnostic.range.end.character) == (8, 11)
    assert diagnostic.severity == types.DiagnosticSeverity.Warning
    assert (diagnostic.code, diagnostic.source, diagnostic.data) == ("x", "pi-context", {"fix": 1})


def test_columns_follow_a_negotiated_utf8_encoding() -> None:
    (diagnostic,) = to_diagnostics([finding(0, 1, 2)], "é!", PositionCodec(types.PositionEncodingKind.Utf8))
    assert (diagnostic.range.start.character, diagnostic.range.end.character) == (2, 3)


@pytest.mark.parametrize("encoding", list(types.PositionEncodingKind))
def test_every_column_is_the_codecs_count_in_every_encoding(encoding: types.PositionEncodingKind) -> None:
    """ASCII lines are counted by their length (one unit each in every encoding), others by pygls's codec."""
    codec = PositionCodec(encoding)
    lines = ["name: plain-ascii words", "é 😀 日本 mixed", "", "tab\there", "\x7f\x80 edge"]
    findings = [
        finding(n, start, end)
        for n, line in enumerate(lines)
        for start in range(len(line) + 1)
        for end in (start, len(line))
    ]
    for diagnostic, found in zip(to_diagnostics(findings, "\n".join(lines), codec), findings, strict=True):
        line = lines[found.range.start.line]
        expected = (
            codec.client_num_units(line[: found.range.start.column]),
            codec.client_num_units(line[: found.range.end.column]),
        )
        assert (diagnostic.range.start.character, diagnostic.range.end.character) == expected, (encoding, found)


def test_positions_past_the_text_are_kept_as_they_are() -> None:
    (diagnostic,) = to_diagnostics([finding(5, 0, 1)], "one line", PositionCodec())
    assert (diagnostic.range.start.line, diagnostic.range.start.character) == (5, 0)


def test_book_publishes_new_findings_then_only_changes() -> None:
    book = DiagnosticsBook()
    first = FileDiagnostics("/w/SKILL.md", (finding(0, 0, 1),), "a", 1)
    assert book.record(first) is True
    assert book.record(FileDiagnostics("/w/SKILL.md", (finding(0, 0, 1),), "a", 2)) is False
    assert book.record(FileDiagnostics("/w/SKILL.md", (finding(0, 0, 1, code="y"),), "a", 3)) is True


def test_book_clears_a_fixed_file_once_and_ignores_clean_files() -> None:
    book = DiagnosticsBook()
    assert book.record(FileDiagnostics("/w/clean.md", (), "", None)) is False
    book.record(FileDiagnostics("/w/SKILL.md", (finding(0, 0, 1),), "a", 1))
    assert book.record(FileDiagnostics("/w/SKILL.md", (), "fixed", 2)) is True
    assert book.record(FileDiagnostics("/w/SKILL.md", (), "fixed", 3)) is False
    assert book.paths() == []


@pytest.mark.parametrize(
    ("profile", "client", "left"),
    [
        ("vscode", "Visual Studio Code", True),
        ("vscode", "Visual Studio Code - Insiders", True),
        ("vscode", "Code - OSS", True),
        ("vscode", "code-server", True),
        ("vscode", "Neovim", False),
        ("vscode", "", False),
        ("pi", "Visual Studio Code", False),
        ("agentskills", "Visual Studio Code", False),
    ],
)
def test_only_the_profiles_own_editor_is_left_its_findings(profile: ProfileId, client: str, left: bool) -> None:
    """The server drops VS Code's own findings only under ``vscode`` and only in VS Code (commit 7a7ad7e)."""
    findings = [
        Finding("/w/SKILL.md", Range.at(0, 0, 0, 1), Severity.WARNING, code, "message")
        for code in ("skill/unknown-key", "skill/windows-path")
    ]
    published = [finding.code for finding in left_to_the_editor(findings, profile, client)]
    assert published == (["skill/windows-path"] if left else ["skill/unknown-key", "skill/windows-path"])
