"""The platform .vsix in real VS Code with the network cut and no pi-context on the machine.

The test builds ``pi-context-<target>.vsix`` with ``vscode-extension/scripts/package_platform.py``
(or takes ``PI_CONTEXT_PLATFORM_VSIX``), makes a fresh Python without pi-context (a venv of the
system's python3.11, first on a ``PATH`` that holds no other pi-context), and runs
``offline_run.py`` inside an empty network namespace (``unshare --net``: loopback only). There a
fresh code-server installs the .vsix and opens the sample workspace twice: the first start must
create the server's environment from the bundled wheels (no index can be reached) and show
diagnostics, the budget and the sessions; the second start must reuse it. The extension's log gives
the figures: environment creation and server start, first and second start.

Needs root (or user namespaces) for ``unshare --net`` and the VS Code e2e tools; skips with the reason
otherwise, unless ``PI_CONTEXT_REQUIRE_E2E=1``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.vscode import sample_workspace
from tests.e2e.vscode.harness import EXTENSION, OUT, REQUIRE, ROOT
from tests.e2e.vscode.harness import tools as _tools

pytestmark = pytest.mark.e2e


def _can_unshare() -> str | None:
    if shutil.which("unshare") is None or shutil.which("ip") is None:
        return "unshare or ip is missing"
    done = subprocess.run(["unshare", "--net", "--", "true"], capture_output=True, text=True, check=False)
    return None if done.returncode == 0 else f"unshare --net is not allowed here: {done.stderr.strip()}"


def build_platform_vsix(out_dir: Path) -> tuple[Path, dict[str, object]]:
    """The platform .vsix (built now unless PI_CONTEXT_PLATFORM_VSIX names one) and its summary."""
    given = os.environ.get("PI_CONTEXT_PLATFORM_VSIX")
    if given:
        summary = json.loads(Path(given + ".json").read_text()) if Path(given + ".json").exists() else {}
        return Path(given), summary
    out = out_dir / "pi-context-platform.vsix"
    done = subprocess.run(
        [sys.executable, str(EXTENSION / "scripts" / "package_platform.py"), "--out", str(out)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    summary: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return out, summary


def _fresh_python(tmp: Path) -> Path:
    """A Python 3.11 without pi-context: a new venv of the system interpreter, its bin first on PATH."""
    base = shutil.which("python3.11", path="/usr/bin:/bin") or shutil.which("python3", path="/usr/bin:/bin")
    if base is None:
        pytest.skip("no system python3.11/python3 in /usr/bin")
    venv = tmp / "fresh-python"
    subprocess.run([base, "-m", "venv", "--without-pip", str(venv)], check=True)
    return venv / "bin"


def test_platform_vsix_works_offline_without_pi_context(tmp_path: Path) -> None:
    reason = _can_unshare()
    if reason:
        if REQUIRE:
            pytest.fail(reason)
        pytest.skip(reason)
    tools = _tools()
    out_dir = OUT.parent / "out-offline"
    shutil.rmtree(out_dir, ignore_errors=True)
    out_dir.mkdir(parents=True)
    vsix, summary = build_platform_vsix(tmp_path)

    fresh = _fresh_python(tmp_path)
    node_bin = str(Path(tools["NODE24"]).parent)
    path = os.pathsep.join([str(fresh), node_bin, "/usr/local/sbin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"])
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "PYTHON", "VIRTUAL_ENV", "PI_CONTEXT_"))}
    env |= {"PATH": path, "HOME": str(tmp_path / "home")}
    (tmp_path / "home").mkdir()
    # No pi-context anywhere this code-server can look: every Python on its PATH fails to import it.
    for name in ("python3", "python3.11", "python3.12", "python3.13", "python3.14", "python"):
        python = shutil.which(name, path=path)
        if python:
            probe = subprocess.run([python, "-c", "import lsp_server"], capture_output=True, env=env, cwd=tmp_path)
            assert probe.returncode != 0, f"{python} can import lsp_server: the test would prove nothing"

    ws = sample_workspace.build(tmp_path)
    env["PI_CODING_AGENT_DIR"] = str(ws.agent_dir)
    settings = {
        "piContext.agentDir": str(ws.agent_dir),
        "piContext.trust": "trusted",
        "piContext.summarizer.mode": "offline",
    }
    config = {
        "tools": tools,
        "state": str(tmp_path / "code-server"),
        "settings": settings,
        "env": env,
        "vsix": str(vsix),
        "folder": str(ws.folder),
        "outDir": str(out_dir),
        "skillRelPath": str(ws.skill.relative_to(ws.folder)),
        "sessionLabel": sample_workspace.SESSION_NAME,
    }
    config_file = tmp_path / "offline.json"
    config_file.write_text(json.dumps(config))
    done = subprocess.run(
        ["unshare", "--net", "--", sys.executable, "-m", "tests.e2e.vscode.offline_run", str(config_file)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=1800,
        check=False,
    )
    (out_dir / "offline_run.log").write_text(done.stderr)
    lines = [ln for ln in done.stdout.splitlines() if ln.startswith("{")]
    assert done.returncode == 0 and lines, done.stdout[-3000:] + done.stderr[-4000:]
    result = json.loads(lines[-1])
    (out_dir / "report.json").write_text(json.dumps({"vsix": summary, **result}, indent=2))

    first, second = result["starts"]
    report = []
    for n, start in enumerate((first, second), start=1):
        for step in start["steps"]:
            first_line = step["detail"].splitlines()[0] if step["detail"] else ""
            report.append(f"start {n}: {step['status']:>7}  {step['name']}: {first_line}")
        report += [f"start {n}: log: {line}" for line in start["log"]]
    text = "\n".join(report)
    size = vsix.stat().st_size
    print(f"\nplatform .vsix {size / 1e6:.1f} MB; {result['network']}\n{text}")
    for start in (first, second):
        failed = [s for s in start["steps"] if s["status"] == "failed"]
        assert not failed and "crashed" not in start, text + "\n\n" + "\n\n".join(s["detail"] for s in failed)
        assert {s["name"] for s in start["steps"] if s["status"] == "passed"} >= {"server-running", "diagnostic"}, text
    assert any(re.search(r"bundled server: environment created in [\d.]+ s", line) for line in first["log"]), text
    # The first start takes seconds: the view says what it is doing meanwhile instead of staying blank. The
    # driver sees that only when it reaches the view before the start is over (on a quiet machine the
    # environment is made in ~3 s, sometimes before the view's frame is found); then the extension's log
    # must show the same first-start work. The messages themselves are unit-tested (bundle.test.ts).
    running = next(s for s in first["steps"] if s["name"] == "server-running")
    if "while starting the view said:" not in running["detail"]:
        assert any("bundled server: creating its environment" in line for line in first["log"]), text
    assert any("bundled server: reusing its environment" in line for line in second["log"]), text
    assert not any("environment created" in line for line in second["log"]), text
    assert len(result["environments"]) == 1, result["environments"]
