"""The Python distribution: ``python -m build`` makes a wheel and an sdist that pass ``twine check``,
with the metadata PyPI shows (classifiers, URLs, license file) and one version everywhere. Both are
built as the platform packaging builds them: from a fresh copy of the tracked files, so a ``build/``
folder left in the checkout cannot put stale modules into the wheel.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
import tarfile
import zipfile
from email.parser import Parser
from pathlib import Path
from types import ModuleType

import pytest

from lsp_server import __version__

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "vscode-extension" / "scripts" / "package_platform.py"


def _package_platform() -> ModuleType:
    if "package_platform" in sys.modules:
        return sys.modules["package_platform"]
    spec = importlib.util.spec_from_file_location("package_platform", SCRIPT)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _build(source: Path, out: Path, *kinds: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "build", *kinds, "--outdir", str(out), str(source)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]


def test_one_version_for_the_package_the_server_and_the_extension() -> None:
    from importlib.metadata import version

    extension = json.loads((ROOT / "vscode-extension" / "package.json").read_text(encoding="utf-8"))
    assert version("pi-context") == __version__ == extension["version"]


def test_wheel_and_sdist_build_and_pass_twine_check(tmp_path: Path) -> None:
    pytest.importorskip("build", reason="pip install -e '.[package]'")
    if shutil.which("twine", path=str(Path(sys.executable).parent)) is None:
        pytest.skip("twine is missing: pip install -e '.[package]'")
    source = _package_platform().source_copy(tmp_path / "src")
    _build(source, tmp_path, "--sdist", "--wheel")
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
    assert "lsp_server/cost/pi_catalog.json" in names  # prices without an installed Pi (cost/catalog_snapshot.py)
    assert not [n for n in names if n.startswith(("tests/", "vscode-extension/", "bench/"))]
    with tarfile.open(sdist) as tf:
        members = tf.getnames()
    assert any(m.endswith("/LICENSE") for m in members)
    assert any(m.endswith("/lsp_server/__init__.py") for m in members)
    # The optional C modules: their sources in the sdist (a build there compiles them), not in the wheel,
    # which holds them compiled when this machine can build them (.ci/run makes sure it can).
    sources = sorted(m.split("/", 1)[1] for m in members if m.endswith(".c"))
    assert sources == ["lsp_server/base/_native.c", "lsp_server/context/yaml/_native.c", "lsp_server/session/_native.c"]
    assert not [n for n in names if n.endswith(".c")]
    compiled = sorted(n for n in names if n.endswith(".so"))
    if compiled:
        assert compiled == [source[: -len(".c")] + ".abi3.so" for source in sources]
        assert "-cp311-abi3-" in wheel.name


def _git(cwd: Path, *args: str) -> None:
    identity = ["-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(["git", *identity, *args], cwd=cwd, check=True, capture_output=True)


def test_a_stale_build_folder_in_the_checkout_does_not_reach_the_wheel(tmp_path: Path) -> None:
    """setuptools packs whatever its ``build/lib`` holds: a module deleted since the last build in the
    checkout would ship again. The wheel is built from a copy of the tracked files, which has no
    ``build/`` (nor untracked files)."""
    pytest.importorskip("build", reason="pip install -e '.[package]'")
    checkout = tmp_path / "checkout"
    (checkout / "lsp_server").mkdir(parents=True)
    (checkout / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["setuptools>=77"]\nbuild-backend = "setuptools.build_meta"\n'
        '[project]\nname = "stale-probe"\nversion = "1.0"\n'
        '[tool.setuptools.packages.find]\ninclude = ["lsp_server*"]\n'
    )
    (checkout / "lsp_server" / "__init__.py").write_text("")
    _git(checkout, "init", "-q")
    _git(checkout, "add", ".")
    _git(checkout, "commit", "-qm", "probe")
    # What an earlier build left behind, and a file nobody added to git.
    (checkout / "build" / "lib" / "lsp_server").mkdir(parents=True)
    (checkout / "build" / "lib" / "lsp_server" / "deleted_long_ago.py").write_text("STALE = True\n")
    (checkout / "lsp_server" / "scratch.py").write_text("UNTRACKED = True\n")

    source = _package_platform().source_copy(tmp_path / "copy", root=checkout)
    assert sorted(str(p.relative_to(source)) for p in source.rglob("*") if p.is_file()) == [
        "lsp_server/__init__.py",
        "pyproject.toml",
    ]
    _build(source, tmp_path / "out", "--wheel")
    with zipfile.ZipFile(next((tmp_path / "out").glob("stale_probe-*.whl"))) as zf:
        packaged = sorted(n for n in zf.namelist() if n.startswith("lsp_server/"))
    assert packaged == ["lsp_server/__init__.py"]
