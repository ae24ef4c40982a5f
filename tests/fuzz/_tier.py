"""How many cases a property runs in each tier, and the per-case timing the tier reports.

A property states both counts (``@cases(default=..., fuzz=...)``): the default tier keeps the
whole suite fast, the fuzz tier (``--hypothesis-profile=fuzz``) is sized so that all properties
together run 100,000+ cases in about 15 minutes on two cores (measured figures in docs/fuzzing.md).
Every case is timed with :func:`timed`; the slowest per property and the process's peak memory are
printed at the end of the run (``tests/fuzz/conftest.py``), and written as JSON when
``PI_CONTEXT_FUZZ_REPORT`` names a file. Timing is reported, never asserted.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

from hypothesis import settings


def fuzz_tier() -> bool:
    return settings.get_current_profile_name() == "fuzz"


def cases(default: int, fuzz: int) -> settings:
    """``max_examples`` for the tier that is running (``PI_CONTEXT_FUZZ_SCALE=0.1`` runs a tenth of the fuzz count)."""
    scale = os.environ.get("PI_CONTEXT_FUZZ_SCALE")
    if scale:
        return settings(max_examples=max(1, round(fuzz * float(scale))))
    return settings(max_examples=fuzz if fuzz_tier() else default)


@dataclass
class PropertyStats:
    cases: int = 0
    total_s: float = 0.0
    slowest_s: float = 0.0
    slowest_case: str = ""


@dataclass
class Report:
    properties: dict[str, PropertyStats] = field(default_factory=dict)

    @property
    def cases(self) -> int:
        return sum(p.cases for p in self.properties.values())


@dataclass(frozen=True)
class CorpusRun:
    """One pathological file through one command of the real CLI (a child process)."""

    case: str
    command: str
    seconds: float
    peak_mb: float
    exit_code: int
    output_bytes: int


REPORT = Report()
CORPUS: list[CorpusRun] = []


@contextlib.contextmanager
def timed(name: str, case: str) -> Iterator[None]:
    """Time one case of property ``name``; ``case`` describes the input (kept for the slowest)."""
    stats = REPORT.properties.setdefault(name, PropertyStats())
    started = time.perf_counter()
    try:
        yield
    finally:
        elapsed = time.perf_counter() - started
        stats.cases += 1
        stats.total_s += elapsed
        if elapsed > stats.slowest_s:
            stats.slowest_s, stats.slowest_case = elapsed, case[:200]
