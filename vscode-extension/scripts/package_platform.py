#!/usr/bin/env python3
"""Build a platform-specific .vsix that carries the pi-context server.

One download that works: the extension installs its own server, offline, from wheels it carries.
This script

1. builds the pi-context wheel from this checkout (``python -m build --wheel`` on a fresh copy of the
   tracked files: a ``build/`` folder left in the checkout by another build cannot add stale files).
   For this machine's target the optional C modules are compiled in (one abi3 wheel for every
   Python, libyaml linked in, retagged manylinux when their glibc needs allow); for another target
   they are left out and the server runs the pure-Python paths,
2. downloads the wheels of its runtime dependencies for the target platform and every Python the
   extension accepts (``pip download --only-binary=:all:``: pure-Python wheels where they exist,
   the platform's binary wheel otherwise), plus a pip wheel that installs them without network,
3. writes them and ``manifest.json`` (version, wheel hash, hash of the package files, commit) into
   ``vscode-extension/bundled/``,
4. runs ``vsce package --target <target>`` and removes ``bundled/`` again (a plain ``npm run
   package`` builds the universal .vsix without a server, and refuses to run while a ``bundled/``
   is there: one left by a run that was killed during vsce would otherwise ride along).

    python vscode-extension/scripts/package_platform.py                 # this machine's target
    python vscode-extension/scripts/package_platform.py --target linux-arm64 --out /tmp/x.vsix

Dependency wheels are cached (``--cache``, default ``~/.cache/pi-context-package``), keyed by the
requirements, Python versions and platform tags: a second run with the same ones does not ask pip.
The last line printed is a JSON summary (path, size, versions, hashes).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from dataclasses import dataclass
from email.parser import Parser
from pathlib import Path

EXTENSION = Path(__file__).resolve().parents[1]
ROOT = EXTENSION.parent
BUNDLED = EXTENSION / "bundled"
PACKAGE_DIR = "lsp_server/"


# The Pythons the private environment may be created with (requires-python >= 3.11); the binary
# dependencies (pydantic-core, orjson, PyYAML, charset-normalizer) have one wheel per version.
PYTHON_VERSIONS = ("3.11", "3.12", "3.13", "3.14")


@dataclass(frozen=True)
class Target:
    """A VS Code target, the wheel platform tags pip may pick for it (newest glibc/musl/macOS first;
    pip itself widens a macOS tag to the older macOS versions and universal2) and the Pythons whose
    wheels every binary dependency publishes for it."""

    vscode: str
    platforms: tuple[str, ...]
    python_versions: tuple[str, ...] = PYTHON_VERSIONS


# Every binary dependency publishes wheels for these (checked with pip download). Not here:
# linux-armhf, where PyYAML (detect-secrets' dependency) has no armv7l wheel, and win32-arm64 with
# Python 3.11, where PyYAML has no wheel either. macOS 10.15 is the oldest VS Code 1.91 runs on.
TARGETS = {
    t.vscode: t
    for t in (
        Target("linux-x64", ("manylinux_2_28_x86_64", "manylinux_2_17_x86_64", "manylinux2014_x86_64")),
        Target("linux-arm64", ("manylinux_2_28_aarch64", "manylinux_2_17_aarch64", "manylinux2014_aarch64")),
        Target("alpine-x64", ("musllinux_1_2_x86_64", "musllinux_1_1_x86_64")),
        Target("alpine-arm64", ("musllinux_1_2_aarch64", "musllinux_1_1_aarch64")),
        Target("darwin-x64", ("macosx_10_15_x86_64",)),
        Target("darwin-arm64", ("macosx_11_0_arm64",)),
        Target("win32-x64", ("win_amd64",)),
        Target("win32-arm64", ("win_arm64",), ("3.12", "3.13", "3.14")),
    )
}

# What goes into the copy the wheel is built from (tracked files only; see ``source_copy``).
SOURCE_PATHS = ("pyproject.toml", "README.md", "LICENSE", "lsp_server")


def this_machine() -> str:
    system = {"Linux": "linux", "Darwin": "darwin", "Windows": "win32"}.get(platform.system(), "linux")
    if system == "linux" and platform.libc_ver()[0] != "glibc":
        system = "alpine"  # musl: VS Code's alpine targets
    arch = {"x86_64": "x64", "AMD64": "x64", "aarch64": "arm64", "arm64": "arm64", "ARM64": "arm64"}.get(
        platform.machine(), "x64"
    )
    return f"{system}-{arch}"


def source_copy(dest: Path, root: Path = ROOT) -> Path:
    """A fresh copy of what the wheel is built from: the tracked files of ``SOURCE_PATHS`` as they are
    in the working tree (the tests compare the wheel with them). ``python -m build`` on the checkout
    itself would reuse its ``build/`` folder, whose leftovers (a deleted module) setuptools would pack."""
    try:
        listed = subprocess.run(["git", "ls-files", "-z", "--", *SOURCE_PATHS], cwd=root, capture_output=True,
                                check=True).stdout.decode().split("\0")
        files = [name for name in listed if name and (root / name).is_file()]
    except (OSError, subprocess.CalledProcessError):
        files = []
    if not files:  # not a git checkout (an sdist): everything under SOURCE_PATHS but caches and builds
        files = [str(p.relative_to(root)) for name in SOURCE_PATHS for p in
                 ([root / name] if (root / name).is_file() else sorted((root / name).rglob("*")))
                 if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"]
    for name in files:
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(root / name, target)
    return dest


def run(cmd: list[str], *, cwd: Path = ROOT) -> None:
    print(f"$ {' '.join(cmd)}", file=sys.stderr, flush=True)
    done = subprocess.run(cmd, cwd=cwd, text=True, capture_output=True, check=False)
    if done.returncode != 0:
        sys.stderr.write(done.stdout[-4000:] + done.stderr[-4000:])
        raise SystemExit(f"failed ({done.returncode}): {' '.join(cmd)}")


COMPILED = (".so", ".pyd")  # the optional C modules' builds (their .c sources are not packed)


def package_hash(wheel: Path) -> str:
    """sha256 over the wheel's package files (sorted names and contents) but the compiled C modules:
    what tests compare with the checkout's files (but the C sources)."""
    digest = hashlib.sha256()
    with zipfile.ZipFile(wheel) as zf:
        for name in sorted(n for n in zf.namelist() if n.startswith(PACKAGE_DIR) and not n.endswith(("/", *COMPILED))):
            digest.update(name.encode() + b"\0" + hashlib.sha256(zf.read(name)).digest())
    return digest.hexdigest()


def without_c_modules(pyproject: Path) -> None:
    """Drop the optional C modules from the copy the wheel is built from: for another platform than
    this machine's, a module compiled here would not load there (the pure-Python paths do the work)."""
    kept: list[str] = []
    skipping = False
    for line in pyproject.read_text(encoding="utf-8").splitlines(keepends=True):
        if line.startswith("["):
            skipping = line.strip() in ("[[tool.setuptools.ext-modules]]", "[tool.distutils.bdist_wheel]")
        if not skipping:
            kept.append(line)
    pyproject.write_text("".join(kept), encoding="utf-8")


# The oldest glibc the manylinux tag below promises; a C module that needs a newer one keeps the wheel's
# plain linux tag (which no target accepts: the test of the bundle's tags fails, not the user's install).
MANYLINUX_GLIBC = (2, 17)
MANYLINUX_TAG = "manylinux_2_17_{arch}.manylinux2014_{arch}"


def glibc_needed(wheel: Path) -> tuple[int, int]:
    """The newest ``GLIBC_x.y`` symbol version the wheel's compiled modules need (``objdump -T``)."""
    newest = (0, 0)
    with tempfile.TemporaryDirectory(prefix="pi-context-so-") as tmp, zipfile.ZipFile(wheel) as zf:
        for name in zf.namelist():
            if name.endswith(".so"):
                path = zf.extract(name, tmp)
                dump = subprocess.run(["objdump", "-T", path], capture_output=True, text=True, check=True).stdout
                for major, minor in re.findall(r"GLIBC_(\d+)\.(\d+)", dump):
                    newest = max(newest, (int(major), int(minor)))
    return newest


def manylinux_wheel(wheel: Path) -> Path:
    """A ``linux_<arch>`` wheel (C modules built here, libyaml linked in) retagged manylinux when its
    modules need no newer glibc than the tag promises; other wheels as they are."""
    match = re.search(r"-linux_(x86_64|aarch64)\.whl$", wheel.name)
    if match is None or glibc_needed(wheel) > MANYLINUX_GLIBC:
        return wheel
    tag = MANYLINUX_TAG.format(arch=match.group(1))
    run([sys.executable, "-m", "wheel", "tags", "--remove", "--platform-tag", tag, str(wheel)])
    return next(p for p in wheel.parent.glob("pi_context-*.whl"))


def wheel_metadata(wheel: Path) -> tuple[str, list[str]]:
    """The wheel's version and its unconditional runtime requirements (no extras)."""
    with zipfile.ZipFile(wheel) as zf:
        meta_name = next(n for n in zf.namelist() if n.endswith(".dist-info/METADATA"))
        meta = Parser().parsestr(zf.read(meta_name).decode())
    requires = [r for r in meta.get_all("Requires-Dist") or [] if "extra ==" not in r]
    return meta["Version"], requires


def commit() -> str:
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True)
        dirty = subprocess.run(["git", "status", "--porcelain", "--", *SOURCE_PATHS], cwd=ROOT,
                               capture_output=True, text=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head.stdout.strip() + ("+dirty" if dirty.stdout.strip() else "")


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def download(requirements: list[str], target: Target, versions: tuple[str, ...], dest: Path) -> None:
    platforms = [arg for p in target.platforms for arg in ("--platform", p)]
    for version in versions:
        abi = "cp" + version.replace(".", "")
        run([sys.executable, "-m", "pip", "download", "--quiet", "--only-binary=:all:", *platforms,
             "--python-version", version, "--implementation", "cp", "--abi", abi, "--abi", "abi3", "--abi", "none",
             "--dest", str(dest), *requirements])
    # pip itself, run from its wheel into the new environment: no ensurepip, no network.
    run([sys.executable, "-m", "pip", "download", "--quiet", "--only-binary=:all:", "--no-deps", "--dest", str(dest),
         "pip>=24"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--target", default=this_machine(), choices=sorted(TARGETS))
    parser.add_argument("--out", type=Path, help="the .vsix to write (default: dist/pi-context-<target>.vsix)")
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "pi-context-package")
    parser.add_argument("--python-versions", help="comma-separated (default: the target's, at most "
                        + ", ".join(PYTHON_VERSIONS) + ")")
    args = parser.parse_args(argv)
    target = TARGETS[args.target]
    versions = (tuple(v.strip() for v in args.python_versions.split(",") if v.strip())
                if args.python_versions else target.python_versions)
    out = (args.out or EXTENSION / "dist" / f"pi-context-{target.vscode}.vsix").resolve()
    started = time.monotonic()

    extension_version = json.loads((EXTENSION / "package.json").read_text(encoding="utf-8"))["version"]
    with tempfile.TemporaryDirectory(prefix="pi-context-wheel-") as tmp:
        source = source_copy(Path(tmp) / "src")
        if target.vscode != this_machine():
            without_c_modules(source / "pyproject.toml")
        run([sys.executable, "-m", "build", "--wheel", "--outdir", str(Path(tmp) / "out"), str(source)])
        wheel = manylinux_wheel(next((Path(tmp) / "out").glob("pi_context-*.whl")))
        version, requires = wheel_metadata(wheel)
        if version != extension_version:
            raise SystemExit(f"the wheel is pi-context {version} but the extension is {extension_version}: "
                             "set lsp_server.__version__ and package.json's version to the same value")
        # Keyed by what was asked: the same requirements give the same wheels without asking pip again.
        key = hashlib.sha256(json.dumps([requires, versions, target.platforms]).encode()).hexdigest()[:16]
        deps = args.cache / f"wheels-{target.vscode}-{key}"
        if not (deps / ".complete").exists():
            shutil.rmtree(deps, ignore_errors=True)
            deps.mkdir(parents=True)
            download(requires, target, versions, deps)
            (deps / ".complete").touch()

        shutil.rmtree(BUNDLED, ignore_errors=True)
        (BUNDLED / "wheels").mkdir(parents=True)
        shutil.copy2(wheel, BUNDLED / "wheels" / wheel.name)
        for dep in sorted(deps.glob("*.whl")):
            shutil.copy2(dep, BUNDLED / "wheels" / dep.name)
    bundled_wheel = BUNDLED / "wheels" / wheel.name
    pip_wheel = max((p.name for p in (BUNDLED / "wheels").glob("pip-*.whl")), default=None)
    manifest = {
        "name": "pi-context",
        "version": version,
        "wheel": wheel.name,
        "wheelSha256": sha256(bundled_wheel),
        "packageHash": package_hash(bundled_wheel),
        "commit": commit(),
        "target": target.vscode,
        "pythonVersions": list(versions),
        "pipWheel": pip_wheel,
        "wheels": sorted(p.name for p in (BUNDLED / "wheels").glob("*.whl")),
    }
    (BUNDLED / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")

    out.parent.mkdir(parents=True, exist_ok=True)
    vsce = EXTENSION / "node_modules" / ".bin" / ("vsce.cmd" if os.name == "nt" else "vsce")
    if not vsce.exists():
        run(["npm", "ci", "--no-audit", "--no-fund"], cwd=EXTENSION)
    try:
        run([str(vsce), "package", "--no-dependencies", "--target", target.vscode, "--out", str(out)], cwd=EXTENSION)
    finally:
        shutil.rmtree(BUNDLED, ignore_errors=True)
    summary = {
        "vsix": str(out),
        "bytes": out.stat().st_size,
        "seconds": round(time.monotonic() - started, 1),
        **manifest,
    }
    print(f"{out.name}: {out.stat().st_size / 1e6:.1f} MB, pi-context {version} for {target.vscode}", file=sys.stderr)
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
