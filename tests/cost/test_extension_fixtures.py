"""The extension's recorded cost fixtures are still what the server answers for their inputs.

``vscode-extension/test/fixtures/cost/*.json`` are server answers the extension's unit tests word and
draw. ``vscode-extension/scripts/record_cost_fixtures.py`` computes them with the code the server's
handlers call; this runs it (in its own process, with its own environment) and compares. A failure
means the server's answer changed: rerun the script and check the extension's tests still hold.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "vscode-extension" / "scripts" / "record_cost_fixtures.py"
FIXTURES = ROOT / "vscode-extension" / "test" / "fixtures" / "cost"


def test_every_cost_fixture_equals_the_servers_answer_for_its_inputs() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--print"], capture_output=True, text=True, env=env, timeout=600, check=False
    )
    assert done.returncode == 0, done.stderr
    answers = json.loads(done.stdout)
    recorded = {path.name for path in FIXTURES.glob("*.json")} - {"before-compaction.models.json"}
    assert recorded == set(answers), "every fixture comes from the script (the models.json is an input)"
    stale = [name for name, answer in answers.items() if json.loads((FIXTURES / name).read_text("utf-8")) != answer]
    assert stale == [], f"run: python {SCRIPT.relative_to(ROOT)}"
