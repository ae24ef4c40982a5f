"""What every real-VS-Code test shares: the tools, the .vsix, a code-server with a fresh profile, the driver.

A test builds its workspace, starts :class:`CodeServer` with its settings, and runs a playwright
script (``driver.js``, ``chat_driver.js`` or ``restricted_driver.js``, all built on ``workbench.js``) through
:func:`run_driver`. The script reports one JSON line of steps (passed, failed or waiting); it can
ask the test for things only the test can do (script the fake model, release a held stream, list
processes) with ``SIGNAL <name> <json>`` lines on its stdout, which :func:`run_driver` answers on
its stdin with ``REPLY <json>``.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
EXTENSION = ROOT / "vscode-extension"
OUT = Path(os.environ.get("PI_CONTEXT_E2E_OUT", HERE / "out"))
REQUIRE = os.environ.get("PI_CONTEXT_REQUIRE_E2E") == "1"
STRICT = os.environ.get("PI_CONTEXT_E2E_STRICT") == "1"
SERVER_PYTHON = os.environ.get("PI_CONTEXT_E2E_SERVER_PYTHON") or sys.executable
FORCED = {step for step in os.environ.get("PI_CONTEXT_E2E_EXPECT", "").split(",") if step}
FORCED_OFF = {step[1:] for step in FORCED if step.startswith("-")}
DRIVER_TIMEOUT_S = 900

Handler = Callable[[Any], Any]


def tools() -> dict[str, str]:
    """The paths install.sh prints (installing first under PI_CONTEXT_REQUIRE_E2E=1), or skip."""
    script = HERE / "install.sh"
    found = subprocess.run(["bash", str(script), "--print"], capture_output=True, text=True, check=False)
    if found.returncode != 0:
        if not REQUIRE:
            pytest.skip("VS Code e2e tools missing: run tests/e2e/vscode/install.sh (or set PI_CONTEXT_REQUIRE_E2E=1)")
        installed = subprocess.run(["bash", str(script)], capture_output=True, text=True, check=False)
        assert installed.returncode == 0, installed.stderr[-4000:]
        found = subprocess.run(["bash", str(script), "--print"], capture_output=True, text=True, check=True)
    paths = dict(line.split("=", 1) for line in found.stdout.splitlines() if "=" in line)
    if shutil.which("npm") is None:
        pytest.skip("npm is not on PATH")
    return paths


def build_vsix() -> Path:
    if not (EXTENSION / "node_modules" / ".bin" / "vsce").exists():
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=EXTENSION, check=True, capture_output=True)
    done = subprocess.run(["npm", "run", "package"], cwd=EXTENSION, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return EXTENSION / "dist" / "pi-context.vsix"


def server_features() -> dict[str, Any]:
    """What this build of the server offers, asked from the server itself."""
    probe = (
        "import json; from lsp_server.server.create import create_server; "
        "s = create_server(); "
        "print(json.dumps({'features': sorted(s.protocol.fm.features), 'commands': sorted(s.protocol.fm.commands), "
        "'checker': s.ws.checker.name}))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=ROOT)
    data: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return data


def extension_views() -> set[str]:
    """The view ids this build of the extension contributes (its package.json)."""
    manifest = json.loads((EXTENSION / "package.json").read_text(encoding="utf-8"))
    views = manifest.get("contributes", {}).get("views", {})
    return {view["id"] for group in views.values() for view in group if isinstance(view, dict) and "id" in view}


def needs_server(server: dict[str, Any], *methods: str) -> bool | str:
    """True when the server offers every method, else the *waiting* reason naming the missing ones."""
    offered = set(server["features"]) | set(server["commands"])
    missing = [m for m in methods if m not in offered]
    return True if not missing else "waits for the server's " + ", ".join(missing)


def apply_forced(expect: dict[str, bool | str]) -> dict[str, bool | str]:
    """``PI_CONTEXT_E2E_EXPECT=step,-step`` runs (or skips) those steps whatever the probes say."""
    for step in expect:
        if step in FORCED:
            expect[step] = True
        elif step in FORCED_OFF:
            expect[step] = "not run (PI_CONTEXT_E2E_EXPECT)"
    return expect


def pi_chat_settings(agent_dir: Path, pi_argv: Sequence[str]) -> dict[str, str]:
    """Settings of a window whose chat runs the test's Pi (argv: node, then Pi's cli) on the test's agent dir."""
    return {
        "piContext.server.python": SERVER_PYTHON,
        "piContext.agentDir": str(agent_dir),
        "piContext.pi.command": f"{pi_argv[0]} {pi_argv[1]}",
        "piContext.trust": "trusted",
    }


def driver_config(
    url: str, folder: Path, out_dir: Path, tools: Mapping[str, str], expect: Mapping[str, bool | str], **extra: Any
) -> dict[str, Any]:
    """What every driver is given (the window, the folder it opens, where it writes, the browser, the steps
    expected), then its own values (camelCase, as the driver reads them)."""
    return {
        "url": url,
        "folder": str(folder),
        "outDir": str(out_dir),
        "chromium": tools["CHROMIUM"],
        "expect": expect,
        **extra,
    }


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def fresh_out(folder: Path, keep: Iterable[str] = ()) -> Path:
    """Empty ``folder`` for a new run, sparing the sub-folders named in ``keep`` (another test's)."""
    folder.mkdir(parents=True, exist_ok=True)
    spared = set(keep)
    for item in folder.iterdir():
        if item.name in spared:
            continue
        if item.is_dir():
            shutil.rmtree(item, ignore_errors=True)
        else:
            item.unlink()
    return folder


def run_driver(
    tools: dict[str, str], script: str, config: dict[str, Any], out_dir: Path, handlers: dict[str, Handler]
) -> subprocess.CompletedProcess[str]:
    """Run a playwright script; answer its ``SIGNAL name arg`` lines with ``handlers[name](arg)``.

    A handler's return value (anything JSON can hold) goes back as ``REPLY <json>``; an exception in
    a handler goes back as ``REPLY {"error": ...}`` so the step that asked fails with the reason.
    """
    driver = subprocess.Popen(
        [tools["NODE24"], str(HERE / script), json.dumps(config)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=(out_dir / "driver.log").open("w"),
        text=True,
        env={**os.environ, "NODE_PATH": tools["PLAYWRIGHT_NODE_PATH"]},
    )
    assert driver.stdout is not None and driver.stdin is not None
    timer = threading.Timer(DRIVER_TIMEOUT_S, driver.kill)
    timer.start()
    out: list[str] = []
    try:
        for line in driver.stdout:
            if not line.startswith("SIGNAL "):
                out.append(line)
                continue
            name, _, raw = line[len("SIGNAL ") :].strip().partition(" ")
            try:
                reply: Any = {"value": handlers[name](json.loads(raw) if raw else None)}
            except Exception as error:  # the driver's step reports it
                reply = {"error": f"{type(error).__name__}: {error}"}
            try:
                driver.stdin.write("REPLY " + json.dumps(reply) + "\n")
                driver.stdin.flush()
            except (BrokenPipeError, ValueError):
                pass
        driver.wait(timeout=60)
    finally:
        timer.cancel()
        if driver.poll() is None:
            driver.kill()
            driver.wait()
    return subprocess.CompletedProcess(
        driver.args, driver.returncode, "".join(out), (out_dir / "driver.log").read_text()
    )


def read_report(driver: subprocess.CompletedProcess[str], out_dir: Path, title: str) -> dict[str, Any]:
    """The driver's last JSON line, saved as report.json; the step summary printed and checked.

    A failed step (or a crashed driver) fails the test; under PI_CONTEXT_E2E_STRICT=1 so does a
    waiting one.
    """
    lines = [line for line in driver.stdout.splitlines() if line.startswith("{")]
    assert lines, f"driver printed no result (exit {driver.returncode}):\n{driver.stderr[-4000:]}"
    report: dict[str, Any] = json.loads(lines[-1])
    (out_dir / "report.json").write_text(json.dumps(report, indent=2))
    summary = "\n".join(
        f"{s['status']:>7}  {s['name']}: {s['detail'].splitlines()[0] if s['detail'] else ''}" for s in report["steps"]
    )
    print(f"\n{title} ({report.get('seconds', 0):.1f} s, screenshots in {out_dir}):\n{summary}")
    failed = [s for s in report["steps"] if s["status"] == "failed"]
    assert not failed and "crashed" not in report, summary + "\n\n" + "\n\n".join(s["detail"] for s in failed)
    if STRICT:
        waiting = [s["name"] for s in report["steps"] if s["status"] == "waiting"]
        assert not waiting, f"steps waiting for features not built yet: {waiting}"
    return report


class CodeServer:
    """A code-server on 127.0.0.1 with a fresh profile, the .vsix installed, stopped as a process group.

    Workspace trust is off unless ``trust=True``: then it is on and the fresh profile trusts nothing, so
    the opened folder is in Restricted Mode, with no startup dialog asking (``startupPrompt: never``);
    trust is granted from the page, as a user would (the trust editor's Trust button).
    """

    def __init__(
        self, binary: str, state: Path, settings: dict[str, Any], env: dict[str, str], *, trust: bool = False
    ) -> None:
        self.binary = binary
        self.trust = trust
        self.state = state
        self.port = free_port()
        self.env = {**env, "XDG_CONFIG_HOME": str(state / "xdg"), "XDG_DATA_HOME": str(state / "xdg")}
        (state / "ud" / "User").mkdir(parents=True)
        (state / "ext").mkdir()
        (state / "config.yaml").write_text(f"bind-addr: 127.0.0.1:{self.port}\nauth: none\ncert: false\n")
        user = {
            "workbench.startupEditor": "none",
            "workbench.tips.enabled": False,
            "workbench.enableExperiments": False,
            "telemetry.telemetryLevel": "off",
            "extensions.autoCheckUpdates": False,
            "extensions.autoUpdate": False,
            "extensions.ignoreRecommendations": True,
            "update.mode": "none",
            **(
                {"security.workspace.trust.enabled": False}
                if not trust
                else {
                    "security.workspace.trust.enabled": True,
                    "security.workspace.trust.startupPrompt": "never",
                    "security.workspace.trust.untrustedFiles": "open",
                }
            ),
            "git.enabled": False,
            "chat.disableAIFeatures": True,
            "workbench.secondarySideBar.defaultVisibility": "hidden",
            **settings,
        }
        (state / "ud" / "User" / "settings.json").write_text(json.dumps(user, indent=2))
        # code-server is a remote window: settings scoped "machine"/"machine-overridable" (interpreter,
        # endpoint URL, agent dir, Pi's command) are read from the machine settings, not the browser user's.
        (state / "ud" / "Machine").mkdir(parents=True)
        (state / "ud" / "Machine" / "settings.json").write_text(json.dumps(settings, indent=2))
        self.common = [
            "--config",
            str(state / "config.yaml"),
            "--user-data-dir",
            str(state / "ud"),
            "--extensions-dir",
            str(state / "ext"),
        ]
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def log(self) -> Path:
        return self.state / "code-server.log"

    def install(self, vsix: Path) -> None:
        done = subprocess.run(
            [self.binary, *self.common, "--install-extension", str(vsix), "--force"],
            capture_output=True,
            text=True,
            env=self.env,
            check=False,
            timeout=120,
        )
        assert done.returncode == 0, done.stdout + done.stderr

    def start(self) -> str:
        log = self.log.open("wb")
        self.process = subprocess.Popen(
            [
                self.binary,
                *self.common,
                "--disable-telemetry",
                "--disable-update-check",
                *([] if self.trust else ["--disable-workspace-trust"]),
                "--disable-getting-started-override",
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env=self.env,
            start_new_session=True,
        )
        url = f"http://127.0.0.1:{self.port}"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            assert self.process.poll() is None, self.log.read_text()[-3000:]
            try:
                with urllib.request.urlopen(f"{url}/healthz", timeout=2):
                    return url
            except OSError:
                time.sleep(0.1)
        raise AssertionError("code-server did not answer /healthz within 60 s")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=15)
