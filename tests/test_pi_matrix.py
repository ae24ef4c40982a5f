"""CI's version matrix: a Pi release npm has and pi-context has no row for is a failing column, never assumed."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from lsp_server.vocabulary.pi_releases import RELEASES

SCRIPT = Path(__file__).resolve().parents[1] / ".ci" / "pi_matrix.py"


def _matrix() -> ModuleType:
    spec = importlib.util.spec_from_file_location("pi_matrix", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["pi_matrix"] = module
    spec.loader.exec_module(module)
    return module


def test_a_release_on_npm_without_a_row_is_a_failing_column() -> None:
    matrix = _matrix()
    known = [release.version for release in RELEASES]
    columns, said = matrix.npm_columns([*known, "1.7.0", "1.6.1"], known)
    assert [(c.version, c.status) for c in columns] == [("1.7.0", "failed"), ("1.6.1", "failed")]
    assert "no column" in columns[0].note and said == "8 1.x releases on npm, 2 without a column"
    assert matrix.npm_columns(known, known) == ([], "6 1.x releases on npm, each with one")


def test_npm_not_answering_is_a_skipped_column_that_says_so() -> None:
    columns, said = _matrix().npm_columns("npm could not be asked: ENOTFOUND", ["1.6.0"])
    assert [(c.version, c.status) for c in columns] == [("npm", "skipped")]
    assert "new releases were not looked for" in columns[0].note and said == "not answered"


def test_the_summary_table_has_a_row_per_column() -> None:
    matrix = _matrix()
    column = matrix.Column("1.0.3", counts={"passed": 886}, features_off=["tool-durations"], goldens="current")
    table = matrix.table([column], "the main run", "6 1.x releases on npm, each with one").splitlines()
    assert table[2].startswith("| npm | asked |") and "| 1.0.3 | passed | 886 | 0 | 0 | tool-durations |" in table[4]
