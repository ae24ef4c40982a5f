"""Context-file rules: cost, content Pi sends but cannot use, and files Pi does not pick."""

from __future__ import annotations

import os
from pathlib import Path

from lsp_server.base.findings import Position, Range, Severity
from lsp_server.prompt.inclusion import Inclusions
from lsp_server.rules.context_rules import (
    check_context_file,
    check_context_folder,
    check_context_text,
)
from lsp_server.vocabulary.limits import Thresholds


def codes(findings: list) -> list[str]:  # type: ignore[type-arg]
    return [f.code for f in findings]


def write(path: Path, text: str) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_empty_context_file(tmp_path: Path) -> None:
    assert codes(check_context_file(write(tmp_path / "AGENTS.md", " \n\n"))) == ["context/empty"]


def test_too_large_and_token_heavy_use_thresholds(tmp_path: Path) -> None:
    path = write(tmp_path / "AGENTS.md", "x" * 100)
    limits = Thresholds(context_max_bytes=50, context_max_tokens=20)
    findings = check_context_file(path, thresholds=limits)
    assert codes(findings) == ["context/too-large", "context/token-heavy"]
    assert findings[1].message.startswith("context file is about 25 tokens")  # Pi's ceil(chars / 4)


def test_missing_link_target(tmp_path: Path) -> None:
    findings = check_context_file(write(tmp_path / "AGENTS.md", "Read [the guide](docs/guide.md).\n"))
    assert codes(findings) == ["context/missing-reference"]
    assert findings[0].range == Range(Position(0, 17), Position(0, 30))


def test_imports_are_a_pi_hint_and_a_claude_code_check(tmp_path: Path) -> None:
    path = write(tmp_path / "CLAUDE.md", "Also see @docs/rules.md and mail me@example.com\n")
    hint = check_context_file(path)
    assert codes(hint) == ["context/import-not-expanded"] and hint[0].severity == Severity.HINT
    assert hint[0].range == Range(Position(0, 9), Position(0, 23))
    assert codes(check_context_file(path, "claude-code")) == ["context/import-missing"]


def test_claude_md_shadowed_by_agents_md(tmp_path: Path) -> None:
    write(tmp_path / "AGENTS.md", "a")
    claude = write(tmp_path / "CLAUDE.md", "c")
    findings = check_context_file(claude)
    assert codes(findings) == ["context/shadowed"] and findings[0].data == {"winnerPath": str(tmp_path / "AGENTS.md")}
    assert check_context_file(claude, "claude-code") == []


def test_a_directory_named_like_a_candidate_is_skipped(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").mkdir()
    write(tmp_path / "CLAUDE.md", "c")
    assert Inclusions.own_folder(str(tmp_path)).context(str(tmp_path / "AGENTS.md")).winner == str(
        tmp_path / "CLAUDE.md"
    )
    findings = check_context_folder(str(tmp_path))
    assert codes(findings) == ["context/not-a-file"] and "is a directory" in findings[0].message


def test_a_fifo_context_file_is_not_read(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "AGENTS.md")
    findings = check_context_file(str(tmp_path / "AGENTS.md"))
    assert codes(findings) == ["context/not-a-file"]


def test_invalid_utf8_points_at_the_byte(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_bytes(b"ok\nbad \xff here\n")
    findings = check_context_file(str(tmp_path / "AGENTS.md"))
    assert codes(findings) == ["context/invalid-utf8"] and findings[0].range.start == Position(1, 4)


def test_invalid_utf8_names_pi_only_under_the_pi_profile(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_bytes(b"bad \xff\n")
    messages = {
        profile: check_context_file(str(tmp_path / "AGENTS.md"), profile=profile)[0].message
        for profile in ("pi", "agentskills", "claude-code", "vscode")
    }
    assert messages["pi"] == "invalid UTF-8 at byte 4: Pi reads it as U+FFFD"
    assert all("Pi" not in message for profile, message in messages.items() if profile != "pi")


def test_text_from_an_editor_buffer() -> None:
    assert codes(check_context_text("/nowhere/AGENTS.md", "")) == ["context/empty"]
