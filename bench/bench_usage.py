"""``pi-context usage`` over a sessions folder of 1,000 sessions / 1 GB: first run, second run, memory.

Usage::

    python bench/bench_usage.py [--sessions 1000] [--gigabytes 1] [--dir DIR] [--ccusage]

Writes an agent dir's ``sessions/`` shaped like a real one: 40 project folders, session sizes spread
from tens of KB to several MB (most small, a few large), each session a chain of user prompts,
assistant replies with Pi's usage (uncached input, cache reads and writes, output, ``totalTokens``)
and the cost pi-ai computes at Anthropic-like rates (float sums, as Pi records them), tool results of
a few KB, over 90 days; one session in ten is a clone or fork of another (the parent's entries copied
with the same ids and timestamps, then its own turns), so the lineage has work to do. Then, each in a
fresh process (so the peak RSS is that run's alone), ``pi-context usage DIR --json`` with a cache file:

* ``first``: no cache yet: every file read whole;
* ``second``: nothing changed: one ``stat`` per file, no session byte read;
* ``append``: one turn appended to 10 sessions: those read from where they stopped;
* with ``--ccusage`` (installed by ``tests/support/install_ccusage.sh``), ``ccusage-pi daily --json``
  on the same folder, for scale.

Prints one JSON object with the times, bytes read, peak RSS and the cache file's size.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
RATES = {"input": 3.0, "output": 15.0, "cacheRead": 0.3, "cacheWrite": 3.75}  # $ per million tokens
DAY_MS = 86_400_000
START_MS = 1_760_000_000_000  # October 2025


def _iso(ms: int) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ms / 1000)) + f".{ms % 1000:03d}Z"


def _usage(rng: random.Random, context: int) -> dict[str, Any]:
    cache_read = int(context * rng.uniform(0.85, 0.99))
    cache_write = context - cache_read if rng.random() < 0.7 else 0
    fresh = rng.randint(1, 400)
    output = rng.randint(20, 1500)
    cost = {
        "input": RATES["input"] / 1e6 * fresh,
        "output": RATES["output"] / 1e6 * output,
        "cacheRead": RATES["cacheRead"] / 1e6 * cache_read,
        "cacheWrite": RATES["cacheWrite"] / 1e6 * cache_write,
    }
    cost["total"] = cost["input"] + cost["output"] + cost["cacheRead"] + cost["cacheWrite"]
    return {
        "input": fresh,
        "output": output,
        "cacheRead": cache_read,
        "cacheWrite": cache_write,
        "totalTokens": fresh + output + cache_read + cache_write,
        "cost": cost,
    }


class Texts:
    """Pre-made texts of each kind (prompts, replies, tool results), picked at random: writing a gigabyte
    word by word would take longer than the benchmark."""

    def __init__(self, rng: random.Random, words: list[str]) -> None:
        def text(low: int, high: int, per_line: int = 0) -> str:
            if per_line:
                return "\n".join(
                    " ".join(rng.choice(words) for _ in range(per_line)) for _ in range(rng.randint(low, high))
                )
            return " ".join(rng.choice(words) for _ in range(rng.randint(low, high)))

        self.prompts = [text(5, 60) for _ in range(200)]
        self.replies = [text(5, 60) for _ in range(200)]
        self.results = [text(10, 120, per_line=12) for _ in range(300)]
        self.paths = [f"src/{word}.ts" for word in words]


def _session_lines(rng: random.Random, target: int, start_ms: int, cwd: str, texts: Texts) -> list[str]:
    session_id = f"{rng.getrandbits(128):032x}"
    lines = [json.dumps({"type": "session", "version": 3, "id": session_id, "timestamp": _iso(start_ms), "cwd": cwd})]
    size = len(lines[0])
    parent: str | None = None
    now = start_ms
    context = rng.randint(3000, 12000)

    def emit(entry: dict[str, Any]) -> None:
        nonlocal parent, size
        entry_id = f"{rng.getrandbits(32):08x}"
        line = json.dumps(
            {"type": entry.pop("type"), "id": entry_id, "parentId": parent, "timestamp": _iso(now), **entry}
        )
        lines.append(line)
        size += len(line) + 1
        parent = entry_id

    while size < target:
        now += rng.randint(5_000, 600_000)
        emit({"type": "message", "message": {"role": "user", "content": rng.choice(texts.prompts), "timestamp": now}})
        for _ in range(rng.randint(1, 5)):
            started = now
            now += rng.randint(2_000, 40_000)
            context += rng.randint(200, 4000)
            call = f"toolu_{rng.getrandbits(64):016x}"
            message = {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": rng.choice(texts.replies)},
                    {"type": "toolCall", "id": call, "name": "read", "arguments": {"path": rng.choice(texts.paths)}},
                ],
                "api": "anthropic-messages",
                "provider": "anthropic",
                "model": rng.choice(("claude-sonnet-4-5", "claude-sonnet-4-5", "claude-opus-4-5")),
                "usage": _usage(rng, context),
                "stopReason": "toolUse",
                "timestamp": started,
            }
            emit({"type": "message", "message": message})
            body = rng.choice(texts.results)
            emit({"type": "message", "message": {"role": "toolResult", "toolCallId": call, "toolName": "read",
                                                 "content": [{"type": "text", "text": body}], "isError": False,
                                                 "timestamp": now}})  # fmt: skip
    return lines


def generate(root: Path, sessions: int, total_bytes: int, seed: int = 1) -> dict[str, Any]:
    """The sessions folder; returns what was written."""
    rng = random.Random(seed)
    texts = Texts(rng, [f"w{i}" for i in range(800)] + ["é", "naïve", "日本", "😀"])
    projects = [f"/home/dev/project-{i:02d}" for i in range(40)]
    weights = [rng.lognormvariate(0, 1.1) for _ in range(sessions)]
    scale = total_bytes / sum(weights)
    written: list[tuple[Path, list[str]]] = []
    copies = 0
    size = 0
    for index in range(sessions):
        target = max(20_000, int(weights[index] * scale))
        cwd = rng.choice(projects)
        folder = root / ("--" + cwd.strip("/").replace("/", "-") + "--")
        folder.mkdir(parents=True, exist_ok=True)
        start = START_MS + rng.randint(0, 90) * DAY_MS + rng.randint(0, DAY_MS - 1)
        if written and index % 10 == 9:  # a clone or fork: the parent's entries again, then its own turns
            parent_path, parent_lines = rng.choice(written)
            cut = rng.randint(2, len(parent_lines))
            header = json.loads(parent_lines[0])
            own = _session_lines(rng, max(20_000, target // 4), start, header["cwd"], texts)
            head = json.loads(own[0])
            head["parentSession"] = str(parent_path)
            lines = [json.dumps(head), *parent_lines[1:cut], *own[1:]]
            copies += 1
        else:
            lines = _session_lines(rng, target, start, cwd, texts)
        head = json.loads(lines[0])
        path = folder / f"{_iso(start).replace(':', '-').replace('.', '-')}_{head['id']}.jsonl"
        text = "\n".join(lines) + "\n"
        path.write_text(text, encoding="utf-8")
        size += len(text.encode("utf-8"))
        written.append((path, lines))
    return {"sessions": sessions, "copies": copies, "bytes": size, "projects": len(projects)}


def run_usage(sessions: Path, cache: Path) -> dict[str, Any]:
    """``pi-context usage`` in a fresh process: wall time, peak RSS of that process, its scan counts."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("PI_")}
    env["PI_PACKAGE_DIR"] = str(sessions / "no-pi")  # no catalog lookups: the costs are recorded
    script = (
        "import json, sys, time\n"
        "def peak_rss():\n"
        "    # VmHWM: this process's own peak (ru_maxrss would carry the parent's over fork and exec)\n"
        "    for line in open('/proc/self/status'):\n"
        "        if line.startswith('VmHWM:'):\n"
        "            return int(line.split()[1]) * 1024\n"
        "from lsp_server.cli import main\n"
        "started = time.perf_counter()\n"
        "import io, contextlib\n"
        "out = io.StringIO()\n"
        "with contextlib.redirect_stdout(out):\n"
        f"    code = main(['usage', {str(sessions)!r}, '--json', '--cache', {str(cache)!r}, '--timezone', 'UTC'])\n"
        "elapsed = time.perf_counter() - started\n"
        "report = json.loads(out.getvalue())\n"
        "rss = peak_rss()\n"
        "print(json.dumps({'seconds': elapsed, 'peakRssBytes': rss, 'scan': report['scan'],\n"
        "                  'totals': report['totals']}))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, cwd=REPO, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def run_ccusage(sessions: Path) -> dict[str, Any] | None:
    sys.path.insert(0, str(REPO))
    from tests.support.ccusage import folder
    from tests.support.pi_for_tests import find_test_pi

    pi, _reason = find_test_pi()
    entry = folder() / "node_modules" / "@ccusage" / "pi" / "dist" / "index.js"
    if pi is None or not entry.is_file():
        return None
    # Through a small Python whose only child is Node, so RUSAGE_CHILDREN's peak is Node's alone.
    script = (
        "import json, resource, subprocess, sys, time\n"
        "started = time.perf_counter()\n"
        "done = subprocess.run(sys.argv[1:], capture_output=True, text=True, check=True)\n"
        "elapsed = time.perf_counter() - started\n"
        "rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024\n"
        "print(json.dumps({'seconds': elapsed, 'peakRssBytes': rss, 'totals': json.loads(done.stdout)['totals']}))\n"
    )
    command = [str(pi.node), str(entry), "daily", "--json", "--piPath", str(sessions), "--timezone", "UTC"]
    done = subprocess.run(
        [sys.executable, "-c", script, *command],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "LOG_LEVEL": "0"},
    )
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def append_turns(sessions: Path, count: int) -> int:
    """One assistant turn appended to ``count`` sessions (the largest); returns the bytes appended."""
    files = sorted(sessions.rglob("*.jsonl"), key=lambda path: path.stat().st_size, reverse=True)[:count]
    added = 0
    for number, path in enumerate(files):
        with path.open("rb") as handle:
            handle.seek(max(0, path.stat().st_size - 65536))
            last = json.loads(handle.read().splitlines()[-1])
        rng = random.Random(number)
        entry = {
            "type": "message",
            "id": f"a{number:07x}",
            "parentId": last["id"],
            "timestamp": _iso(START_MS + 100 * DAY_MS),
            "message": {"role": "assistant", "content": [{"type": "text", "text": "done"}], "api": "anthropic-messages",
                        "provider": "anthropic", "model": "claude-sonnet-4-5", "usage": _usage(rng, 50_000),
                        "stopReason": "stop", "timestamp": START_MS + 100 * DAY_MS},
        }  # fmt: skip
        line = json.dumps(entry) + "\n"
        with path.open("a", encoding="utf-8") as handle:
            handle.write(line)
        added += len(line)
    return added


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sessions", type=int, default=1000)
    parser.add_argument("--gigabytes", type=float, default=1.0)
    parser.add_argument("--dir", default=None, help="where to write the sessions (default: a temporary folder)")
    parser.add_argument("--ccusage", action="store_true", help="also time ccusage's Pi adapter on the same folder")
    args = parser.parse_args()
    base = Path(args.dir) if args.dir else Path(tempfile.mkdtemp(prefix="bench-usage-"))
    sessions = base / "sessions"
    cache = base / "usage-cache.json"
    try:
        if not sessions.exists():
            started = time.perf_counter()
            written = generate(sessions, args.sessions, int(args.gigabytes * 1e9))
            written["generateSeconds"] = time.perf_counter() - started
        else:
            written = {"reused": str(sessions)}
        if cache.exists():
            cache.unlink()
        result: dict[str, Any] = {"folder": written, "load": os.getloadavg()}
        result["first"] = run_usage(sessions, cache)
        result["cacheBytes"] = cache.stat().st_size
        result["second"] = run_usage(sessions, cache)
        result["appendedBytes"] = append_turns(sessions, 10)
        result["append"] = run_usage(sessions, cache)
        if args.ccusage:
            result["ccusage"] = run_ccusage(sessions)
        result["loadAfter"] = os.getloadavg()
        print(json.dumps(result, indent=1))
    finally:
        if not args.dir:
            shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
