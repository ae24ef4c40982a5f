"""The real Pi the ``pi``-marked tests run: Pi 1.6.0 on its own Node 22, found or installed once.

Looked for in ``$PI_PKG_DIR`` (the package folder) with ``$PI_NODE`` or ``$NODE``, else in
``~/.cache/pi-oracle`` (what the oracle's and our own install script fill). When it is not there,
``tests/support/install_pi.sh`` installs it from the npm registry once per test session
(``PI_CONTEXT_NO_PI_INSTALL=1`` turns that off). Without a Pi the tests skip with the reason; under
``PI_CONTEXT_REQUIRE_E2E=1`` (CI) they fail instead, so CI cannot pass without really running Pi.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import pytest

PI_VERSION: Final = "1.6.0"
NODE_VERSION: Final = "22.21.1"
INSTALL_SCRIPT: Final = Path(__file__).with_name("install_pi.sh")
INSTALL_TIMEOUT_S: Final = 900.0
REQUIRE_ENV: Final = "PI_CONTEXT_REQUIRE_E2E"
NO_INSTALL_ENV: Final = "PI_CONTEXT_NO_PI_INSTALL"


@dataclass(frozen=True)
class PiUnderTest:
    node: Path
    package: Path
    version: str

    @property
    def cli(self) -> Path:
        return self.package / "dist" / "bundle" / "cli.js"

    @property
    def argv(self) -> tuple[str, str]:
        """The command prefix before ``--mode rpc``."""
        return (str(self.node), str(self.cli))


def cache_folder() -> Path:
    return Path(os.environ.get("PI_ORACLE_HOME") or Path.home() / ".cache" / "pi-oracle")


def _node_package() -> str:
    system = {"Linux": "linux", "Darwin": "darwin"}.get(platform.system(), platform.system().lower())
    machine = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "arm64": "arm64"}.get(
        platform.machine().lower(), platform.machine()
    )
    return f"node-{system}-{machine}"


def find_test_pi() -> tuple[PiUnderTest | None, str]:
    """The installed test Pi, or None and why not."""
    folder = cache_folder()
    package = Path(os.environ.get("PI_PKG_DIR") or folder / "node_modules" / "@earendil-works" / "pi-coding-agent")
    node_env = os.environ.get("PI_NODE") or os.environ.get("NODE")
    node = Path(node_env) if node_env else folder / "node_modules" / _node_package() / "bin" / "node"
    try:
        version = json.loads((package / "package.json").read_text(encoding="utf-8"))["version"]
    except (OSError, ValueError, KeyError, TypeError):
        return None, f"Pi is not installed in {package}"
    if version != PI_VERSION:
        return None, f"{package} holds Pi {version}, the tests need {PI_VERSION}"
    if not (package / "dist" / "bundle" / "cli.js").is_file():
        return None, f"{package} has no dist/bundle/cli.js"
    if not (node.is_file() and os.access(node, os.X_OK)):
        return None, f"no Node binary at {node}"
    return PiUnderTest(node, package, version), ""


def install_test_pi() -> tuple[PiUnderTest | None, str]:
    """Run install_pi.sh into the cache folder; the Pi it installed, or None and the reason."""
    try:
        done = subprocess.run(
            ["bash", str(INSTALL_SCRIPT), str(cache_folder()), PI_VERSION, NODE_VERSION],
            capture_output=True,
            text=True,
            timeout=INSTALL_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        return None, f"installing Pi failed: {error}"
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["(no output)"])[-1]
        return None, f"installing Pi with {INSTALL_SCRIPT.name} failed: {last}"
    return find_test_pi()


_resolved: tuple[PiUnderTest | None, str] | None = None


def require_test_pi() -> PiUnderTest:
    """The test Pi (installing it once if needed), or skip/fail with the reason."""
    global _resolved
    if _resolved is None:
        found, reason = find_test_pi()
        if found is None and os.environ.get(NO_INSTALL_ENV) != "1":
            found, install_reason = install_test_pi()
            reason = install_reason or reason
        _resolved = (found, reason)
    found, reason = _resolved
    if found is None:
        message = f"real Pi {PI_VERSION} unavailable: {reason} (run tests/support/install_pi.sh)"
        if os.environ.get(REQUIRE_ENV) == "1":
            pytest.fail(f"{REQUIRE_ENV}=1 but {message}")
        pytest.skip(message)
    return found
