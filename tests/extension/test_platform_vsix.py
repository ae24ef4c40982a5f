"""The platform .vsix carries the server built from this checkout, and only what belongs in it.

The .vsix is built with ``vscode-extension/scripts/package_platform.py`` (once per test session), or
taken from ``PI_CONTEXT_PLATFORM_VSIX`` (``.ci/run`` builds it first). The checks open the archive:
the bundled pi-context wheel has this checkout's version and exactly this checkout's package files,
the manifest's hashes are the wheel's, every dependency has a wheel for every Python the manifest
names, and the wheels install offline into a fresh environment whose ``pi-context`` runs.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from email.parser import Parser
from pathlib import Path
from typing import Any

import pytest

from lsp_server import __version__

ROOT = Path(__file__).resolve().parents[2]
EXTENSION = ROOT / "vscode-extension"
SCRIPT = EXTENSION / "scripts" / "package_platform.py"


@pytest.fixture(scope="module")
def vsix(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    given = os.environ.get("PI_CONTEXT_PLATFORM_VSIX")
    if given:
        yield Path(given)
        return
    if shutil.which("npm") is None:
        pytest.skip("npm is not on PATH (vsce runs with it)")
    try:
        import build  # type: ignore[import-not-found,unused-ignore]  # noqa: F401
    except ImportError:
        pytest.skip("the build package is missing: pip install -e '.[package]'")
    out = tmp_path_factory.mktemp("vsix") / "pi-context-platform.vsix"
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--out", str(out)], capture_output=True, text=True, cwd=ROOT, check=False
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    yield out


def _manifest(zf: zipfile.ZipFile) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(zf.read("extension/bundled/manifest.json"))
    return data


def _package_files() -> dict[str, bytes]:
    """This checkout's package files, as the wheel must hold them (tracked by git, no caches)."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--", "lsp_server"], capture_output=True, cwd=ROOT, check=True
    ).stdout.split(b"\0")
    return {name.decode(): (ROOT / name.decode()).read_bytes() for name in listed if name}


def test_the_bundled_wheel_is_this_checkout(vsix: Path) -> None:
    with zipfile.ZipFile(vsix) as zf:
        manifest = _manifest(zf)
        wheel_bytes = zf.read(f"extension/bundled/wheels/{manifest['wheel']}")
        extension = json.loads(zf.read("extension/package.json"))
    assert manifest["version"] == __version__ == extension["version"]
    assert manifest["wheelSha256"] == hashlib.sha256(wheel_bytes).hexdigest()
    wheel = Path(vsix.parent / manifest["wheel"])
    wheel.write_bytes(wheel_bytes)
    with zipfile.ZipFile(wheel) as wz:
        meta_name = next(n for n in wz.namelist() if n.endswith(".dist-info/METADATA"))
        assert Parser().parsestr(wz.read(meta_name).decode())["Version"] == __version__
        packaged = {n: wz.read(n) for n in wz.namelist() if n.startswith("lsp_server/") and not n.endswith("/")}
    checkout = _package_files()
    assert sorted(packaged) == sorted(checkout), "the wheel's package files are not the checkout's"
    changed = [name for name in checkout if packaged[name] != checkout[name]]
    assert not changed, f"built from another state of these files: {changed[:5]}"
    # The manifest's hash of the package files is the one recomputed from the checkout.
    digest = hashlib.sha256()
    for name in sorted(checkout):
        digest.update(name.encode() + b"\0" + hashlib.sha256(checkout[name]).digest())
    assert manifest["packageHash"] == digest.hexdigest()
    head = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, cwd=ROOT, check=True)
    assert str(manifest["commit"]).startswith(head.stdout.strip()), "built from another commit"


def test_every_dependency_has_a_wheel_for_every_python_of_the_bundle(vsix: Path) -> None:
    with zipfile.ZipFile(vsix) as zf:
        manifest = _manifest(zf)
        names = [n.rsplit("/", 1)[1] for n in zf.namelist() if n.startswith("extension/bundled/wheels/")]
    assert sorted(names) == sorted(manifest["wheels"])
    assert manifest["pipWheel"] in names
    for version in manifest["pythonVersions"]:
        tag = "cp" + version.replace(".", "")
        binary = [n for n in names if n.startswith("pydantic_core-")]
        assert any(f"-{tag}-{tag}-" in n for n in binary), f"no pydantic-core wheel for Python {version}: {binary}"
    for name in names:
        assert name.endswith("-none-any.whl") or ("x86_64" in name and manifest["target"] == "linux-x64"), name


def _allowlist() -> list[str]:
    """The `!pattern` lines of .vscodeignore (everything else is ignored by its `**`)."""
    lines = (EXTENSION / ".vscodeignore").read_text(encoding="utf-8").splitlines()
    return [line[1:].strip() for line in lines if line.startswith("!")]


def _allowed(name: str, patterns: list[str]) -> bool:
    # vsce renames the readme, changelog and license inside the package.
    renamed = {"readme.md": "README.md", "changelog.md": "CHANGELOG.md", "LICENSE.txt": "LICENSE"}
    name = renamed.get(name, name)
    return any(name.startswith(p[:-2]) if p.endswith("/**") else name == p for p in patterns)


def test_the_package_holds_only_what_belongs_in_it(vsix: Path) -> None:
    with zipfile.ZipFile(vsix) as zf:
        files = [n.removeprefix("extension/") for n in zf.namelist() if n.startswith("extension/")]
    patterns = _allowlist()
    assert "**" in (EXTENSION / ".vscodeignore").read_text(encoding="utf-8").splitlines(), "not an allowlist"
    stray = [f for f in files if not _allowed(f, patterns)]
    assert not stray, f"files .vscodeignore does not let in: {stray}"
    source_dirs = ("src/", "test/", "scripts/", "node_modules/", "out/")
    sources = [f for f in files if f.startswith(source_dirs) or f.endswith((".ts", ".map"))]
    assert not sources, sources
    for needed in ("dist/extension.js", "readme.md", "changelog.md", "LICENSE.txt", "media/pi-context.png"):
        assert needed in files


def test_the_bundled_wheels_install_offline_and_the_cli_runs(vsix: Path, tmp_path: Path) -> None:
    """What the extension does on its first start, and what a CLI user gets from the wheel."""
    with zipfile.ZipFile(vsix) as zf:
        manifest = _manifest(zf)
        zf.extractall(tmp_path / "x", [n for n in zf.namelist() if n.startswith("extension/bundled/")])
    wheels = tmp_path / "x" / "extension" / "bundled" / "wheels"
    venv = tmp_path / "env"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_") and k != "PYTHONPATH"}
    env["PIP_CONFIG_FILE"] = os.devnull
    pip = wheels / manifest["pipWheel"] / "pip"
    install = [str(venv / "bin" / "python"), str(pip), "install", "--no-index", "--find-links", str(wheels)]
    done = subprocess.run(
        [*install, "--no-cache-dir", f"pi-context=={manifest['version']}"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    version = subprocess.run(
        [str(venv / "bin" / "pi-context"), "--version"], capture_output=True, text=True, env=env, cwd=tmp_path
    )
    assert version.stdout.strip() == f"pi-context {__version__}", version.stderr
