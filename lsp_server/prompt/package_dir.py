"""Where the installed Pi package lives: the ``docs`` section points the model at its files.

Pi names ``<pkg>/README.md``, ``<pkg>/docs`` and ``<pkg>/examples`` in its default prompt, with
``<pkg>`` taken from ``PI_PACKAGE_DIR`` or else Pi's own install folder. pi-context is not Pi, so
it looks for an installed Pi the way a user would have installed it, and falls back to npm's
default global location so the section keeps its shape even on a machine without Pi.
"""

from __future__ import annotations

import json
import os
import posixpath
import shutil
from collections.abc import Mapping
from pathlib import Path

from lsp_server.base.paths import node_resolve, normalize_path

PI_PACKAGE_NAME = "@earendil-works/pi-coding-agent"
PACKAGE_DIR_ENV = "PI_PACKAGE_DIR"
FALLBACK_PACKAGE_DIR = "/usr/local/lib/node_modules/" + PI_PACKAGE_NAME


def package_paths(package_dir: str) -> tuple[str, str, str]:
    """``(README.md, docs, examples)`` under ``package_dir``: Pi's ``resolve(join(normalizePath(dir), leaf))``."""
    base = normalize_path(package_dir)
    readme, docs, examples = (node_resolve(posixpath.join(base, leaf)) for leaf in ("README.md", "docs", "examples"))
    return readme, docs, examples


def _is_pi_package(folder: Path) -> bool:
    try:
        manifest = json.loads((folder / "package.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(manifest, dict) and manifest.get("name") == PI_PACKAGE_NAME


def find_pi_package_dir(env: Mapping[str, str]) -> str:
    """``PI_PACKAGE_DIR`` if set, else the folder of an installed ``pi`` command, else npm's default."""
    environ = env
    explicit = environ.get(PACKAGE_DIR_ENV)
    if explicit:
        return normalize_path(explicit)
    command = shutil.which("pi", path=environ.get("PATH"))
    if command:
        for parent in Path(os.path.realpath(command)).parents:
            if _is_pi_package(parent):
                return str(parent)
    for prefix in ("/usr/local/lib/node_modules", "/usr/lib/node_modules", "~/.npm-global/lib/node_modules"):
        candidate = Path(os.path.expanduser(prefix)) / PI_PACKAGE_NAME
        if _is_pi_package(candidate):
            return str(candidate)
    return FALLBACK_PACKAGE_DIR
