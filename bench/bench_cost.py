"""The turn ledger and the next request's price at 1 / 10 / 100 MB.

Usage::

    python bench/bench_cost.py [--sizes 1,10,100] [--dir DIR]

Uses bench_session's synthetic sessions (one assistant reply per turn, tool results of a few KB,
occasional compactions). In a fresh subprocess per size it measures, after loading the file:

* ``ledger``: the branch's ledger with session totals and branch points (``build_ledger``);
* ``next``: the next request priced (two projections, segments, the common prefix, Pi's chars/4);
* ``turnLedger``: the whole ``pi/turnLedger`` answer in a project (analysis + ledger + next request);
* ``promptUpdate``: its ``promptUpdate`` alone, on the same session with a recorded prompt (a system
  message at the leaf holding the workspace's sections, one of them different): Pi's patch and the
  next request priced with it (one more projection and pricing).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from lsp_server.project.prompt_state import build_prompt

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))


def measure(path: str) -> dict[str, Any]:
    from lsp_server.cost.ledger import build_ledger
    from lsp_server.cost.next_request import price_next_request
    from lsp_server.cost.prices import PriceCatalog
    from lsp_server.project.analysis import analyze
    from lsp_server.project.costs import prompt_update, turn_ledger
    from lsp_server.project.project import ProjectInputs, open_project
    from lsp_server.session.projection import build_session_projection
    from lsp_server.session.tail import load_session
    from lsp_server.session.tree import build_path
    from lsp_server.tokens.pi import pi_text_tokens

    session = load_session(path)
    prices = PriceCatalog.for_agent_dir(tempfile.mkdtemp())
    started = time.perf_counter()
    branch = build_path(session.entries, by_id=session.index.by_id)
    children = session.index.children
    ledger = build_ledger(
        branch,
        prices.prices_for,
        all_entries=session.entries,
        children_count=lambda entry_id: len(children.get(entry_id, ())),
    )
    ledger_s = time.perf_counter() - started
    started = time.perf_counter()
    projection = build_session_projection(session.entries, by_id=session.index.by_id)
    price_next_request(branch, projection, prices.prices_for, pi_text_tokens)
    next_s = time.perf_counter() - started
    folder = tempfile.mkdtemp()
    snapshot = build_prompt(open_project(ProjectInputs.create(folder, env=os.environ, agent_dir=tempfile.mkdtemp())))
    started = time.perf_counter()
    turn_ledger(snapshot, session)
    whole_s = time.perf_counter() - started
    recorded = load_session(_with_recorded_prompt(path, snapshot.section_map()))
    analysis = analyze(snapshot, recorded)
    started = time.perf_counter()
    update = prompt_update(snapshot, analysis)
    update_s = time.perf_counter() - started
    assert update is not None and update.patch, "the recorded prompt differs in one section"
    return {
        "turns": len(ledger.turns),
        "ledger": ledger_s,
        "next": next_s,
        "turnLedger": whole_s,
        "promptUpdate": update_s,
    }


def _with_recorded_prompt(path: str, sections: dict[str, str]) -> str:
    """A copy of the session with a system message recording ``sections`` (the cwd section changed) appended
    at the leaf: the prompt Pi recorded, which the workspace has moved on from since."""
    text = Path(path).read_text(encoding="utf-8")
    last = json.loads(text.rstrip("\n").rsplit("\n", 1)[-1])
    recorded = {**sections, "cwd": "<cwd>\n/elsewhere\n</cwd>"}
    message = {"role": "system", "content": "", "sections": recorded, "timestamp": 1}
    system = {"type": "message", "id": "sys00000", "parentId": last["id"], "timestamp": last["timestamp"]}
    system["message"] = message
    copy = Path(tempfile.mkdtemp()) / "recorded.jsonl"
    copy.write_text(text + json.dumps(system) + "\n", encoding="utf-8")
    return str(copy)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="1,10,100")
    parser.add_argument("--dir", help="where to write the sessions (default: a temp dir)")
    parser.add_argument("--measure", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(measure(args.measure)))
        return
    from bench_session import generate

    folder = Path(args.dir or tempfile.mkdtemp(prefix="pi-context-bench-cost-"))
    folder.mkdir(parents=True, exist_ok=True)
    print(f"{'size':>6} {'turns':>7} {'ledger':>9} {'next':>9} {'turnLedger':>11} {'promptUpdate':>13}")
    for size in (int(s) for s in args.sizes.split(",")):
        path = folder / f"session-{size}mb.jsonl"
        if not path.exists():
            generate(path, size * 1024 * 1024)
        done = subprocess.run(
            [sys.executable, __file__, "--measure", str(path)], capture_output=True, text=True, check=True
        )
        result = json.loads(done.stdout)
        print(
            f"{size:>4}MB {result['turns']:>7,} {result['ledger'] * 1000:>7.0f}ms {result['next'] * 1000:>7.0f}ms "
            f"{result['turnLedger'] * 1000:>9.0f}ms {result['promptUpdate'] * 1000:>11.0f}ms"
        )


if __name__ == "__main__":
    main()
