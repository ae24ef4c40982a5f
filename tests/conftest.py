"""Suite-wide set-up: the hypothesis profiles of the property tests (tests/fuzz).

``default`` is what ``python -m pytest`` runs: few examples per property, random each run, no
deadline (timing is recorded and reported, never asserted). ``fuzz`` is the long tier
(``python -m pytest -m fuzz --hypothesis-profile=fuzz``, run by ``.ci/run``): each property's own
large count (see ``tests/fuzz/_tier.py``), derandomized so every CI run tries the same cases.
Profiles are registered here, in the root conftest, because hypothesis loads the one named on the
command line while pytest configures, before test folders' conftests are read. The fuzz report
(cases, slowest case per property, peak memory, the corpus runs) is printed here too, since the
server's fuzz test lives in tests/lsp.
"""

from __future__ import annotations

import json
import os
import resource
import tempfile
from typing import Any

from hypothesis import HealthCheck, settings

from tests.fuzz._tier import CORPUS, REPORT, fuzz_tier

_QUIET = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example, HealthCheck.filter_too_much]

settings.register_profile("default", deadline=None, suppress_health_check=_QUIET, database=None, print_blob=True)
settings.register_profile(
    "fuzz", deadline=None, suppress_health_check=_QUIET, database=None, derandomize=True, print_blob=True
)
settings.load_profile("default")


def pytest_configure() -> None:
    """The session writer notes appends in flight in pi-context's state folder: keep tests out of ~."""
    os.environ.setdefault("PI_CONTEXT_STATE_DIR", tempfile.mkdtemp(prefix="pi-context-state-"))


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if not REPORT.properties and not CORPUS:
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
    if CORPUS:
        terminalreporter.write_line("corpus (each a child process: wall time, peak RSS, exit code, output size):")
    for run in CORPUS:
        memory = f"{run.peak_mb:7.0f} MB" if run.peak_mb else "      - MB"
        terminalreporter.write_line(
            f"  {run.case:<20} {run.command:<28} {run.seconds:7.2f} s {memory}"
            f"  exit {run.exit_code}  {run.output_bytes:,} bytes out"
        )
    target = os.environ.get("PI_CONTEXT_FUZZ_REPORT")
    if target:
        data = {
            "tier": tier,
            "cases": REPORT.cases,
            "peakRssMb": round(peak_mb),
            "properties": {name: vars(stats) for name, stats in REPORT.properties.items()},
            "corpus": [vars(run) for run in CORPUS],
        }
        with open(target, "w", encoding="utf-8") as handle:
            json.dump(data, handle, indent=1)
