"""How many cases a property runs in each tier, and the per-case timing the tier reports.

A property states both counts (``@cases(default=..., fuzz=...)``): the default tier keeps the
whole suite fast, the fuzz tier (``--hypothesis-profile=fuzz``) is sized so that all properties
together run 100,000+ cases in about 13 minutes on two pytest-xdist workers (``-n 2``; docs/fuzzing.md).
Every case is timed with :func:`timed`; the slowest per property and the peak memory are printed at
the end of the run (``tests/conftest.py``), and written as JSON when ``PI_CONTEXT_FUZZ_REPORT`` names
a file. Timing is reported, never asserted. Under pytest-xdist (``-n 2``) each worker process keeps
its own :data:`REPORT` and :data:`CORPUS`, sends them as :func:`export` when it finishes, and the
controller, which prints the report, adds each with :func:`merge`.
"""

from __future__ import annotations

import contextlib
import os
import resource
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from typing import Any

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
    # What the xdist workers merged in reported (empty when the tests ran in this process): each one's
    # peak RSS in MB, and the tiers they ran (the hypothesis profile each loaded from the command line).
    worker_peaks_mb: list[float] = field(default_factory=list)
    worker_tiers: set[str] = field(default_factory=set)
    workers_lost: int = 0  # workers that crashed, so sent no report

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


def peak_rss_mb() -> float:
    """This process's peak resident memory so far (``ru_maxrss``, KB on Linux)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def export() -> dict[str, Any]:
    """This process's report and corpus runs as plain data: what an xdist worker sends the controller."""
    return {
        "tier": "fuzz" if fuzz_tier() else "default",
        "properties": {name: asdict(stats) for name, stats in REPORT.properties.items()},
        "corpus": [asdict(run) for run in CORPUS],
        "peakRssMb": peak_rss_mb(),
    }


def merge(data: dict[str, Any]) -> None:
    """Add a worker's :func:`export` to this process's report (a property run on several workers adds up)."""
    for name, fields in data["properties"].items():
        stats = REPORT.properties.setdefault(name, PropertyStats())
        stats.cases += fields["cases"]
        stats.total_s += fields["total_s"]
        if fields["slowest_s"] > stats.slowest_s:
            stats.slowest_s, stats.slowest_case = fields["slowest_s"], fields["slowest_case"]
    CORPUS.extend(CorpusRun(**run) for run in data["corpus"])
    REPORT.worker_peaks_mb.append(data["peakRssMb"])
    REPORT.worker_tiers.add(data["tier"])
