"""The Pi Context extension in real VS Code: code-server from npm, headless Debian chromium, playwright-core.

The test builds the .vsix, installs it into a fresh code-server profile, opens a sample workspace
(a broken SKILL.md, an AGENTS.md, a Pi session in its agent dir) with a loopback fake LLM as the
summarizer, and lets ``driver.js`` walk through the user flows: diagnostic in the Problems panel,
quick fix, budget gauge, sections matching ``pi-context prompt --json``, the highlighted section
after saving AGENTS.md and its diff, the projected request, the sessions tree, Compact Session with
progress, preview and append. Screenshots of every step go to ``tests/e2e/vscode/out/``.

Which steps run depends on what the installed server offers (probed from the server itself): a
step whose server method is not built yet is reported as *waiting* with the method's name, not
run. With ``PI_CONTEXT_E2E_STRICT=1`` a waiting step fails the test.

Development knobs: ``PI_CONTEXT_E2E_SERVER_PYTHON`` is the interpreter the extension starts the
server with (default: this one), ``PI_CONTEXT_E2E_EXPECT=step,-step`` runs (or skips) those steps whatever
the probe says (for trying the extension against a server in progress).

Tools come from ``tests/e2e/vscode/install.sh`` (idempotent, cached under ~/.cache/pi-context-e2e).
Without them the test skips, unless ``PI_CONTEXT_REQUIRE_E2E=1`` (CI), where it installs them.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.vscode import sample_workspace
from tests.support.fake_llm_server import FakeLlmServer, ScriptedResponse

pytestmark = pytest.mark.e2e

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
EXTENSION = ROOT / "vscode-extension"
OUT = Path(os.environ.get("PI_CONTEXT_E2E_OUT", HERE / "out"))
REQUIRE = os.environ.get("PI_CONTEXT_REQUIRE_E2E") == "1"
STRICT = os.environ.get("PI_CONTEXT_E2E_STRICT") == "1"
SERVER_PYTHON = os.environ.get("PI_CONTEXT_E2E_SERVER_PYTHON") or sys.executable
FORCED = {step for step in os.environ.get("PI_CONTEXT_E2E_EXPECT", "").split(",") if step}
FORCED_OFF = {step[1:] for step in FORCED if step.startswith("-")}

SUMMARY_MARKER = "E2E-SUMMARY: the release checklist is updated for every area"
SUMMARY = f"## Goal\n{SUMMARY_MARKER}.\n\n## Progress\n- Areas 1-16 checked.\n\n## Next Steps\n- Tag the release."


def _tools() -> dict[str, str]:
    script = HERE / "install.sh"
    found = subprocess.run(["bash", str(script), "--print"], capture_output=True, text=True, check=False)
    if found.returncode != 0:
        if not REQUIRE:
            pytest.skip("VS Code e2e tools missing: run tests/e2e/vscode/install.sh (or set PI_CONTEXT_REQUIRE_E2E=1)")
        installed = subprocess.run(["bash", str(script)], capture_output=True, text=True, check=False)
        assert installed.returncode == 0, installed.stderr[-4000:]
        found = subprocess.run(["bash", str(script), "--print"], capture_output=True, text=True, check=True)
    tools = dict(line.split("=", 1) for line in found.stdout.splitlines() if "=" in line)
    if shutil.which("npm") is None:
        pytest.skip("npm is not on PATH")
    return tools


def _build_vsix() -> Path:
    if not (EXTENSION / "node_modules" / ".bin" / "vsce").exists():
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=EXTENSION, check=True, capture_output=True)
    done = subprocess.run(["npm", "run", "package"], cwd=EXTENSION, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return EXTENSION / "dist" / "pi-context.vsix"


def _server_features() -> dict[str, Any]:
    """What this build of the server offers, asked from the server itself."""
    probe = (
        "import json; from lsp_server.server.app import create_server; "
        "s = create_server(); "
        "print(json.dumps({'features': sorted(s.protocol.fm.features), 'commands': sorted(s.protocol.fm.commands), "
        "'checker': s.checker.name}))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=ROOT)
    data: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return data


def _expectations(server: dict[str, Any]) -> dict[str, bool | str]:
    features = set(server["features"])
    commands = set(server["commands"])

    def needs(*methods: str) -> bool | str:
        missing = [m for m in methods if m not in features and m not in commands]
        return True if not missing else "waits for the server's " + ", ".join(missing)

    diagnostics: bool | str = (
        True if server["checker"] != "none" else "waits for the server's checker (lsp_server.checks)"
    )
    expect: dict[str, bool | str] = {
        "workbench": True,
        "server-running": True,
        "diagnostic": diagnostics,
        "quickfix": needs("textDocument/codeAction") if diagnostics is True else diagnostics,
        "gauge": needs("pi/contextBudget"),
        "sections": needs("pi/systemPrompt"),
        "system-prompt-document": needs("pi/systemPrompt"),
        "section-change": needs("pi/systemPrompt"),
        "projected-request": needs("pi/projectedRequest"),
        "cost-chart": needs("pi/turnLedger"),
        "sessions-tree": needs("pi/sessions", "pi/sessionTree"),
        "compact-cancel": needs("pi.compact"),
        "compact": needs("pi.compact"),
        "branch-summary": needs("pi.branchSummary", "pi/sessionTree"),
    }
    for step in expect:
        if step in FORCED:
            expect[step] = True
        elif step in FORCED_OFF:
            expect[step] = "not run (PI_CONTEXT_E2E_EXPECT)"
    return expect


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _prompt_sections(ws: sample_workspace.SampleWorkspace) -> list[dict[str, Any]]:
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "lsp_server",
            "prompt",
            "--cwd",
            str(ws.folder),
            "--agent-dir",
            str(ws.agent_dir),
            "--json",
            "--trusted",
            "--estimator",
            "weighted",
            "--family",
            "gpt",
        ],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    data = json.loads(out.stdout)
    return [{"name": s["name"], "tokens": s["tokens"], "piTokens": s["piTokens"]} for s in data["sections"]]


def _cost_turns(ws: sample_workspace.SampleWorkspace) -> int:
    """How many turns ``pi-context session --costs --json`` gives the sample session (the chart's bars)."""
    command = [sys.executable, "-m", "lsp_server", "session", str(ws.session), "--costs", "--json"]
    out = subprocess.run(
        [*command, "--agent-dir", str(ws.agent_dir)], capture_output=True, text=True, check=True, cwd=ROOT
    )
    return len(json.loads(out.stdout)["turns"])


def _run_driver(
    tools: dict[str, str], config: dict[str, Any], out_dir: Path, llm: FakeLlmServer
) -> subprocess.CompletedProcess[str]:
    """Runs driver.js; when it signals ``slow-llm``, the fake LLM's next answer hangs (for the cancel step)."""
    driver = subprocess.Popen(
        [tools["NODE24"], str(HERE / "driver.js"), json.dumps(config)],
        stdout=subprocess.PIPE,
        stderr=(out_dir / "driver.log").open("w"),
        text=True,
        env={**os.environ, "NODE_PATH": tools["PLAYWRIGHT_NODE_PATH"]},
    )
    assert driver.stdout is not None
    out: list[str] = []
    for line in driver.stdout:
        if line.strip() == "SIGNAL slow-llm":
            # The next summarizer answer starts streaming, then hangs: only a cancel ends it.
            llm.enqueue(ScriptedResponse(text="partial summary " * 20, stall_after_chunks=2))
            (out_dir / "slow-llm.ready").touch()
        else:
            out.append(line)
    driver.wait(timeout=900)
    return subprocess.CompletedProcess(
        driver.args, driver.returncode, "".join(out), (out_dir / "driver.log").read_text()
    )


class CodeServer:
    """A code-server on 127.0.0.1 with a fresh profile, the .vsix installed, stopped as a process group."""

    def __init__(self, binary: str, state: Path, settings: dict[str, Any], env: dict[str, str]) -> None:
        self.binary = binary
        self.state = state
        self.port = _free_port()
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
            "security.workspace.trust.enabled": False,
            "git.enabled": False,
            "chat.disableAIFeatures": True,
            "workbench.secondarySideBar.defaultVisibility": "hidden",
            **settings,
        }
        (state / "ud" / "User" / "settings.json").write_text(json.dumps(user, indent=2))
        # code-server is a remote window: settings scoped "machine"/"machine-overridable" (interpreter,
        # endpoint URL, agent dir) are read from the machine settings, not the browser user's.
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
        log = (self.state / "code-server.log").open("wb")
        self.process = subprocess.Popen(
            [
                self.binary,
                *self.common,
                "--disable-telemetry",
                "--disable-update-check",
                "--disable-workspace-trust",
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
            assert self.process.poll() is None, (self.state / "code-server.log").read_text()[-3000:]
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


@pytest.fixture()
def out_dir() -> Iterator[Path]:
    shutil.rmtree(OUT, ignore_errors=True)
    OUT.mkdir(parents=True)
    yield OUT


def test_extension_flows_in_real_vscode(tmp_path: Path, out_dir: Path) -> None:
    tools = _tools()
    vsix = _build_vsix()
    expect = _expectations(_server_features())
    ws = sample_workspace.build(tmp_path)
    sections = _prompt_sections(ws) if expect["sections"] is True else []
    cost_turns = _cost_turns(ws) if expect["cost-chart"] is True else 0
    session_before = ws.session.read_bytes()

    # A repository that tries to steer the extension: its own trust, interpreter and summarizer URL
    # (with the user's HOME as the "key"). All of them are user-only settings and must be ignored.
    attacker = FakeLlmServer().start()
    hostile = {
        "piContext.trust": "untrusted",
        "piContext.python": "/nonexistent/python",
        "piContext.summarizer.url": attacker.openai_base_url,
        "piContext.summarizer.apiKeyEnv": "HOME",
    }
    (ws.folder / ".vscode").mkdir()
    (ws.folder / ".vscode" / "settings.json").write_text(json.dumps(hostile, indent=2))

    with attacker, FakeLlmServer(default=ScriptedResponse(text=SUMMARY, chunk_delay_s=0.1)) as llm:
        settings = {
            "piContext.python": SERVER_PYTHON,
            "piContext.agentDir": str(ws.agent_dir),
            "piContext.trust": "trusted",
            "piContext.tokens.estimator": "weighted",
            "piContext.tokens.modelFamily": "gpt",
            "piContext.summarizer.mode": "endpoint",
            "piContext.summarizer.url": llm.openai_base_url,
            "piContext.summarizer.model": "fake-summarizer",
            "piContext.summarizer.wireFormat": "openai",
        }
        env = {**os.environ, "PI_CODING_AGENT_DIR": str(ws.agent_dir)}
        code_server = CodeServer(tools["CODE_SERVER"], tmp_path / "code-server", settings, env)
        code_server.install(vsix)
        try:
            url = code_server.start()
            config = {
                "url": url,
                "folder": str(ws.folder),
                "outDir": str(out_dir),
                "chromium": tools["CHROMIUM"],
                "expect": expect,
                "skillRelPath": str(ws.skill.relative_to(ws.folder)),
                "diagnosticText": "name contains invalid characters",
                "quickFixText": "owercase",
                "window": 200_000,
                "sections": sections,
                "agentsAppend": "\n- Write a changelog entry for every user-visible change.\n",
                "changedSection": "project_context",
                "sessionLabel": sample_workspace.SESSION_NAME,
                "compactFocus": "the release checklist",
                "summaryMarker": SUMMARY_MARKER,
                "branchTarget": "Step 16",
                "costTurns": cost_turns,
            }
            driver = _run_driver(tools, config, out_dir, llm)
        finally:
            code_server.stop()
        shutil.copy(tmp_path / "code-server" / "code-server.log", out_dir / "code-server.log")

    lines = [line for line in driver.stdout.splitlines() if line.startswith("{")]
    assert lines, f"driver printed no result (exit {driver.returncode}):\n{driver.stderr[-4000:]}"
    report = json.loads(lines[-1])
    (out_dir / "report.json").write_text(json.dumps(report, indent=2))
    summary = "\n".join(
        f"{s['status']:>7}  {s['name']}: {s['detail'].splitlines()[0] if s['detail'] else ''}" for s in report["steps"]
    )
    print(f"\nVS Code e2e ({report.get('seconds', 0):.1f} s, screenshots in {out_dir}):\n{summary}")

    failed = [s for s in report["steps"] if s["status"] == "failed"]
    assert not failed and "crashed" not in report, summary + "\n\n" + "\n\n".join(s["detail"] for s in failed)
    if STRICT:
        waiting = [s["name"] for s in report["steps"] if s["status"] == "waiting"]
        assert not waiting, f"steps waiting for server features: {waiting}"

    assert attacker.requests == [], "a workspace's .vscode/settings.json chose where the summary request went"

    appended = ws.session.read_bytes()
    assert appended.startswith(session_before), "the session file was rewritten, not appended to"
    new_entries = [json.loads(line) for line in appended[len(session_before) :].decode().splitlines()]
    # The confirmed compaction, then the confirmed branch summary; the cancelled run appended nothing.
    expected_types = [
        kind for step, kind in (("compact", "compaction"), ("branch-summary", "branch_summary")) if expect[step] is True
    ]
    assert [entry["type"] for entry in new_entries] == expected_types
    for entry in new_entries:
        assert SUMMARY_MARKER in entry["summary"]
