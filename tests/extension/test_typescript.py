"""The VS Code extension's own checks, run from pytest so that ``python -m pytest`` covers them:
the TypeScript type check (strict, extension host and webview), ESLint (``eslint.config.mjs``:
typescript-eslint's type-checked rules) and the unit tests (``node --test`` on the view models, the chat
controller, the typed client, settings mapping, CSP and message validation, Python checks).

Installs the extension's npm dependencies first when ``vscode-extension/node_modules`` lacks a tool.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

EXTENSION = Path(__file__).resolve().parents[2] / "vscode-extension"


@pytest.fixture(scope="module")
def npm() -> str:
    found = shutil.which("npm")
    if found is None:
        pytest.skip("npm is not on PATH")
    if not all((EXTENSION / "node_modules" / ".bin" / tool).exists() for tool in ("tsc", "eslint")):
        done = subprocess.run([found, "ci", "--no-audit", "--no-fund"], cwd=EXTENSION, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr[-3000:]
    return found


def _run(npm: str, script: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([npm, "run", script], cwd=EXTENSION, capture_output=True, text=True, timeout=600)


def test_the_extension_type_checks(npm: str) -> None:
    done = _run(npm, "typecheck")
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]


def test_the_extension_lints_clean(npm: str) -> None:
    done = _run(npm, "lint")
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]


def test_the_extension_unit_tests_pass(npm: str) -> None:
    done = _run(npm, "test")
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
    assert "# fail 0" in done.stdout
