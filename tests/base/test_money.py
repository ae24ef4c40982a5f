"""format_usd against the table the extension's formatUsd is tested against too."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from lsp_server.base.money import format_usd

TABLE = Path(__file__).resolve().parents[1] / "fixtures" / "cost" / "format_usd.json"
CASES: list[dict[str, Any]] = json.loads(TABLE.read_text(encoding="utf-8"))["cases"]


@pytest.mark.parametrize("case", CASES, ids=[str(c["value"]) for c in CASES])
def test_format_usd_matches_the_shared_table(case: dict[str, Any]) -> None:
    assert format_usd(case["value"]) == case["text"]


def test_ties_round_up_as_javascript_does_not_to_even() -> None:
    # 0.015625 is exact in binary: 4 significant digits are a tie between 0.01562 and 0.01563.
    assert format_usd(0.015625) == "$0.01563"
    assert format_usd(1.125) == "$1.13"
