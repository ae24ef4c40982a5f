"""Helpers for the editing tests: skill files on disk and the rules re-run on fixed text."""

from __future__ import annotations

from pathlib import Path

import pytest

from lsp_server.editing.fixes import Fix, compute_fixes
from lsp_server.editing.text import apply_edits
from lsp_server.rules.skill_rules import check_skill_text


class Skills:
    """Writes skill files under ``tmp_path`` and applies quick fixes to them."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def write(self, text: str, folder: str = "pdf-tools", name: str = "SKILL.md") -> Path:
        path = self.root / folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8"))
        return path

    @staticmethod
    def codes(path: Path, text: str, profile: str) -> list[str]:
        return [f.code for f in check_skill_text(str(path), text, profile).findings]

    @staticmethod
    def fixes(path: Path, text: str, profile: str, code: str) -> list[Fix]:
        return [fix for fix in compute_fixes(str(path), text, profile) if any(f.code == code for f in fix.findings)]

    def fix(self, path: Path, text: str, profile: str, code: str, title_start: str = "") -> Fix:
        matching = [fix for fix in self.fixes(path, text, profile, code) if fix.title.startswith(title_start)]
        assert matching, [fix.title for fix in compute_fixes(str(path), text, profile)]
        return matching[0]

    def apply(self, path: Path, text: str, profile: str, code: str, title_start: str = "") -> str:
        """The text after the first matching fix, asserting the rule is then clean."""
        fix = self.fix(path, text, profile, code, title_start)
        fixed = apply_edits(text, fix.edits)
        assert code not in self.codes(path, fixed, profile), fixed
        assert "skill/yaml-error" not in self.codes(path, fixed, profile), fixed
        return fixed


@pytest.fixture
def skills(tmp_path: Path) -> Skills:
    return Skills(tmp_path)
