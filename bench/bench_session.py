"""Session loading, projection and incremental re-reading at 1 / 10 / 100 MB.

Usage::

    python bench/bench_session.py [--sizes 1,10,100] [--appends 20] [--dir DIR]

For each size it writes a synthetic Pi session (user prompts, assistant turns with tool calls,
tool results of a few KB, an occasional compaction and label), then in a fresh subprocess (so peak
memory is that size's alone) measures:

* ``load``: reading and parsing the whole file (``SessionFile.refresh`` on a new object);
* ``project``: path + compaction selection + projection + ``convertToLlm`` + context estimate;
* ``append``: one more line appended by the "agent", then ``refresh`` (median of ``--appends``);
* ``peak RSS``: the process's maximum resident set size after loading and projecting.

The append time must not grow with the file: only the new line is read.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
# Non-ASCII words, mixed in rarely: Python stores a string whose widest character is astral at 4 bytes
# per character, so one emoji in a tool result quadruples that string's memory.
WORDS_EXTRA = ["é", "naïve", "日本", "😀"]


def _ts(n: int) -> str:
    seconds = n % 60
    minutes = (n // 60) % 60
    hours = (n // 3600) % 24
    return f"2025-01-01T{hours:02d}:{minutes:02d}:{seconds:02d}.000Z"


def _usage(total: int) -> dict[str, Any]:
    return {
        "input": total - 50,
        "output": 50,
        "cacheRead": 0,
        "cacheWrite": 0,
        "totalTokens": total,
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
    }


def generate(path: Path, target_bytes: int, seed: int = 1) -> int:
    """Write a session of about ``target_bytes``; returns the number of entries."""
    rng = random.Random(seed)
    words = [f"w{i}" for i in range(500)] + WORDS_EXTRA
    with path.open("w", encoding="utf-8") as out:
        out.write(
            json.dumps({"type": "session", "version": 3, "id": "bench", "timestamp": _ts(0), "cwd": "/bench"}) + "\n"
        )
        written = out.tell()
        parent: str | None = None
        n = 0

        def emit(entry: dict[str, Any]) -> None:
            nonlocal parent, n, written
            n += 1
            entry_id = f"{n:08x}"
            line = json.dumps({**entry, "id": entry_id, "parentId": parent, "timestamp": _ts(n)}, ensure_ascii=False)
            out.write(line + "\n")
            written += len(line.encode("utf-8")) + 1
            parent = entry_id

        while written < target_bytes:
            prompt = " ".join(rng.choice(words) for _ in range(rng.randint(5, 60)))
            emit({"type": "message", "message": {"role": "user", "content": prompt, "timestamp": n}})
            for _ in range(rng.randint(1, 4)):
                path_arg = f"src/{rng.choice(words)}.ts"
                emit(
                    {
                        "type": "message",
                        "message": {
                            "role": "assistant",
                            "content": [
                                {"type": "thinking", "thinking": " ".join(rng.choice(words) for _ in range(40))},
                                {"type": "text", "text": " ".join(rng.choice(words) for _ in range(30))},
                                {"type": "toolCall", "id": f"c{n}", "name": "read", "arguments": {"path": path_arg}},
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
                body = "\n".join(" ".join(rng.choice(words) for _ in range(12)) for _ in range(rng.randint(20, 120)))
                emit(
                    {
                        "type": "message",
                        "message": {
                            "role": "toolResult",
                            "toolCallId": f"c{n}",
                            "toolName": "read",
                            "content": [{"type": "text", "text": body}],
                            "isError": False,
                            "timestamp": n,
                        },
                    }
                )
            if n % 500 < 5:
                emit({"type": "compaction", "summary": "Summary so far. " * 50, "firstKeptEntryId": parent,
                      "tokensBefore": 150000})  # fmt: skip
            if n % 97 == 0:
                emit({"type": "label", "targetId": parent, "label": "checkpoint"})
    return n


def measure(path: str, appends: int) -> dict[str, Any]:
    """Runs in a fresh interpreter: load, project, append-refresh timings and peak memory."""
    from lsp_server.session.estimates import estimate_context_tokens
    from lsp_server.session.messages import convert_to_llm
    from lsp_server.session.tail import SessionFile

    started = time.perf_counter()
    session = SessionFile(path)
    session.refresh()
    load_s = time.perf_counter() - started

    started = time.perf_counter()
    projection = session.projection()
    llm = convert_to_llm(projection.messages)
    estimate = estimate_context_tokens(projection.messages)
    project_s = time.perf_counter() - started

    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss

    parent = session.index.leaf_id
    times: list[float] = []
    for i in range(appends):
        entry = {"type": "message", "id": f"app{i:05d}", "parentId": parent, "timestamp": _ts(i),
                 "message": {"role": "user", "content": f"appended {i}", "timestamp": i}}  # fmt: skip
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(entry) + "\n")
        parent = entry["id"]
        started = time.perf_counter()
        result = session.refresh()
        times.append(time.perf_counter() - started)
        assert result.kind == "appended" and result.new_entries == 1, result
    return {
        "entries": len(session.entries),
        "problems": len(session.problems),
        "selected": len(projection.entries),
        "messages": len(llm),
        "estimate": estimate.tokens,
        "load_s": load_s,
        "project_s": project_s,
        "append_median_ms": statistics.median(times) * 1000,
        "append_max_ms": max(times) * 1000,
        "peak_rss_mb": peak_kb / 1024,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="1,10,100", help="file sizes in MB, comma-separated")
    parser.add_argument("--appends", type=int, default=20)
    parser.add_argument("--dir", help="where to write the sessions (default: a temp dir, removed afterwards)")
    parser.add_argument("--measure", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(measure(args.measure, args.appends)))
        return
    workdir = Path(args.dir) if args.dir else Path(tempfile.mkdtemp(prefix="pi-context-bench-"))
    workdir.mkdir(parents=True, exist_ok=True)
    baseline = subprocess.run(
        [
            sys.executable,
            "-c",
            "import resource, lsp_server.session.tail; print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)",
        ],
        capture_output=True,
        text=True,
        check=True,
        cwd=REPO,
    )
    print(f"python {sys.version.split()[0]}; baseline RSS after imports {int(baseline.stdout) / 1024:.0f} MB")
    print(
        f"{'size':>7} {'entries':>8} {'load s':>7} {'MB/s':>6} {'project s':>9} {'append ms':>9} (max)"
        f" {'peak RSS MB':>11}"
    )
    for size in (float(s) for s in args.sizes.split(",")):
        path = workdir / f"session-{size:g}MB.jsonl"
        generate(path, int(size * 1024 * 1024))
        actual_mb = path.stat().st_size / (1024 * 1024)
        out = subprocess.run(
            [sys.executable, __file__, "--measure", str(path), "--appends", str(args.appends)],
            capture_output=True,
            text=True,
            check=True,
            cwd=REPO,
        )
        r = json.loads(out.stdout)
        print(
            f"{actual_mb:6.1f}M {r['entries']:>8} {r['load_s']:7.2f} {actual_mb / r['load_s']:6.0f}"
            f" {r['project_s']:9.3f} {r['append_median_ms']:9.3f} ({r['append_max_ms']:.3f}) {r['peak_rss_mb']:11.0f}"
        )
        if not args.dir:
            path.unlink()
    if not args.dir:
        os.rmdir(workdir)


if __name__ == "__main__":
    main()
