"""Hostile files through ``pi-context check``: wall time and peak memory of one real subprocess each.

Run: ``python bench/bench_hostile.py [--json] [--only NAME]``.

The files are those of issue 12: a SKILL.md whose frontmatter is a mapping of 1,000,000 keys, one
whose frontmatter nests flow sequences 2,000 deep, a SKILL.md with a valid frontmatter and a
50 MB body (a Markdown link on every line), and for reference a normal skill. Each is checked by a
fresh ``python -m lsp_server check`` ("CLI": with start-up, about 0.5 s when the machine is idle;
peak memory is that child's maximum resident set, from ``wait4``), and ``check_workspace`` alone is
timed in another fresh interpreter ("check"). What matters is that
each ends in about a second with bounded memory and that the result is a finding naming the
limit, never a hang; the findings' codes are printed with the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

FRONT = "---\nname: {name}\ndescription: A skill built to be hard to check.\n---\n"


def million_keys(path: Path) -> None:
    with open(path, "w", encoding="utf-8") as handle:
        handle.write("---\nname: many-keys\ndescription: d\n")
        handle.writelines(f"k{i}: {i}\n" for i in range(1_000_000))
        handle.write("---\n# body\n")


def deep_flow(path: Path) -> None:
    path.write_text("---\nname: deep-flow\ndescription: d\nx: " + "[" * 2000 + "]" * 2000 + "\n---\n", encoding="utf-8")


def big_body(path: Path) -> None:
    line = "See [the guide](docs/guide.md) for the details of this step.\n"
    count = 50 * 1024 * 1024 // len(line)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(FRONT.format(name="big-body"))
        for _ in range(count // 10_000):
            handle.write(line * 10_000)


def normal(path: Path) -> None:
    path.write_text(FRONT.format(name="normal") + "# Normal\nUse it.\n", encoding="utf-8")


CASES: dict[str, Callable[[Path], None]] = {
    "normal": normal,
    "1,000,000 keys": million_keys,
    "2,000-deep flow": deep_flow,
    "50 MB body": big_body,
}


_IN_PROCESS = """
import sys, time
from lsp_server.checks import check_workspace
started = time.perf_counter()
check_workspace([sys.argv[1]])
print(round(time.perf_counter() - started, 3))
"""


def run_case(name: str, make: Callable[[Path], None], root: Path) -> dict[str, object]:
    folder = root / name.replace(" ", "-").replace(",", "") / ".pi" / "skills" / "s"
    folder.mkdir(parents=True)
    path = folder / "SKILL.md"
    make(path)
    project = folder.parent.parent.parent
    out_path = root / "out.json"
    started = time.perf_counter()
    with open(out_path, "w", encoding="utf-8") as out:
        child = subprocess.Popen(
            [sys.executable, "-m", "lsp_server", "check", "--json", str(project)],
            stdout=out,
            stderr=subprocess.DEVNULL,
            env={**os.environ, "HOME": str(root)},
        )
        _, status, usage = os.wait4(child.pid, 0)
    elapsed = time.perf_counter() - started
    child.returncode = os.waitstatus_to_exitcode(status)
    peak_kb = usage.ru_maxrss
    timed = subprocess.run(
        [sys.executable, "-c", _IN_PROCESS, str(project)], capture_output=True, text=True, check=False
    )
    done = subprocess.CompletedProcess(child.args, child.returncode, out_path.read_text(encoding="utf-8"), "")
    codes: dict[str, int] = {}
    try:
        for finding in json.loads(done.stdout):
            codes[finding["code"]] = codes.get(finding["code"], 0) + 1
    except (json.JSONDecodeError, AttributeError):
        codes = {"(no JSON)": 1}
    return {
        "case": name,
        "bytes": path.stat().st_size,
        "seconds": round(elapsed, 2),
        "check_seconds": float(timed.stdout.strip() or "nan"),
        "peak_mb": round(peak_kb / 1024, 1),
        "exit": done.returncode,
        "codes": codes,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--only", choices=list(CASES), default=None, help="run one case")
    args = parser.parse_args()
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, make in CASES.items():
            if args.only is None or args.only == name:
                results.append(run_case(name, make, Path(tmp)))
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    print(f"{'case':<18} {'size':>12} {'check':>8} {'CLI':>8} {'peak':>9}  exit  findings")
    for r in results:
        peak = f"{r['peak_mb']} MB"
        codes = ", ".join(f"{code} x{n}" for code, n in r["codes"].items())  # type: ignore[attr-defined]
        line = f"{r['case']:<18} {r['bytes']:>12,} {r['check_seconds']:>7}s {r['seconds']:>7}s {peak:>9}"
        print(f"{line}  {r['exit']:>4}  {codes}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
