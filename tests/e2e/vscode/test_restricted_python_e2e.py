"""Restricted Mode in real VS Code: the Python extension's interpreter, when it is the repository's own, never runs.

The platform .vsix (the bundled server, which makes its environment with the Python extension's interpreter when
there is one) is installed in code-server beside a stand-in for the Python extension (`ms-python.python`, built
here: its API reports the workspace's ``.venv/bin/python``, as the real one does for a repository with a virtual
environment or a ``python.defaultInterpreterPath`` in its settings). That ``.venv/bin/python`` is a script that
notes each run, then runs the real Python. The folder opens untrusted: the bundled server must start (from a
Python on PATH) without the Python extension being asked and without the repository's python running, even for the
version probe (issue 18 item 5). Then, as a control that the set-up can show the leak at all, the folder is trusted
and *Reinstall the Bundled Server* makes the environment again: now the same interpreter is asked for and runs.

Screenshots: ``tests/e2e/vscode/out/restricted-python/``. Runs alone:
``python -m pytest -m e2e tests/e2e/vscode/test_restricted_python_e2e.py``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.vscode import harness, sample_workspace
from tests.e2e.vscode.harness import EXTENSION, CodeServer
from tests.e2e.vscode.test_vscode_offline import build_platform_vsix

pytestmark = pytest.mark.e2e

OUT = "restricted-python"


def stand_in_python_extension(folder: Path, interpreter: Path, marker: Path) -> Path:
    """A .vsix named ``ms-python.python`` whose ``environments`` API reports ``interpreter`` for every resource,
    noting in ``marker`` when it activates and each time it is asked."""
    folder.mkdir(parents=True)
    manifest = {
        "name": "python",
        "publisher": "ms-python",
        "displayName": "Python (stand-in for pi-context's tests)",
        "description": "Reports a fixed interpreter through the Python extension's environments API.",
        "version": "9999.0.0",
        "license": "MIT",
        "engines": {"vscode": "^1.80.0"},
        "main": "./extension.js",
        "activationEvents": ["onStartupFinished"],
        # As the real Python extension declares: it runs, limited, in Restricted Mode (else VS Code disables it there).
        "capabilities": {"untrustedWorkspaces": {"supported": "limited", "description": "a stand-in"}},
    }
    (folder / "package.json").write_text(json.dumps(manifest, indent=2), encoding="utf-8")
    note = f"(line) => require('fs').appendFileSync({json.dumps(str(marker))}, line + '\\n')"
    (folder / "extension.js").write_text(
        "'use strict';\n"
        "const vscode = require('vscode');\n"
        f"const note = {note};\n"
        f"const PYTHON = {json.dumps(str(interpreter))};\n"
        "exports.activate = () => {\n"
        "  note('activated');\n"
        "  const changed = new vscode.EventEmitter();\n"
        "  return { environments: {\n"
        "    getActiveEnvironmentPath() { note('asked'); return { id: PYTHON, path: PYTHON }; },\n"
        "    async resolveEnvironment() { return { executable: { uri: vscode.Uri.file(PYTHON) } }; },\n"
        "    onDidChangeActiveEnvironmentPath: changed.event,\n"
        "  } };\n"
        "};\n",
        encoding="utf-8",
    )
    vsce = EXTENSION / "node_modules" / ".bin" / "vsce"
    out = folder.parent / "ms-python.python.vsix"
    done = subprocess.run(
        [str(vsce), "package", "--allow-missing-repository", "--skip-license", "--no-dependencies", "-o", str(out)],
        cwd=folder,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return out


def repository_python(folder: Path, marker: Path) -> Path:
    """The repository's ``.venv/bin/python``: notes its run (with its arguments), then is the real Python."""
    real = os.path.realpath(sys.executable)
    script = folder / ".venv" / "bin" / "python"
    script.parent.mkdir(parents=True)
    script.write_text(f'#!/bin/sh\necho "ran $*" >> "{marker}"\nexec "{real}" "$@"\n', encoding="utf-8")
    script.chmod(0o755)
    return script


def read_marks(marker: Path) -> dict[str, Any]:
    lines = marker.read_text(encoding="utf-8").splitlines() if marker.exists() else []
    return {
        "activated": "activated" in lines,
        "asked": lines.count("asked"),
        "ran": sum(line.startswith("ran") for line in lines),
        "lines": lines[-6:],
    }


def test_untrusted_workspace_never_runs_the_python_extensions_interpreter(tmp_path: Path) -> None:
    tools = harness.tools()
    out_dir = harness.fresh_out(harness.OUT / OUT)
    vsix, _ = build_platform_vsix(tmp_path)
    ws = sample_workspace.build(tmp_path)
    marker = tmp_path / "marks.txt"
    interpreter = repository_python(ws.folder, marker)
    python_ext = stand_in_python_extension(tmp_path / "stand-in-python", interpreter, marker)

    # No piContext.server.python: the bundled server is what runs, and it picks its Python itself.
    settings = {"piContext.agentDir": str(ws.agent_dir), "piContext.summarizer.mode": "offline"}
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "PYTHON", "VIRTUAL_ENV"))}
    env["PI_CODING_AGENT_DIR"] = str(ws.agent_dir)
    code_server = CodeServer(tools["CODE_SERVER"], tmp_path / "code-server", settings, env, trust=True)
    code_server.install(vsix)
    code_server.install(python_ext)
    expect = harness.apply_forced({"untrusted-start": True, "trusted-control": True})
    try:
        url = code_server.start()
        config = harness.driver_config(
            url, ws.folder, out_dir, tools, expect, skillRelPath=str(ws.skill.relative_to(ws.folder)), waitMs=240_000
        )
        handlers: dict[str, harness.Handler] = {"markers": lambda _: read_marks(marker)}
        driver = harness.run_driver(tools, "restricted_python_driver.js", config, out_dir, handlers)
    finally:
        code_server.stop()
    shutil.copy(code_server.log, out_dir / "code-server.log")
    harness.read_report(driver, out_dir, "VS Code Restricted Mode: the Python extension's interpreter")
