"""The platform .vsix carries the server built from this checkout, and only what belongs in it.

The .vsix is built with ``vscode-extension/scripts/package_platform.py`` (once per test session), or
taken from ``PI_CONTEXT_PLATFORM_VSIX`` (``.ci/run`` builds it first). The checks open the archive:
the bundled pi-context wheel has this checkout's version and exactly this checkout's package files,
the manifest's hashes are the wheel's, every dependency has a wheel for every Python the manifest
names and the target's platform (whatever machine built it), and the wheels install offline into a
fresh environment whose ``pi-context`` runs. The universal packaging refuses a stale ``bundled/``.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from email.parser import Parser
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from lsp_server import __version__

ROOT = Path(__file__).resolve().parents[2]
EXTENSION = ROOT / "vscode-extension"
SCRIPT = EXTENSION / "scripts" / "package_platform.py"


def _script() -> ModuleType:
    """package_platform.py as a module: its TARGETS say which platform tags each target accepts."""
    if "package_platform" in sys.modules:
        return sys.modules["package_platform"]
    spec = importlib.util.spec_from_file_location("package_platform", SCRIPT)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


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
    """This checkout's package files, as the wheel must hold them (tracked by git, no caches; the C
    sources are compiled, not packed)."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--", "lsp_server"], capture_output=True, cwd=ROOT, check=True
    ).stdout.split(b"\0")
    return {name.decode(): (ROOT / name.decode()).read_bytes() for name in listed if name and not name.endswith(b".c")}


def _c_sources() -> list[str]:
    listed = subprocess.run(["git", "ls-files", "--", "lsp_server/*.c"], capture_output=True, cwd=ROOT, check=True)
    return listed.stdout.decode().split()


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
    compiled = sorted(name for name in packaged if name.endswith((".so", ".pyd")))
    if manifest["target"] == _script().this_machine():
        # built here: every C module compiled in (one abi3 module for every Python), tagged for the target
        assert compiled == sorted(source[: -len(".c")] + ".abi3.so" for source in _c_sources())
        assert "-cp311-abi3-" in manifest["wheel"]
    else:
        assert compiled == []  # compiled here, they would not load there
    for name in compiled:
        del packaged[name]
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
    target = _script().TARGETS[manifest["target"]]
    assert manifest["pythonVersions"] == list(target.python_versions)
    for version in manifest["pythonVersions"]:
        tag = "cp" + version.replace(".", "")
        binary = [n for n in names if n.startswith("pydantic_core-")]
        assert any(f"-{tag}-{tag}-" in n for n in binary), f"no pydantic-core wheel for Python {version}: {binary}"
    # Every wheel installs on the target with one of its Pythons: the tags pip would accept there
    # (for macOS, pip widens the target's tag to older versions and universal2, as packaging does).
    from packaging.tags import Tag, compatible_tags, cpython_tags, mac_platforms
    from packaging.utils import parse_wheel_filename

    platforms: list[str] = []
    for platform_tag in target.platforms:
        if platform_tag.startswith("macosx_"):
            _, major, minor, arch = platform_tag.split("_", 3)
            platforms += mac_platforms((int(major), int(minor)), arch)
        else:
            platforms.append(platform_tag)
    accepted: set[Tag] = set()
    for version in manifest["pythonVersions"]:
        v = tuple(int(x) for x in version.split("."))
        accepted |= set(cpython_tags(v, platforms=platforms)) | set(compatible_tags(v, platforms=platforms))
    for name in names:
        wheel_tags = parse_wheel_filename(name)[3]
        assert wheel_tags & accepted, f"{name} does not install on {manifest['target']}"


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
    here = _script().this_machine()
    if manifest["target"] != here or os.name == "nt":
        pytest.skip(f"the .vsix is for {manifest['target']}; this machine is {here} (the install runs bin/python)")
    with zipfile.ZipFile(vsix) as zf:
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
    # The C modules compiled into the wheel load there, and the readers use them.
    uses_c = (
        "from lsp_server.context.yaml.libyaml import native_composer\n"
        "from lsp_server.session import jsonl\n"
        "print(native_composer() is not None, jsonl._slow_offsets is not jsonl._python_slow_offsets)\n"
    )
    loaded = subprocess.run(
        [str(venv / "bin" / "python"), "-c", uses_c], capture_output=True, text=True, env=env, cwd=tmp_path
    )
    assert loaded.stdout.split() == ["True", "True"], loaded.stderr


def _offline() -> list[str]:
    """``unshare --net --``, an empty network namespace, where this machine allows it; else nothing
    (the installers are then told to stay offline by their flags alone)."""
    if shutil.which("unshare") is None:
        return []
    done = subprocess.run(["unshare", "--net", "--", "true"], capture_output=True, check=False)
    return ["unshare", "--net", "--"] if done.returncode == 0 else []


SMALL_SKILL = "---\nname: Demo_Skill\ndescription: Shows a finding.\n---\nThe body.\n"


@pytest.mark.parametrize("installer", ["uv", "pipx"])
def test_the_cli_installs_from_the_built_wheel_as_a_tool_offline(vsix: Path, tmp_path: Path, installer: str) -> None:
    """The README's ``uv tool install`` / ``pipx install`` of the built wheel: the wheel the .vsix carries
    (this checkout's), its dependencies from the same folder, no index, no network; then the CLI runs
    from the tool's own environment, found on nothing but the tool's bin folder."""
    tool = shutil.which(installer, path=str(Path(sys.executable).parent)) or shutil.which(installer)
    if tool is None:
        pytest.skip(f"{installer} is missing: pip install -e '.[dev]'")
    with zipfile.ZipFile(vsix) as zf:
        manifest = _manifest(zf)
        if manifest["target"] != _script().this_machine() or os.name == "nt":
            pytest.skip(f"the .vsix is for {manifest['target']}, not this machine")
        zf.extractall(tmp_path / "x", [n for n in zf.namelist() if n.startswith("extension/bundled/wheels/")])
    wheels = tmp_path / "x" / "extension" / "bundled" / "wheels"
    wheel = wheels / manifest["wheel"]
    bin_dir = tmp_path / "bin"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "UV_", "PIPX_", "PYTHON", "VIRTUAL_ENV"))}
    env["PIP_CONFIG_FILE"] = os.devnull
    if installer == "uv":
        env |= {
            "UV_TOOL_DIR": str(tmp_path / "tools"),
            "UV_TOOL_BIN_DIR": str(bin_dir),
            "UV_CACHE_DIR": str(tmp_path / "cache"),
            "UV_PYTHON_DOWNLOADS": "never",
            "UV_NO_CONFIG": "1",
        }
        command = [tool, "tool", "install", "--offline", "--no-index", "--find-links", str(wheels),
                   "--python", sys.executable, str(wheel)]  # fmt: skip
    else:
        env |= {"PIPX_HOME": str(tmp_path / "pipx"), "PIPX_BIN_DIR": str(bin_dir)}
        env["PIPX_MAN_DIR"] = str(tmp_path / "man")
        command = [tool, "install", "--python", sys.executable, "--pip-args", f"--no-index --find-links {wheels}",
                   str(wheel)]  # fmt: skip
    done = subprocess.run([*_offline(), *command], capture_output=True, text=True, env=env, check=False)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]

    cli = bin_dir / "pi-context"
    assert cli.exists(), sorted(p.name for p in bin_dir.iterdir())
    version = subprocess.run([str(cli), "--version"], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert version.stdout.strip() == f"pi-context {__version__}", version.stderr
    workspace = tmp_path / "ws"
    (workspace / "skills" / "demo").mkdir(parents=True)
    (workspace / "skills" / "demo" / "SKILL.md").write_text(SMALL_SKILL)
    (workspace / "AGENTS.md").write_text("# Project\n\nRun the tests before a commit.\n")
    check = subprocess.run([str(cli), "check", "."], capture_output=True, text=True, env=env, cwd=workspace)
    assert check.returncode == 0, check.stdout + check.stderr
    assert "skills/demo/SKILL.md:2:7: warning skill/name-invalid-chars" in check.stdout, check.stdout
    assert "1 SKILL.md file, 1 context file checked" in check.stderr + check.stdout, check.stdout + check.stderr


def test_the_universal_packaging_refuses_a_stale_bundle(tmp_path: Path) -> None:
    """A platform build killed during vsce leaves ``bundled/`` behind, and .vscodeignore lets it in:
    ``npm run package`` checks first and refuses, so the universal .vsix never carries a stale server."""
    if shutil.which("node") is None:
        pytest.skip("node is not on PATH")
    scripts = json.loads((EXTENSION / "package.json").read_text(encoding="utf-8"))["scripts"]
    assert scripts["package"].startswith("node scripts/no_stale_bundle.mjs && vsce package"), scripts["package"]
    guard = EXTENSION / "scripts" / "no_stale_bundle.mjs"
    clean = subprocess.run(["node", str(guard), str(tmp_path)], capture_output=True, text=True, check=False)
    assert clean.returncode == 0, clean.stderr
    (tmp_path / "bundled" / "wheels").mkdir(parents=True)
    (tmp_path / "bundled" / "manifest.json").write_text("{}")
    stale = subprocess.run(["node", str(guard), str(tmp_path)], capture_output=True, text=True, check=False)
    assert stale.returncode == 1
    assert "bundled" in stale.stderr and "must not carry it" in stale.stderr


def test_every_target_accepts_only_pythons_the_extension_accepts() -> None:
    script = _script()
    bundle_ts = (EXTENSION / "src" / "bundle.ts").read_text(encoding="utf-8")
    for target in script.TARGETS.values():
        assert set(target.python_versions) <= set(script.PYTHON_VERSIONS), target
        assert target.platforms, target
    # The extension looks for every version the bundles carry by name (python3.14, ...).
    for version in script.PYTHON_VERSIONS:
        assert f"'python{version}'" in bundle_ts, version


def test_the_marketplace_readme_shows_the_repository_images_and_real_settings() -> None:
    """The README is the marketplace page: its screenshots are absolute URLs (the marketplace shows no
    relative image) of files in docs/images/, and every setting it names is one the extension has."""
    readme = (EXTENSION / "README.md").read_text(encoding="utf-8")
    images = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", readme)
    assert images
    prefix = "https://raw.githubusercontent.com/pi-context/pi-context/main/"
    for url in images:
        assert url.startswith(prefix), url
        assert (ROOT / url.removeprefix(prefix)).is_file(), url
    assert any(url.endswith("/extension-chat.png") for url in images), "the Chat view, the first view, is not shown"
    properties = json.loads((EXTENSION / "package.json").read_text(encoding="utf-8"))["contributes"]["configuration"]
    named = set(re.findall(r"`(piContext\.[A-Za-z.]+)`", readme))
    assert named and named <= set(properties["properties"]), named - set(properties["properties"])
