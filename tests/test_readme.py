"""README.md stays true: its command table is one table, its docs list is complete, its install matches CI's."""

from __future__ import annotations

import re
from pathlib import Path

from lsp_server.cli import SUBCOMMANDS

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_the_command_table_is_one_table_with_every_sub_command() -> None:
    """A paragraph between rows ends a Markdown table: the rows after it render as raw text (issue 22)."""
    lines = README.splitlines()
    rows = [index for index, line in enumerate(lines) if line.startswith("| `pi-context ")]
    assert rows == list(range(rows[0], rows[0] + len(rows))), "a row of the command table is cut off from it"
    assert lines[rows[0] - 1].startswith("| ---") and lines[rows[0] - 2].startswith("| command |")
    named = {match for line in (lines[i] for i in rows) for match in re.findall(r"^\| `pi-context ([a-z-]+)", line)}
    assert named == {name for name, _ in SUBCOMMANDS}


def test_every_page_of_docs_is_listed() -> None:
    listed = set(re.findall(r"\(docs/([a-z-]+\.md)[)#]", README))
    assert {path.name for path in (ROOT / "docs").glob("*.md")} <= listed


def test_the_quick_start_installs_what_ci_installs() -> None:
    """With only ``.[dev]``, the packaging tests skip for want of build and twine: the quick start gives both."""
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    (extras,) = re.findall(r"pip install --quiet -e '(\.\[[a-z,]+\])'", ci)
    assert f"pip install -e '{extras}'" in README
