"""Paths the way Pi spells and resolves them (``utils/paths.js``, ``config.js``), POSIX only.

Pi accepts ``~``, ``~/...`` and ``file://`` URLs wherever a user types a path, resolves relative
paths against a base directory with Node's ``path.resolve`` and, for comparisons, uses real paths.
Python's ``os.path`` differs in small ways that matter for exact answers: ``normpath`` keeps a
leading ``//``, ``expanduser`` also expands ``~user``, and ``urllib`` does not reject a file URL
with a host. The helpers here reproduce Node's results; none of them raises on bad input.
"""

from __future__ import annotations

import contextlib
import os
import posixpath
import pwd
import re
import stat
from collections.abc import Iterator, Mapping
from contextvars import ContextVar
from urllib.parse import unquote, urlsplit

from lsp_server.vocabulary.pi_files import AGENT_DIR_ENV, PROJECT_CONFIG_DIR

# Characters Pi's normalizePath turns into a plain space when asked (extension paths).
_UNICODE_SPACES = re.compile("[\u00a0\u2000-\u200a\u202f\u205f\u3000]")


def node_resolve(*parts: str) -> str:
    """Node's ``path.resolve``: right-most absolute part wins, then normalize, no trailing slash.

    Relative results are made absolute with the process cwd, as Node does. Unlike
    ``os.path.normpath``, a leading ``//`` collapses to ``/``.
    """
    if len(parts) == 1:
        only = parts[0]
        if (
            only.startswith("/")
            and not only.endswith(("/", "/.", "/.."))
            and "//" not in only
            and "/./" not in only
            and "/../" not in only
        ):
            return only  # absolute and already normal (the walks pass such paths thousands of times)
    resolved = ""
    for part in reversed(parts):
        if not part:
            continue
        resolved = f"{part}/{resolved}" if resolved else part
        if part.startswith("/"):
            break
    if not resolved.startswith("/"):
        resolved = f"{os.getcwd()}/{resolved}" if resolved else os.getcwd()
    normalized = posixpath.normpath(resolved)
    if normalized.startswith("//"):
        normalized = "/" + normalized.lstrip("/")
    return normalized


def home_dir(env: Mapping[str, str]) -> str:
    """Node's ``os.homedir()``: ``$HOME`` of ``env`` when set and non-empty, else passwd."""
    home = env.get("HOME")
    if home:
        return home
    try:
        return pwd.getpwuid(os.getuid()).pw_dir
    except (KeyError, OSError):
        return "/"


def file_url_to_path(url: str) -> str | None:
    """Node's ``fileURLToPath`` for POSIX; ``None`` where Node would throw (host, encoded ``/``)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    if parts.scheme.lower() != "file":
        return None
    host = parts.hostname or ""
    if host not in ("", "localhost"):
        return None
    raw_path = parts.path.replace("\\", "/") or "/"
    if re.search("%2f", raw_path, flags=re.IGNORECASE):
        return None
    return unquote(_remove_dot_segments(raw_path))


_SINGLE_DOT = {".", "%2e"}
_DOUBLE_DOT = {"..", ".%2e", "%2e.", "%2e%2e"}


def _remove_dot_segments(path: str) -> str:
    """WHATWG URL path parsing: drop ``.``, pop on ``..``, keep empty segments (``//`` stays)."""
    output: list[str] = []
    segments = path.split("/")[1:]
    for index, segment in enumerate(segments):
        last = index == len(segments) - 1
        lowered = segment.lower()
        if lowered in _DOUBLE_DOT:
            if output:
                output.pop()
            if last:
                output.append("")
        elif lowered in _SINGLE_DOT:
            if last:
                output.append("")
        else:
            output.append(segment)
    return "/" + "/".join(output)


def normalize_path(
    value: str,
    *,
    trim: bool = False,
    normalize_unicode_spaces: bool = False,
    strip_at_prefix: bool = False,
    expand_tilde: bool = True,
    home: str | None = None,
) -> str:
    """Pi's ``normalizePath``: optional trim, ``~`` / ``~/x`` expansion and ``file://`` URLs.

    Only a bare ``~`` and ``~/`` are expanded (``~user`` stays as typed). A file URL Node would
    reject is returned unchanged rather than raising (Pi would stop with an error there).
    """
    text = value.strip() if trim else value
    if normalize_unicode_spaces:
        text = _UNICODE_SPACES.sub(" ", text)
    if strip_at_prefix and text.startswith("@"):
        text = text[1:]
    if expand_tilde:
        base = home if home is not None else home_dir(os.environ)  # Node's os.homedir() when no home is given
        if text == "~":
            return base
        if text.startswith("~/"):
            return posixpath.join(base, text[2:])
    if text.startswith("file://"):
        converted = file_url_to_path(text)
        return converted if converted is not None else text
    return text


def resolve_path(value: str, base_dir: str | None = None, *, trim: bool = False, home: str | None = None) -> str:
    """Pi's ``resolvePath``: normalize, then ``path.resolve`` against ``base_dir`` (default: process cwd)."""
    normalized = normalize_path(value, trim=trim, home=home)
    if normalized.startswith("/"):
        return node_resolve(normalized)
    base = normalize_path(base_dir, home=home) if base_dir is not None else os.getcwd()
    return node_resolve(base, normalized)


def canonicalize_path(path: str) -> str:
    """Pi's ``canonicalizePath``: the real path, or the path unchanged when that fails.

    Inside :func:`real_paths_remembered`, the real paths of folders are remembered, so a normal
    absolute path costs one ``lstat`` of its last part instead of one per part.
    """
    remembered = _REAL_PATHS.get()
    if remembered is not None and node_resolve(path) == path:
        real = _remembered_real(path, remembered)
        return path if real is None else real
    return _real_or_unchanged(path)


def real_path(path: str) -> str:
    """``os.path.realpath(path)`` (not strict: what does not resolve keeps its unresolved rest),
    remembered inside :func:`real_paths_remembered` like :func:`canonicalize_path`."""
    remembered = _REAL_PATHS.get()
    if remembered is not None and node_resolve(path) == path:
        real = _remembered_real(path, remembered)
        if real is not None:
            return real
    return os.path.realpath(path)


def _real_or_unchanged(path: str) -> str:
    try:
        return os.path.realpath(path, strict=True)
    except (OSError, ValueError):
        return path


# The real path (None: it does not resolve) of every path seen inside real_paths_remembered().
_REAL_PATHS: ContextVar[dict[str, str | None] | None] = ContextVar("_REAL_PATHS", default=None)


@contextlib.contextmanager
def real_paths_remembered() -> Iterator[None]:
    """Within the block, :func:`canonicalize_path` remembers what it resolved (one skill discovery:
    20,000 skills under one folder cost ``os.path.realpath`` an ``lstat`` per path part, half a
    million of them). The file system is taken not to change meanwhile; nested blocks share one memory."""
    if _REAL_PATHS.get() is not None:
        yield
        return
    token = _REAL_PATHS.set({})
    try:
        yield
    finally:
        _REAL_PATHS.reset(token)


def _remembered_real(path: str, remembered: dict[str, str | None]) -> str | None:
    """``realpath(path, strict=True)`` of a normal absolute path, the folders' answers remembered."""
    pending: list[str] = []  # the path and its ancestors not seen yet, deepest first
    current = path
    while current not in remembered:
        if current == "/":
            remembered["/"] = "/"
            break
        pending.append(current)
        current = current.rsplit("/", 1)[0] or "/"
    for item in reversed(pending):
        parent_real = remembered[item.rsplit("/", 1)[0] or "/"]
        real: str | None = None
        if parent_real is not None:
            try:
                mode = os.lstat(item).st_mode
            except (OSError, ValueError):
                mode = None
            if mode is not None and stat.S_ISLNK(mode):
                resolved = _real_or_unchanged(item)
                real = resolved if resolved != item else None
            elif mode is not None:
                real = parent_real.rstrip("/") + "/" + item.rsplit("/", 1)[1]
        remembered[item] = real
    return remembered[path]


def paths_equal(left: str, right: str) -> bool:
    """Pi's ``pathsEqual`` on POSIX: equal after ``path.resolve`` (no file system access)."""
    return node_resolve(left) == node_resolve(right)


def is_path_within(parent: str, child: str) -> bool:
    """Pi's ``isPathWithin``: ``child`` is ``parent`` or below it (string comparison after resolve)."""
    parent_key = node_resolve(parent)
    child_key = node_resolve(child)
    if child_key == parent_key:
        return True
    prefix = parent_key if parent_key.endswith("/") else parent_key + "/"
    return child_key.startswith(prefix)


def default_agent_dir(env: Mapping[str, str]) -> str:
    """Pi's ``getAgentDir``: ``$PI_CODING_AGENT_DIR`` (``~`` and file URLs expanded) or ``~/.pi/agent``.

    The value is returned as Pi keeps it (possibly relative); callers resolve it.
    """
    environ = env
    configured = environ.get(AGENT_DIR_ENV)
    if configured:
        return normalize_path(configured)
    return posixpath.join(home_dir(environ), PROJECT_CONFIG_DIR, "agent")


def resolve_agent_dir(override: str | None = None, cwd: str | None = None, *, env: Mapping[str, str]) -> str:
    """The agent dir pi-context uses: our own override if set, else Pi's; always absolute.

    A relative value resolves against ``cwd`` (default: the process cwd), ``~`` against ``env``'s HOME.
    """
    home = home_dir(env)
    if override:
        return resolve_path(override, cwd, home=home)
    return resolve_path(default_agent_dir(env), cwd, home=home)
