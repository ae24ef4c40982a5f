"""Path handling as Pi does it (``utils/paths.js``, Node's ``path``), for user-supplied paths.

Pi expands ``~``/``~/…`` and ``file://`` URLs, trims settings and CLI values, resolves relative
paths against the cwd, and de-duplicates resources by their real path. Node's ``path.resolve``
and ``path.join`` normalize (``..``, duplicate slashes) without touching the disk; these helpers
do the same so the paths we report are the strings Pi reports.
"""

from __future__ import annotations

import os
import posixpath
from urllib.parse import unquote, urlparse

from lsp_server.fsread import real_path


def home_dir() -> str:
    """``os.homedir()`` / ``process.env.HOME || homedir()`` (they agree on POSIX)."""
    return os.environ.get("HOME") or os.path.expanduser("~")


def node_normalize(path: str) -> str:
    """``path.posix.normalize`` for absolute paths (a leading ``//`` collapses to ``/``)."""
    if not path:
        return "."
    normalized = posixpath.normpath(path)
    if normalized.startswith("//"):
        normalized = "/" + normalized.lstrip("/")
    return normalized


def node_join(*parts: str) -> str:
    """``path.join``: joined with ``/`` and normalized."""
    joined = "/".join(p for p in parts if p)
    return node_normalize(joined) if joined else "."


def node_resolve(*parts: str) -> str:
    """``path.resolve``: right-most absolute part wins, then the process cwd, normalized."""
    resolved = ""
    for part in reversed(parts):
        if not part:
            continue
        resolved = f"{part}/{resolved}" if resolved else part
        if part.startswith("/"):
            break
    if not resolved.startswith("/"):
        resolved = f"{os.getcwd()}/{resolved}" if resolved else os.getcwd()
    return node_normalize(resolved)


def normalize_path(value: str, *, trim: bool = False, home: str | None = None) -> str:
    """``normalizePath``: optional trim, ``~`` expansion, ``file://`` URLs to paths."""
    normalized = value.strip() if trim else value
    home = home if home is not None else home_dir()
    if normalized == "~":
        return home
    if normalized.startswith("~/"):
        return node_join(home, normalized[2:])
    if normalized.startswith("file://"):
        return unquote(urlparse(normalized).path)
    return normalized


def resolve_path(value: str, base: str | None = None, *, trim: bool = False, home: str | None = None) -> str:
    """``resolvePath(input, baseDir, options)``."""
    normalized = normalize_path(value, trim=trim, home=home)
    if normalized.startswith("/"):
        return node_resolve(normalized)
    base_dir = normalize_path(base if base is not None else os.getcwd(), home=home)
    return node_resolve(base_dir, normalized)


def resource_key(path: str) -> str:
    """``getResourcePathKey``: the real path when it resolves, else the path itself, resolved."""
    return node_resolve(real_path(path))


def is_path_within(parent: str, child: str) -> bool:
    """``isPathWithin``: ``child`` is ``parent`` or below it (no symlink resolution)."""
    parent_key, child_key = node_resolve(parent), node_resolve(child)
    if parent_key == child_key:
        return True
    prefix = parent_key if parent_key.endswith("/") else parent_key + "/"
    return child_key.startswith(prefix)


def posix_relative(root: str, path: str) -> str:
    """``path.relative(root, path)`` with ``/`` separators."""
    rel = posixpath.relpath(node_resolve(path), node_resolve(root))
    return "" if rel == "." else rel
