"""Finding a Pi that can run the chat: which command, which Pi version, which Node.

Where to look, in order: the user's command (a setting such as ``piContext.pi.command``, split like
a shell would: ``node /path/cli.js`` or ``/path/pi``; when given, nothing else is tried), then ``pi``
on the PATH, then the folders npm, nvm, Volta and Homebrew install global commands into (asking
``npm prefix -g`` costs a Node start, too slow to do on every chat).

Pi needs Node >= 22.19. An npm-installed ``pi`` is a script whose shebang is ``#!/usr/bin/env
node``: it runs with whatever ``node`` is first on the PATH *Pi* gets, which in an editor started
from a desktop is often an old system Node while the user's shell has nvm's. So the Node is found
the way the kernel would find it (read the shebang, look the interpreter up on that PATH) and asked
for ``--version``; when it is too old and a new-enough ``node`` sits next to the script (nvm's and
npm's own layout), the command becomes ``<that node> <script>``, which is what the user's shell
runs. A command that is not a script (a compiled ``pi`` binary) needs no Node. Finally
``<command> --version`` must print Pi's version; when it fails, Node's own last stderr line
(``Node.js v20.…``) still says which Node was too old. Pi's version is reported, never a reason to
refuse: the chat asks the running Pi what it supports (:mod:`lsp_server.pi_rpc.capabilities`).

Every probe is a subprocess with a timeout; the result is a value, never an exception: a
:class:`PiInstallation`, or a :class:`PiUnavailable` with one sentence for the user and the command
that installs Pi.
"""

from __future__ import annotations

import asyncio
import os
import re
import shlex
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final, Literal

PI_PACKAGE: Final = "@earendil-works/pi-coding-agent"
INSTALL_COMMAND: Final = f"npm install -g {PI_PACKAGE}"
MIN_NODE: Final = (22, 19, 0)  # Pi's package.json "engines"
PROBE_TIMEOUT_S: Final = 15.0  # a cold Pi start is ~1.5 s here; a loaded laptop may be slower
SHEBANG_BYTES: Final = 256

Version = tuple[int, int, int]
UnavailableKind = Literal["not-found", "not-runnable", "node-too-old", "broken"]

_VERSION = re.compile(r"v?(\d+)\.(\d+)\.(\d+)")
_NODE_IN_STDERR = re.compile(r"Node\.js v(\d+\.\d+\.\d+)")
_NODE_NAMES = ("node", "nodejs", "node.exe")


@dataclass(frozen=True)
class PiInstallation:
    """A Pi that answered ``--version``; ``argv`` is the prefix before ``--mode rpc``."""

    argv: tuple[str, ...]
    pi_version: str
    node_version: str | None  # None: a compiled Pi that needs no Node
    source: str  # "setting", "PATH" or the folder it was found in


@dataclass(frozen=True)
class PiUnavailable:
    """No usable Pi: ``message`` is one sentence for the user, ``install_command`` the fix."""

    kind: UnavailableKind
    message: str
    argv: tuple[str, ...] = ()  # the command that was checked
    install_command: str = INSTALL_COMMAND
    detail: str = ""  # stderr or the probe's own error, for a log


PiLocation = PiInstallation | PiUnavailable


@dataclass
class LocateCache:
    """Remembers what was found by (command, file identities, PATH): a Node start is not free.

    Only a Pi found is kept: a failure may be fixed by something the key does not see (a Node installed on
    the same PATH), and the user who fixed it presses New Chat expecting it to be noticed.
    """

    _results: dict[tuple[object, ...], PiLocation] = field(default_factory=dict)

    def get(self, key: tuple[object, ...]) -> PiLocation | None:
        return self._results.get(key)

    def put(self, key: tuple[object, ...], value: PiLocation) -> None:
        if len(self._results) > 64:
            self._results.clear()
        self._results[key] = value


def parse_version(text: str) -> Version | None:
    match = _VERSION.search(text)
    if match is None:
        return None
    return (int(match.group(1)), int(match.group(2)), int(match.group(3)))


def format_version(version: Version) -> str:
    return ".".join(str(part) for part in version)


def split_command(command: str | Sequence[str] | None) -> tuple[str, ...]:
    """A setting's command line as argv (a string is split like a POSIX shell would)."""
    if command is None:
        return ()
    if isinstance(command, str):
        try:
            return tuple(shlex.split(command))
        except ValueError:
            return (command,)
    return tuple(str(part) for part in command)


def candidate_folders(env: Mapping[str, str], home: Path) -> list[Path]:
    """Where global npm commands usually live, after the PATH (in this order)."""
    folders = [
        home / ".npm-global" / "bin",
        Path("/usr/local/bin"),
        Path("/usr/bin"),
        home / ".local" / "bin",
    ]
    nvm = Path(env.get("NVM_DIR") or home / ".nvm") / "versions" / "node"
    folders.extend(bin_dir for _, bin_dir in sorted(_nvm_bins(nvm), reverse=True))
    prefix = env.get("NPM_CONFIG_PREFIX") or env.get("npm_config_prefix")
    if prefix:
        folders.append(Path(prefix) / "bin")
    folders.append(Path(env.get("VOLTA_HOME") or home / ".volta") / "bin")
    folders.append(Path("/opt/homebrew/bin"))
    unique: list[Path] = []
    for folder in folders:
        if folder not in unique:
            unique.append(folder)
    return unique


def _nvm_bins(root: Path) -> list[tuple[Version, Path]]:
    try:
        entries = list(root.iterdir())
    except OSError:
        return []
    found: list[tuple[Version, Path]] = []
    for entry in entries:
        version = parse_version(entry.name)
        if version is not None:
            found.append((version, entry / "bin"))
    return found


def locate_pi(
    command: str | Sequence[str] | None = None,
    *,
    env: Mapping[str, str],
    home: Path | None = None,
    timeout_s: float = PROBE_TIMEOUT_S,
    cache: LocateCache | None = None,
) -> PiLocation:
    """Find a Pi to run, checking its Node and its version. Blocks for at most a few probes."""
    env = dict(env)
    home = home if home is not None else Path(env.get("HOME") or Path.home())
    argv = split_command(command)
    if argv:
        return _check_cached(argv, "setting", env, timeout_s, cache)
    path = env.get("PATH", "")
    first_problem: PiUnavailable | None = None
    seen: set[str] = set()
    tried: list[tuple[str, str]] = []
    on_path = shutil.which("pi", path=path)
    if on_path:
        tried.append((on_path, "PATH"))
    for folder in candidate_folders(env, home):
        found = shutil.which("pi", path=str(folder))
        if found:
            tried.append((found, str(folder)))
    for found, source in tried:
        real = os.path.realpath(found)
        if real in seen:
            continue
        seen.add(real)
        result = _check_cached((found,), source, env, timeout_s, cache)
        if isinstance(result, PiInstallation):
            return result
        first_problem = first_problem or result
    if first_problem is not None:
        return first_problem
    return PiUnavailable(
        "not-found",
        f"Pi is not installed (no `pi` on the PATH or in the usual npm folders); install it with: {INSTALL_COMMAND}",
    )


async def locate_pi_async(
    command: str | Sequence[str] | None = None,
    *,
    env: Mapping[str, str],
    home: Path | None = None,
    timeout_s: float = PROBE_TIMEOUT_S,
    cache: LocateCache | None = None,
) -> PiLocation:
    """:func:`locate_pi` on a worker thread, for the language server's event loop."""
    return await asyncio.to_thread(locate_pi, command, env=env, home=home, timeout_s=timeout_s, cache=cache)


def _check_cached(
    argv: tuple[str, ...], source: str, env: dict[str, str], timeout_s: float, cache: LocateCache | None
) -> PiLocation:
    if cache is None:
        return check_pi(argv, source=source, env=env, timeout_s=timeout_s)
    key = (argv, env.get("PATH", ""), *(_identity(part) for part in argv[:2]))
    cached = cache.get(key)
    if cached is None:
        cached = check_pi(argv, source=source, env=env, timeout_s=timeout_s)
        if isinstance(cached, PiInstallation):  # a failure is looked at again: a Node or Pi installed since counts
            cache.put(key, cached)
    return cached


def _identity(part: str) -> tuple[str, int, int] | None:
    found = part if os.sep in part else shutil.which(part)
    if not found:
        return None
    try:
        stat = os.stat(found)
    except OSError:
        return None
    return (os.path.realpath(found), stat.st_mtime_ns, stat.st_size)


def check_pi(
    argv: Sequence[str],
    *,
    source: str = "setting",
    env: Mapping[str, str],
    timeout_s: float = PROBE_TIMEOUT_S,
) -> PiLocation:
    """Check one command line: its program exists, its Node is new enough, it prints Pi's version."""
    env = dict(env)
    argv = tuple(argv)
    if not argv:
        return PiUnavailable("not-found", f"No command is set to start Pi; install it with: {INSTALL_COMMAND}")
    path = env.get("PATH", "")
    program = argv[0] if os.sep in argv[0] else shutil.which(argv[0], path=path)
    shown = shlex.join(argv)
    if program is None or not os.path.exists(program):
        return PiUnavailable("not-found", f"`{argv[0]}` was not found; install Pi with: {INSTALL_COMMAND}", argv)
    if not os.access(program, os.X_OK) or os.path.isdir(program):
        return PiUnavailable("not-runnable", f"`{program}` cannot be run (not an executable file)", argv)

    node_version: str | None = None
    if _is_node(program):
        probed = _probe_node(program, env, timeout_s)
        if isinstance(probed, PiUnavailable):
            return probed
        node_version = probed
    else:
        interpreter = _shebang_interpreter(program, path)
        if interpreter is not None:
            node: str | PiUnavailable | None = _probe_node(interpreter, env, timeout_s) if interpreter else None
            sibling = _sibling_node(argv[0] if os.sep in argv[0] else program)
            if (node is None or isinstance(node, PiUnavailable)) and sibling is not None:
                sibling_version = _probe_node(sibling, env, timeout_s)
                if isinstance(sibling_version, str):
                    argv = (sibling, os.path.realpath(program), *argv[1:])
                    node = sibling_version
            if isinstance(node, PiUnavailable):
                return node
            if node is None:
                return PiUnavailable(
                    "node-too-old",
                    f"Pi needs Node.js {format_version(MIN_NODE)} or newer, and no `node` is on the PATH; "
                    "install Node.js 22 or newer",
                    argv,
                )
            node_version = node

    try:
        done = subprocess.run(
            [*argv, "--version"],
            capture_output=True,
            timeout=timeout_s,
            env=env,
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return PiUnavailable("broken", f"`{shown} --version` did not answer within {timeout_s:g} s", argv)
    except OSError as error:
        return PiUnavailable("not-runnable", f"`{shown}` cannot be run: {error.strerror or error}", argv)
    stdout = done.stdout.decode(errors="replace")
    stderr = done.stderr.decode(errors="replace")
    if done.returncode != 0:
        too_old = _NODE_IN_STDERR.search(stderr)
        if too_old and (parse_version(too_old.group(1)) or MIN_NODE) < MIN_NODE:
            return _node_too_old(too_old.group(1), argv, stderr)
        last = next((line.strip() for line in reversed(stderr.splitlines()) if line.strip()), "")
        return PiUnavailable(
            "broken",
            f"`{shown} --version` failed (exit {done.returncode})" + (f": {last}" if last else ""),
            argv,
            detail=stderr[-4000:],
        )
    lines = [line.strip() for line in stdout.splitlines() if line.strip()]
    pi_version = parse_version(lines[-1]) if lines else None
    if pi_version is None:
        return PiUnavailable(
            "broken", f"`{shown} --version` printed no version; is it Pi?", argv, detail=(stdout + stderr)[-4000:]
        )
    return PiInstallation(argv, format_version(pi_version), node_version, source)


def _is_node(program: str) -> bool:
    return os.path.basename(program).lower() in _NODE_NAMES


def _shebang_interpreter(program: str, path: str) -> str | None:
    """The Node a script would run with: '' when it names node but none is found, None if not a node script."""
    try:
        with open(program, "rb") as handle:
            head = handle.read(SHEBANG_BYTES)
    except OSError:
        return None
    if not head.startswith(b"#!"):
        return None
    words = head[2:].split(b"\n", 1)[0].decode(errors="replace").split()
    if not words:
        return None
    if os.path.basename(words[0]) == "env":
        rest = [word for word in words[1:] if not word.startswith("-") and "=" not in word]
        if not rest or not _is_node(rest[0]):
            return None
        return shutil.which(rest[0], path=path) or ""
    return words[0] if _is_node(words[0]) else None


def _sibling_node(script: str) -> str | None:
    """A ``node`` in the same folder as the command (how nvm and npm prefixes lay out ``bin``)."""
    candidate = os.path.join(os.path.dirname(os.path.abspath(script)), "node")
    return candidate if os.path.isfile(candidate) and os.access(candidate, os.X_OK) else None


def _probe_node(node: str, env: Mapping[str, str], timeout_s: float) -> str | PiUnavailable:
    try:
        done = subprocess.run(
            [node, "--version"],
            capture_output=True,
            timeout=timeout_s,
            env=dict(env),
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return PiUnavailable("broken", f"`{node} --version` did not answer within {timeout_s:g} s", (node,))
    except OSError as error:
        return PiUnavailable("not-runnable", f"`{node}` cannot be run: {error.strerror or error}", (node,))
    version = parse_version(done.stdout.decode(errors="replace")) if done.returncode == 0 else None
    if version is None:
        return PiUnavailable("broken", f"`{node} --version` printed no version", (node,))
    if version < MIN_NODE:
        return _node_too_old(format_version(version), (node,), "")
    return format_version(version)


def _node_too_old(found: str, argv: tuple[str, ...], detail: str) -> PiUnavailable:
    return PiUnavailable(
        "node-too-old",
        f"Pi needs Node.js {format_version(MIN_NODE)} or newer but would run with Node.js {found}; "
        "install Node.js 22 or newer (for example with nvm), then Pi with: " + INSTALL_COMMAND,
        argv,
        detail=detail[-4000:],
    )
