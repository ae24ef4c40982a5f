"""The Python distribution: ``python -m build`` makes a wheel and an sdist that pass ``twine check``,
with the metadata PyPI shows (classifiers, URLs, license file) and one version everywhere.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tarfile
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest

from lsp_server import __version__

ROOT = Path(__file__).resolve().parents[1]


def test_one_version_for_the_package_the_server_and_the_extension() -> None:
    from importlib.metadata import version

    extension = json.loads((ROOT / "vscode-extension" / "package.json").read_text(encoding="utf-8"))
    assert version("pi-context") == __version__ == extension["version"]


def test_wheel_and_sdist_build_and_pass_twine_check(tmp_path: Path) -> None:
    pytest.importorskip("build", reason="pip install -e '.[package]'")
    if shutil.which("twine", path=str(Path(sys.executable).parent)) is None:
        pytest.skip("twine is missing: pip install -e '.[package]'")
    done = subprocess.run(
        [sys.executable, "-m", "build", "--sdist", "--wheel", "--outdir", str(tmp_path), str(ROOT)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    wheel = next(tmp_path.glob("pi_context-*.whl"))
    sdist = next(tmp_path.glob("pi_context-*.tar.gz"))
    twine = Path(sys.executable).parent / "twine"
    checked = subprocess.run([str(twine), "check", "--strict", str(wheel), str(sdist)], capture_output=True, text=True)
    assert checked.returncode == 0, checked.stdout + checked.stderr

    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
        meta = Parser().parsestr(zf.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode())
    assert meta["Version"] == __version__
    assert meta["License-Expression"] == "MIT"
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    classifiers = meta.get_all("Classifier") or []
    assert "Programming Language :: Python :: 3.11" in classifiers
    assert any(url.startswith("Repository, https://") for url in meta.get_all("Project-URL") or [])
    assert "lsp_server/py.typed" in names
    assert not [n for n in names if n.startswith(("tests/", "vscode-extension/", "bench/"))]
    with tarfile.open(sdist) as tf:
        members = tf.getnames()
    assert any(m.endswith("/LICENSE") for m in members)
    assert any(m.endswith("/lsp_server/__init__.py") for m in members)
