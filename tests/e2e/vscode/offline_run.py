"""Run inside an empty network namespace by ``test_vscode_offline.py``: install the platform .vsix into a
fresh code-server, start it twice on the sample workspace and drive the first flows each time.

    unshare --net -- python -m tests.e2e.vscode.offline_run CONFIG.json

The namespace has only a loopback interface (brought up here): code-server, chromium and the server
the extension installs talk over 127.0.0.1, and nothing can reach a package index. Prints one JSON
line: the driver's report of each start, and the extension's own log lines about the environment.
"""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from tests.e2e.vscode.harness import HERE, CodeServer

# What each start checks: the first one creates the environment, the second reuses it.
FIRST = ("workbench", "server-running", "diagnostic", "gauge", "sessions-tree")
SECOND = ("workbench", "server-running", "diagnostic")


def _loopback_only() -> str:
    """Bring lo up and prove the namespace has no way out (no route, no DNS)."""
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    try:
        socket.create_connection(("1.1.1.1", 443), timeout=3).close()
    except OSError as e:
        return f"no network: {e}"
    raise SystemExit("the namespace reaches the network: refusing to run the offline tier")


def _extension_log(state: Path) -> list[str]:
    lines: list[str] = []
    for log in sorted((state / "ud" / "logs").rglob("*Pi Context*.log")):
        text = log.read_text(errors="replace")
        lines += [ln for ln in text.splitlines() if "bundled server" in ln or "server started" in ln]
    return lines


def _drive(cfg: dict[str, Any], url: str, steps: tuple[str, ...], out: Path) -> dict[str, Any]:
    out.mkdir(parents=True, exist_ok=True)
    every = (
        "workbench",
        "server-running",
        "diagnostic",
        "quickfix",
        "gauge",
        "sections",
        "system-prompt-document",
        "section-change",
        "projected-request",
        "sessions-tree",
        "compact-cancel",
        "compact",
        "branch-summary",
    )
    config = {
        "url": url,
        "folder": cfg["folder"],
        "outDir": str(out),
        "chromium": cfg["tools"]["CHROMIUM"],
        "waitMs": 300_000,
        "expect": {s: True if s in steps else "not run in the offline tier" for s in every},
        "skillRelPath": cfg["skillRelPath"],
        "diagnosticText": "name contains invalid characters",
        "window": 200_000,
        "sessionLabel": cfg["sessionLabel"],
    }
    started = time.monotonic()
    done = subprocess.run(
        [cfg["tools"]["NODE24"], str(HERE / "driver.js"), json.dumps(config)],
        capture_output=True,
        text=True,
        env={**cfg["env"], "NODE_PATH": cfg["tools"]["PLAYWRIGHT_NODE_PATH"]},
        timeout=900,
        check=False,
    )
    (out / "driver.log").write_text(done.stderr)
    lines = [ln for ln in done.stdout.splitlines() if ln.startswith("{")]
    crashed = {"ok": False, "crashed": done.stderr[-3000:], "steps": []}
    report: dict[str, Any] = json.loads(lines[-1]) if lines else crashed
    report["wallSeconds"] = round(time.monotonic() - started, 1)
    return report


def main() -> int:
    cfg = json.loads(Path(sys.argv[1]).read_text())
    network = _loopback_only()
    state = Path(cfg["state"])
    server = CodeServer(cfg["tools"]["CODE_SERVER"], state, cfg["settings"], cfg["env"])
    server.install(Path(cfg["vsix"]))
    starts = []
    for n, steps in enumerate((FIRST, SECOND), start=1):
        before = len(_extension_log(state))
        try:
            url = server.start()
            report = _drive(cfg, url, steps, Path(cfg["outDir"]) / f"start-{n}")
        finally:
            server.stop()
        report["log"] = _extension_log(state)[before:]
        starts.append(report)
    shutil.copy(state / "code-server.log", Path(cfg["outDir"]) / "code-server.log")
    storage = state / "ud" / "User" / "globalStorage" / "pi-context.pi-context"
    envs = sorted(p.name for p in storage.glob("env-*")) if storage.exists() else []
    print(json.dumps({"network": network, "starts": starts, "environments": envs}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
