"""The extension's recorded usage fixtures are still what the server answers for their inputs.

``vscode-extension/test/fixtures/usage/*.json`` are ``pi/usage`` answers the Usage panel's unit tests
word and draw; ``vscode-extension/scripts/record_usage_fixtures.py`` computes them with the code the
server's handler calls. A failure means the answer changed: rerun the script, then the extension's tests.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "vscode-extension" / "scripts" / "record_usage_fixtures.py"
FIXTURES = ROOT / "vscode-extension" / "test" / "fixtures" / "usage"


def test_every_usage_fixture_equals_the_servers_answer_for_its_inputs() -> None:
    env = {key: value for key, value in os.environ.items() if not key.startswith("PI_")}
    env.update(PYTHONPATH=str(ROOT), PI_PACKAGE_DIR=str(ROOT / "no-pi-here"))
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--print"], capture_output=True, text=True, env=env, timeout=600, check=False
    )
    assert done.returncode == 0, done.stderr
    answers = json.loads(done.stdout)
    assert {path.name for path in FIXTURES.glob("*.json")} == set(answers)
    stale = [name for name, answer in answers.items() if json.loads((FIXTURES / name).read_text("utf-8")) != answer]
    assert stale == [], f"run: python {SCRIPT.relative_to(ROOT)}"
