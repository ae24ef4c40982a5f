"""ccusage's Pi adapter (``@ccusage/pi``) for the comparison tests, found or installed once.

Looked for in ``$PI_CONTEXT_CCUSAGE_DIR`` (default ``~/.cache/pi-context-ccusage``), run with the Node
of the real-Pi tests (:mod:`tests.support.pi_for_tests`). When missing, ``install_ccusage.sh`` installs
it from the npm registry once per test session (``PI_CONTEXT_NO_PI_INSTALL=1`` turns that off too).
Without it the tests skip with the reason; under ``PI_CONTEXT_REQUIRE_E2E=1`` (CI) they fail.
"""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import pytest

from tests.support.pi_for_tests import NO_INSTALL_ENV, REQUIRE_ENV, find_test_pi

CCUSAGE_VERSION: Final = "18.0.11"
INSTALL_SCRIPT: Final = Path(__file__).with_name("install_ccusage.sh")


@dataclass(frozen=True)
class Ccusage:
    node: Path
    entry: Path

    def json(self, command: str, sessions: Path, *args: str) -> Any:
        """``ccusage-pi COMMAND --json --piPath SESSIONS ARGS``'s answer."""
        done = subprocess.run(
            [str(self.node), str(self.entry), command, "--json", "--piPath", str(sessions), *args],
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
            env={**os.environ, "LOG_LEVEL": "0"},
        )
        return json.loads(done.stdout)


def folder() -> Path:
    return Path(os.environ.get("PI_CONTEXT_CCUSAGE_DIR") or Path.home() / ".cache" / "pi-context-ccusage")


def _find() -> tuple[Ccusage | None, str]:
    pi, reason = find_test_pi()
    if pi is None:
        return None, f"no Node to run it on ({reason})"
    package = folder() / "node_modules" / "@ccusage" / "pi"
    try:
        version = json.loads((package / "package.json").read_text(encoding="utf-8"))["version"]
    except (OSError, ValueError, KeyError, TypeError):
        return None, f"@ccusage/pi is not installed in {folder()}"
    if version != CCUSAGE_VERSION:
        return None, f"{package} holds @ccusage/pi {version}, the tests compare with {CCUSAGE_VERSION}"
    return Ccusage(pi.node, package / "dist" / "index.js"), ""


_resolved: tuple[Ccusage | None, str] | None = None


def require_ccusage() -> Ccusage:
    """ccusage's Pi adapter (installed once if needed), or skip/fail with the reason."""
    global _resolved
    if _resolved is None:
        found, reason = _find()
        if found is None and os.environ.get(NO_INSTALL_ENV) != "1":
            done = subprocess.run(
                ["bash", str(INSTALL_SCRIPT), str(folder()), CCUSAGE_VERSION],
                capture_output=True,
                text=True,
                timeout=600,
                check=False,
            )
            found, again = _find()
            if found is None:
                reason = (done.stderr.strip().splitlines() or [again])[-1]
        _resolved = (found, reason)
    found, reason = _resolved
    if found is None:
        message = f"@ccusage/pi {CCUSAGE_VERSION} unavailable: {reason} (run tests/support/install_ccusage.sh)"
        if os.environ.get(REQUIRE_ENV) == "1":
            pytest.fail(f"{REQUIRE_ENV}=1 but {message}")
        pytest.skip(message)
    return found
