"""The fuzz tier's report: cases, the slowest case per property, peak memory (printed, and JSON on request)."""

from __future__ import annotations

import json
import os
import resource
from typing import Any

import pytest

from tests.fuzz._tier import REPORT, fuzz_tier


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/fuzz/" in item.nodeid.replace(os.sep, "/"):
            item.add_marker(pytest.mark.fuzz)


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if not REPORT.properties:
        return
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    tier = "fuzz" if fuzz_tier() else "default"
    terminalreporter.section(f"fuzz report ({tier} tier)")
    terminalreporter.write_line(f"{REPORT.cases} cases; peak RSS of the test process {peak_mb:.0f} MB")
    for name, stats in sorted(REPORT.properties.items()):
        terminalreporter.write_line(
            f"  {name}: {stats.cases} cases, {stats.total_s:.1f} s, slowest {stats.slowest_s * 1000:.0f} ms"
            f" ({stats.slowest_case[:80]!r})"
        )
    target = os.environ.get("PI_CONTEXT_FUZZ_REPORT")
    if target:
        data = {
            "tier": tier,
            "cases": REPORT.cases,
            "peakRssMb": round(peak_mb),
            "properties": {name: vars(stats) for name, stats in REPORT.properties.items()},
        }
        with open(target, "w", encoding="utf-8") as handle:
            json.dump(data, handle, indent=1)
