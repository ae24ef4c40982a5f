"""Suite-wide set-up: the hypothesis profiles of the property tests (tests/fuzz).

``default`` is what ``python -m pytest`` runs: few examples per property, random each run, no
deadline (timing is recorded and reported, never asserted). ``fuzz`` is the long tier
(``python -m pytest -m fuzz --hypothesis-profile=fuzz``, run by ``.ci/run``): each property's own
large count (see ``tests/fuzz/_tier.py``), derandomized so every CI run tries the same cases.
Profiles are registered here, in the root conftest, because hypothesis loads the one named on the
command line while pytest configures, before test folders' conftests are read. The fuzz report
(cases, slowest case per property, peak memory, the corpus runs) is printed here too, since the
server's fuzz test lives in tests/lsp. ``.ci/run`` runs the fuzz tier on two pytest-xdist workers
(``-n 2``): each worker sends its part of the report to the controller when it finishes
(``pytest_sessionfinish`` → ``workeroutput``), and the controller adds them up (``pytest_testnodedown``)
before printing. Without ``-n`` (or without xdist installed) everything happens in the one process.
"""

from __future__ import annotations

import json
import os
import tempfile
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

from tests.fuzz._tier import CORPUS, REPORT, export, fuzz_tier, merge, peak_rss_mb

_QUIET = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example, HealthCheck.filter_too_much]

settings.register_profile("default", deadline=None, suppress_health_check=_QUIET, database=None, print_blob=True)
settings.register_profile(
    "fuzz", deadline=None, suppress_health_check=_QUIET, database=None, derandomize=True, print_blob=True
)
settings.load_profile("default")

_WORKER_OUTPUT = "pi_context_fuzz_report"  # the key of a worker's fuzz report in xdist's workeroutput


def pytest_configure() -> None:
    """The session writer notes appends in flight in pi-context's state folder: keep tests out of ~."""
    os.environ.setdefault("PI_CONTEXT_STATE_DIR", tempfile.mkdtemp(prefix="pi-context-state-"))


def _is_xdist_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


def pytest_sessionfinish(session: pytest.Session) -> None:
    """In an xdist worker: hand this process's fuzz report to the controller (sent when the worker finishes)."""
    if _is_xdist_worker(session.config):
        session.config.workeroutput[_WORKER_OUTPUT] = export()  # type: ignore[attr-defined]


@pytest.hookimpl(optionalhook=True)  # an xdist hook: unknown (and never called) without pytest-xdist
def pytest_testnodedown(node: Any, error: object | None) -> None:
    """In the xdist controller: add a finished worker's fuzz report to the one printed at the end."""
    data = getattr(node, "workeroutput", {}).get(_WORKER_OUTPUT)
    if data is not None:
        merge(data)
    elif error is not None:  # it crashed (xdist reports which test): its cases are missing from the report
        REPORT.workers_lost += 1


def _corpus_in_test_order() -> None:
    """The corpus runs the workers sent, in the order of tests/fuzz/test_corpus.py (as one process lists them)."""
    from tests.fuzz.corpus import CASES

    commands = ["check --json", "prompt --json --trusted", "session --json", "compact --dry-run --json"]
    cases = [case.name for case in CASES]

    def rank(name: str, order: list[str]) -> int:
        return order.index(name) if name in order else len(order)

    CORPUS.sort(key=lambda run: (rank(run.command, commands), rank(run.case, cases)))


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if _is_xdist_worker(terminalreporter.config) or (not REPORT.properties and not CORPUS):
        return
    own_mb = peak_rss_mb()
    peak_mb = max([own_mb, *REPORT.worker_peaks_mb])
    tiers = REPORT.worker_tiers or {"fuzz" if fuzz_tier() else "default"}
    tier = "/".join(sorted(tiers))  # the workers' tiers when there were workers: what the tests really ran
    terminalreporter.section(f"fuzz report ({tier} tier)")
    if REPORT.worker_peaks_mb:
        _corpus_in_test_order()
        workers = ", ".join(f"{mb:.0f}" for mb in REPORT.worker_peaks_mb)
        terminalreporter.write_line(
            f"{REPORT.cases} cases on {len(REPORT.worker_peaks_mb)} xdist workers; peak RSS of the test processes"
            f" {peak_mb:.0f} MB (workers {workers} MB, controller {own_mb:.0f} MB)"
        )
    else:
        terminalreporter.write_line(f"{REPORT.cases} cases; peak RSS of the test process {peak_mb:.0f} MB")
    if REPORT.workers_lost:
        terminalreporter.write_line(f"{REPORT.workers_lost} xdist worker(s) went down without a report: it is partial")
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
            "workers": len(REPORT.worker_peaks_mb),
            "workersLost": REPORT.workers_lost,
            "properties": {name: vars(stats) for name, stats in REPORT.properties.items()},
            "corpus": [vars(run) for run in CORPUS],
        }
        with open(target, "w", encoding="utf-8") as handle:
            json.dump(data, handle, indent=1)
