"""CI's version matrix: the real-Pi chat tests and the conformance goldens against every Pi 1.x release.

Usage (from the repository root, the project's venv active; ``.ci/run`` calls both)::

    python .ci/pi_matrix.py --install     # every release of lsp_server/vocabulary/pi_releases.py, once (cached)
    python .ci/pi_matrix.py --run         # one column per release, newest first; a summary table

**Which releases.** The known ones are :data:`lsp_server.vocabulary.pi_releases.RELEASES`. npm is asked which
1.x releases exist (``npm view @earendil-works/pi-coding-agent versions``): a release on npm that has
no row fails as a column of its own ("no column"), so a new Pi is never assumed to behave like the
last one; npm not answering is a skipped column that says so.

**Installed once.** Each release goes to its own folder (``~/.cache/pi-<version>``, the newest to
``~/.cache/pi-oracle``, tests/support/pi_for_tests.py) with tests/support/install_pi.sh, only when
it is not there yet: CI caches those folders.

**A column** runs, with ``PI_CONTEXT_PI_RELEASE=<version>``:

* the chat's real-Pi tests that say what Pi does (:data:`MATRIX_TESTS`: turns, sessions, lifecycle
  and costs over RPC; the chat through the real server, its costs, commands, bad paths and a newer
  Pi's session), each stating that release's behaviour (pi_for_tests.settled_event and friends);
* ``test_oracle_goldens.py::test_matches_pi``: all conformance requests with that release's rules
  against its goldens (golden/releases/<version>/ where it differs), and ``test_pi_prose.py`` (no
  committed file holds that release's prose);
* ``regen_goldens.py --release <version> --check`` when the Pi oracle script is there: the committed
  per-release goldens are still what that release's own code answers.

The newest release's column is the main test run (``python -m pytest`` runs every ``pi`` test with it);
``tests/pi_rpc/test_real_capabilities.py`` there starts every release. Left out of the other columns,
to keep five columns at minutes, not an hour: the keeper and reattach tests, the key-redaction tests and
the real-VS-Code tier, which test pi-context's own machinery around Pi rather than what Pi does
(``tests/e2e/vscode/test_chat_e2e.py`` runs the oldest release too). Figures: docs/pi-versions.md.
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lsp_server.vocabulary.pi_releases import NEWEST, RELEASES, parse_version  # noqa: E402
from tests.support.pi_for_tests import NODE_VERSION, cache_folder, find_test_pi  # noqa: E402

PACKAGE = "@earendil-works/pi-coding-agent"
MATRIX_TESTS = (
    "tests/pi_rpc/test_real_turns.py",
    "tests/pi_rpc/test_real_sessions.py",
    "tests/pi_rpc/test_real_lifecycle.py",
    "tests/pi_rpc/test_real_costs.py",
    "tests/lsp/test_chat.py",
    "tests/lsp/test_chat_costs.py",
    "tests/lsp/test_chat_commands.py",
    "tests/lsp/test_chat_bad_paths.py",
    "tests/lsp/test_chat_newer_session.py",
    "tests/lsp/test_chat_attachments.py",
    "tests/lsp/test_chat_names.py",
    "tests/conformance/test_oracle_goldens.py::test_matches_pi",
    "tests/test_pi_prose.py",
)
REPORT = ROOT / "bench" / "results" / "pi-matrix.md"
_SUMMARY = re.compile(r"(\d+) (passed|failed|skipped|error|errors|deselected)")


@dataclass
class Column:
    version: str
    status: str = "passed"  # passed | failed | skipped
    counts: dict[str, int] = field(default_factory=dict)
    features_off: list[str] = field(default_factory=list)
    goldens: str = "-"
    seconds: float = 0.0
    note: str = ""


def npm_releases() -> list[str] | str:
    """The 1.x releases npm has, or why it could not be asked."""
    try:
        done = subprocess.run(
            ["npm", "view", PACKAGE, "versions", "--json"], capture_output=True, text=True, timeout=120, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"npm could not be asked: {error}"
    if done.returncode != 0:
        return f"npm could not be asked: {(done.stderr.strip().splitlines() or ['no output'])[-1]}"
    versions = json.loads(done.stdout or "[]")
    versions = [versions] if isinstance(versions, str) else versions
    return [v for v in versions if (parsed := parse_version(v)) is not None and parsed[0] == 1 and "-" not in v]


def npm_columns(on_npm: list[str] | str, known: list[str]) -> tuple[list[Column], str]:
    """What npm's answer adds to the table: a failing column per 1.x release with no row (newest first),
    or one skipped column when npm could not be asked; and the line that says what npm answered."""
    if isinstance(on_npm, str):
        return [Column("npm", "skipped", note=f"{on_npm}: new releases were not looked for")], "not answered"
    unknown = sorted(set(on_npm) - set(known), key=lambda v: parse_version(v) or (0, 0, 0), reverse=True)
    columns = [
        Column(
            v,
            "failed",
            note="on npm but not in lsp_server/vocabulary/pi_releases.py: no column (add a row, install it)",
        )
        for v in unknown
    ]
    without = f"{len(unknown)} without a column" if unknown else "each with one"
    found = f"{len(on_npm)} 1.x releases on npm, {without}"
    return columns, found


def install(version: str) -> str | None:
    """Install ``version`` into its folder unless it is there; the reason when it cannot be."""
    if find_test_pi(version)[0] is not None:
        return None
    script = ROOT / "tests" / "support" / "install_pi.sh"
    done = subprocess.run(
        ["bash", str(script), str(cache_folder(version)), version, NODE_VERSION],
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    if done.returncode != 0:
        return (done.stderr.strip().splitlines() or ["install_pi.sh failed"])[-1]
    return None if find_test_pi(version)[0] is not None else "installed, but not found afterwards"


def features_off(version: str) -> list[str]:
    """The features of the Chat view this release lacks, as the chat detects them at start."""
    from tests.support.pi_capabilities import capabilities_at_start

    pi, _ = find_test_pi(version)
    if pi is None:
        return ["(not installed)"]
    answer = asyncio.run(capabilities_at_start(pi))
    return [feature["id"] for feature in answer["features"] if not feature["available"]]


def run_column(version: str, env: dict[str, str]) -> Column:
    column = Column(version)
    started = time.monotonic()
    column_env = {**env, "PI_CONTEXT_PI_RELEASE": version, "PI_CONTEXT_NO_PI_INSTALL": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "pi or not pi", *MATRIX_TESTS],
        cwd=ROOT,
        env=column_env,
        capture_output=True,
        text=True,
        check=False,
    )
    tail = (done.stdout.strip().splitlines() or [""])[-1]
    column.counts = {kind.rstrip("s") if kind == "errors" else kind: int(n) for n, kind in _SUMMARY.findall(tail)}
    if done.returncode != 0:
        column.status = "failed"
        failed = [line for line in done.stdout.splitlines() if line.startswith(("FAILED", "ERROR"))]
        column.note = "; ".join(failed[:5]) or tail
    column.features_off = features_off(version)
    if os.environ.get("PI_ORACLE_SCRIPT") and Path(os.environ["PI_ORACLE_SCRIPT"]).is_file():
        check = subprocess.run(
            [sys.executable, "tests/conformance/regen_goldens.py", "--release", version, "--check"],
            cwd=ROOT,
            env=column_env,
            capture_output=True,
            text=True,
            check=False,
        )
        column.goldens = "current" if check.returncode == 0 else "STALE"
        if check.returncode != 0:
            column.status = "failed"
            column.note = (column.note + "; " if column.note else "") + (check.stderr.strip().splitlines() or [""])[-1]
    else:
        column.goldens = "not checked (no oracle script)"
    column.seconds = time.monotonic() - started
    return column


def table(columns: list[Column], newest_note: str, npm_note: str) -> str:
    lines = [
        "| Pi | column | tests passed | failed | skipped | features off | per-release goldens | time | note |",
        "| --- | --- | ---: | ---: | ---: | --- | --- | ---: | --- |",
        f"| npm | asked | - | - | - | - | - | - | {npm_note} |",
        f"| {NEWEST.version} | main test run | - | - | - | none | the goldens | - | {newest_note} |",
    ]
    for c in columns:
        off = ", ".join(c.features_off) or "none"
        seconds = f"{c.seconds:.0f} s" if c.seconds else "-"
        lines.append(
            f"| {c.version} | {c.status} | {c.counts.get('passed', 0)} | {c.counts.get('failed', 0)} "
            f"| {c.counts.get('skipped', 0)} | {off} | {c.goldens} | {seconds} | {c.note} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--install", action="store_true", help="install every known release that is missing")
    parser.add_argument("--run", action="store_true", help="run one column per release, newest first")
    parser.add_argument("--only", nargs="*", help="only these releases")
    parser.add_argument("--jobs", type=int, default=1, help="run this many columns at once (default: 1)")
    args = parser.parse_args(argv)
    known = [release.version for release in RELEASES]
    wanted = [v for v in known if not args.only or v in args.only]
    if args.install:
        problems = [f"Pi {v}: {reason}" for v in wanted if (reason := install(v)) is not None]
        for problem in problems:
            print(problem, file=sys.stderr)
        if problems:
            return 1
        print(f"installed: {', '.join(wanted)}")
    if not args.run:
        return 0
    columns, npm_note = npm_columns(npm_releases(), known)
    env = dict(os.environ)
    versions = [version for version in wanted if version != NEWEST.version]  # the main test run is its column

    def run(version: str) -> Column:
        column = run_column(version, env)
        print(f"== Pi {version}: {column.status}: {column.counts} in {column.seconds:.0f} s {column.note}", flush=True)
        return column

    # Each column is its own pytest process, with its own temporary homes and agent folders, so two can
    # run at once: a column is one process busy on one core (real Pi processes starting), and CI has two.
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(args.jobs, 1)) as pool:
        columns += list(pool.map(run, versions))  # the report keeps the order newest first
    report = table(columns, "every test, and test_real_capabilities.py for every release", npm_note)
    REPORT.parent.mkdir(parents=True, exist_ok=True)
    REPORT.write_text(report, encoding="utf-8")
    print(report)
    return 1 if any(c.status == "failed" for c in columns) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
