"""What following the Pi release costs: the capability probes at a chat's start, and the newer-Pi scan of a session.

Run: ``python bench/bench_pi_releases.py [--runs 5] [--entries 100000] [--json]``.

* **probes** (``--runs`` times per installed release): the real Pi in RPC mode against the loopback
  model, a new session; after its first ``get_state``, ``detect()`` (pi_rpc/capabilities.py): the probes
  sent together, each answered. Reported per release: the median and the slowest of the runs, and
  Pi's own start (to ``get_state`` answered) for scale: the probes are what a chat's start pays on top.
* **novelty**: ``session_novelty`` (session/novelty.py) over a generated current-version session of
  ``--entries`` entries shaped like a real one (user, assistant with usage, tool results, a compaction
  every 500 entries), once with nothing new and once with a new entry type and a new compaction field
  near the end (the scan goes through everything either way); and the load of the same file
  (``load_session``) for scale, since the scan runs over entries already read.

The machine is shared: compare runs made back to back, with the load average printed. Nothing here is asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from lsp_server.pi_rpc import PiRpcProcess  # noqa: E402
from lsp_server.pi_rpc.capabilities import detect  # noqa: E402
from lsp_server.session.novelty import session_novelty  # noqa: E402
from lsp_server.session.tail import load_session  # noqa: E402
from lsp_server.vocabulary.pi_releases import RELEASES  # noqa: E402
from tests.support.fake_llm_server import FakeLlmServer  # noqa: E402
from tests.support.pi_agent import write_agent_dir  # noqa: E402
from tests.support.pi_for_tests import find_test_pi  # noqa: E402


async def probe_once(argv: tuple[str, ...], base_url: str, tmp: Path) -> tuple[float, float]:
    agent = write_agent_dir(tmp / "agent", base_url)
    workspace = tmp / "ws"
    workspace.mkdir(exist_ok=True)
    started = time.perf_counter()
    process = await PiRpcProcess.start(argv, cwd=workspace, env=agent.env(), provider=agent.provider, model=agent.model)
    ready = time.perf_counter()
    try:
        await detect(process, "1.6.0", process.initial_state)
        probed = time.perf_counter()
    finally:
        await process.close()
    return (ready - started) * 1000, (probed - ready) * 1000


def probes(runs: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for release in RELEASES:
        pi, reason = find_test_pi(release.version)
        if pi is None:
            out[release.version] = {"skipped": reason}
            continue
        starts, probe_ms = [], []
        with FakeLlmServer() as model:
            for _ in range(runs):
                with tempfile.TemporaryDirectory() as tmp:
                    start, probe = asyncio.run(probe_once(pi.argv, model.openai_base_url, Path(tmp)))
                starts.append(start)
                probe_ms.append(probe)
        out[release.version] = {
            "pi_start_ms_median": round(statistics.median(starts)),
            "probes_ms_median": round(statistics.median(probe_ms), 1),
            "probes_ms_max": round(max(probe_ms), 1),
        }
    return out


def session_lines(entries: int, new_things: bool) -> list[dict[str, Any]]:
    usage = {"input": 900, "output": 120, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 1020}
    lines: list[dict[str, Any]] = [
        {"type": "session", "version": 3, "id": "s", "timestamp": "2026-12-01T00:00:00.000Z", "cwd": "/w"}
    ]
    parent = None
    for index in range(entries):
        entry_id = f"{index:08x}"
        stamp = "2026-12-01T00:00:01.000Z"
        if index % 500 == 499:
            entry: dict[str, Any] = {"type": "compaction", "id": entry_id, "parentId": parent, "timestamp": stamp,
                                     "summary": "## Goal\n" + "summary text " * 40, "firstKeptEntryId": parent,
                                     "tokensBefore": 50000}  # fmt: skip
        elif index % 3 == 0:
            entry = {"type": "message", "id": entry_id, "parentId": parent, "timestamp": stamp,
                     "message": {"role": "user", "content": "a question " * 20, "timestamp": index}}  # fmt: skip
        elif index % 3 == 1:
            entry = {"type": "message", "id": entry_id, "parentId": parent, "timestamp": stamp,
                     "message": {"role": "assistant", "content": [{"type": "text", "text": "an answer " * 40}],
                                 "api": "openai-completions", "provider": "p", "model": "m", "usage": usage,
                                 "stopReason": "stop", "timestamp": index}}  # fmt: skip
        else:
            entry = {"type": "message", "id": entry_id, "parentId": parent, "timestamp": stamp,
                     "message": {"role": "toolResult", "toolCallId": "c", "toolName": "read",
                                 "content": [{"type": "text", "text": "file text " * 60}], "isError": False,
                                 "timestamp": index}}  # fmt: skip
        if new_things and index == entries - 10:
            entry = {"type": "checkpoint", "id": entry_id, "parentId": parent, "timestamp": stamp}
        if new_things and entry["type"] == "compaction" and index > entries - 600:
            entry["retainedTail"] = {"entries": 3}
        lines.append(entry)
        parent = entry_id
    return lines


def novelty(entries: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for new_things in (False, True):
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "s.jsonl"
            path.write_text("".join(json.dumps(line) + "\n" for line in session_lines(entries, new_things)))
            started = time.perf_counter()
            session = load_session(str(path))
            loaded = time.perf_counter()
            found = session_novelty(session.header, session.entries, session.lines, session.header_line)
            scanned = time.perf_counter()
            out["with new things" if new_things else "nothing new"] = {
                "mb": round(path.stat().st_size / 1e6, 1),
                "load_ms": round((loaded - started) * 1000),
                "scan_ms": round((scanned - loaded) * 1000, 1),
                "items": found.items() if found else [],
            }
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--entries", type=int, default=100_000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result = {"load_average": os.getloadavg(), "probes": probes(args.runs), "novelty": novelty(args.entries)}
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"load average {result['load_average'][0]:.1f}")
    for version, row in result["probes"].items():
        print(f"Pi {version}: {row}")
    for name, row in result["novelty"].items():
        print(f"novelty, {name}: {row}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
