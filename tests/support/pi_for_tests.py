"""The real Pi the ``pi``-marked tests run, on its own Node 22, found or installed once.

Which release: ``$PI_CONTEXT_PI_RELEASE`` (one of :data:`lsp_server.vocabulary.pi_releases.RELEASES`, e.g.
``1.0.3``; CI's version matrix sets it, ``.ci/run``), else the newest, Pi 1.6.0. Looked for in
``$PI_PKG_DIR`` (the package folder) with ``$PI_NODE`` or ``$NODE``, else in the release's cache
folder: ``~/.cache/pi-oracle`` for the newest (what the oracle's and our own install script fill,
or ``$PI_ORACLE_HOME``), ``~/.cache/pi-<version>`` for the others (or ``$PI_CONTEXT_PI_HOMES/pi-<version>``).
When it is not there, ``tests/support/install_pi.sh`` installs it from the npm registry once per
test session (``PI_CONTEXT_NO_PI_INSTALL=1`` turns that off). Without a Pi the tests skip with the
reason; under ``PI_CONTEXT_REQUIRE_E2E=1`` (CI) they fail instead, so CI cannot pass without really
running Pi.
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

from lsp_server.vocabulary.pi_releases import NEWEST, RELEASES

RELEASE_ENV: Final = "PI_CONTEXT_PI_RELEASE"
HOMES_ENV: Final = "PI_CONTEXT_PI_HOMES"
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


def selected_release() -> str:
    """The release the real-Pi tests run: ``$PI_CONTEXT_PI_RELEASE``, else the newest."""
    return os.environ.get(RELEASE_ENV) or NEWEST.version


PI_VERSION: Final = selected_release()


def cache_folder(version: str | None = None) -> Path:
    """Where a release is installed (once) for the tests: the oracle's folder for the newest, else ``pi-<version>``."""
    version = version or PI_VERSION
    if version == NEWEST.version:
        return Path(os.environ.get("PI_ORACLE_HOME") or Path.home() / ".cache" / "pi-oracle")
    return Path(os.environ.get(HOMES_ENV) or Path.home() / ".cache") / f"pi-{version}"


def known_release(version: str) -> bool:
    return any(release.version == version for release in RELEASES)


def _node_package() -> str:
    system = {"Linux": "linux", "Darwin": "darwin"}.get(platform.system(), platform.system().lower())
    machine = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "arm64": "arm64"}.get(
        platform.machine().lower(), platform.machine()
    )
    return f"node-{system}-{machine}"


def find_test_pi(version: str | None = None) -> tuple[PiUnderTest | None, str]:
    """The installed test Pi (``version``, default the selected release), or None and why not.

    ``$PI_PKG_DIR`` / ``$PI_NODE`` point at the selected release only; another version is looked for
    in its own cache folder.
    """
    wanted = version or PI_VERSION
    folder = cache_folder(wanted)
    explicit = version is None or version == PI_VERSION
    package_env = os.environ.get("PI_PKG_DIR") if explicit else None
    package = Path(package_env or folder / "node_modules" / "@earendil-works" / "pi-coding-agent")
    node_env = (os.environ.get("PI_NODE") or os.environ.get("NODE")) if explicit else None
    node = Path(node_env) if node_env else folder / "node_modules" / _node_package() / "bin" / "node"
    try:
        version = json.loads((package / "package.json").read_text(encoding="utf-8"))["version"]
    except (OSError, ValueError, KeyError, TypeError):
        return None, f"Pi is not installed in {package}"
    if version != wanted:
        return None, f"{package} holds Pi {version}, the tests need {wanted}"
    if not (package / "dist" / "bundle" / "cli.js").is_file():
        return None, f"{package} has no dist/bundle/cli.js"
    if not (node.is_file() and os.access(node, os.X_OK)):
        return None, f"no Node binary at {node}"
    return PiUnderTest(node, package, version), ""


def install_test_pi(version: str | None = None) -> tuple[PiUnderTest | None, str]:
    """Run install_pi.sh into the release's cache folder; the Pi it installed, or None and the reason."""
    wanted = version or PI_VERSION
    try:
        done = subprocess.run(
            ["bash", str(INSTALL_SCRIPT), str(cache_folder(wanted)), wanted, NODE_VERSION],
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
    return find_test_pi(version)


_resolved: dict[str, tuple[PiUnderTest | None, str]] = {}


def require_test_pi(version: str | None = None) -> PiUnderTest:
    """The test Pi (``version``, default the selected release; installed once if needed), or skip/fail saying why."""
    wanted = version or PI_VERSION
    if wanted not in _resolved:
        if not known_release(wanted):
            _resolved[wanted] = (
                None,
                f"Pi {wanted} is not a release pi-context knows (lsp_server/vocabulary/pi_releases.py)",
            )
        else:
            found, reason = find_test_pi(version)
            if found is None and os.environ.get(NO_INSTALL_ENV) != "1":
                found, install_reason = install_test_pi(version)
                reason = install_reason or reason
            _resolved[wanted] = (found, reason)
    found, reason = _resolved[wanted]
    if found is None:
        message = f"real Pi {wanted} unavailable: {reason} (run tests/support/install_pi.sh)"
        if os.environ.get(REQUIRE_ENV) == "1":
            pytest.fail(f"{REQUIRE_ENV}=1 but {message}")
        pytest.skip(message)
    return found


def settled_event(version: str, *, aborted: bool) -> dict[str, object]:
    """The ``agent_settled`` event Pi ``version`` writes (``aborted`` from Pi 1.1.0 on: docs/pi-versions.md)."""
    from lsp_server.vocabulary.pi_releases import rules_for

    return (
        {"type": "agent_settled", "aborted": aborted}
        if rules_for(version).has("settled-aborted")
        else {"type": "agent_settled"}
    )


def summary_focus_expected(body: dict[str, object], version: str) -> bool:
    """Whether Pi ``version`` sends ``/compact``'s instructions in this summary request.

    The history call always carries them; a split turn's prefix call (its prompt opens with
    ``# Conversation``) only from Pi 1.4.0 on (docs/pi-versions.md).
    """
    from lsp_server.vocabulary.pi_releases import rules_for

    messages = body.get("messages")
    user = messages[-1] if isinstance(messages, list) and messages else {}
    content = user.get("content") if isinstance(user, dict) else None
    text = (
        content
        if isinstance(content, str)
        else "".join(part.get("text", "") for part in content or [] if isinstance(part, dict))
    )
    return not text.startswith("# Conversation") or rules_for(version).has("turn-prefix-instructions")
