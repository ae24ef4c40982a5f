"""Ending every process a Pi child started, including the ones that left its process group.

Pi runs in a new session (so a new process group) of its own: one ``killpg`` reaches Pi and
whatever it started in its group. Pi's ``bash`` tool, though, starts each command *detached*
(``setsid``: another session and group), and when Pi dies without its orderly shutdown (SIGKILL, a
crash) those shells are re-parented to init and would run on. Two nets catch them:

* a marker in the environment: Pi is started with ``PI_CONTEXT_CHAT_OWNER=<token>``, which every
  descendant inherits (Pi passes its environment on to tool shells), so on Linux a scan of
  ``/proc/*/environ`` finds them even after re-parenting;
* while Pi is alive, its descendants by parent id (``/proc`` or ``ps``), for systems without
  ``/proc``.

Everything here is best effort and bounded: a process that vanished or is not ours is skipped.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import Iterable
from typing import Any, Final

MARKER_NAME: Final = "PI_CONTEXT_CHAT_OWNER"
PS_TIMEOUT_S: Final = 2.0
POSIX: Final = os.name == "posix"


def spawn_options() -> dict[str, Any]:
    """``Popen`` keyword arguments that give Pi a process group of its own."""
    if POSIX:
        return {"start_new_session": True}
    return {"creationflags": getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0)}


def signal_group(pgid: int, sig: int) -> None:
    """Send ``sig`` to a whole process group; a group that is gone is fine."""
    if not POSIX:
        return
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


def signal_pids(pids: Iterable[int], sig: int) -> None:
    for pid in pids:
        if pid <= 1 or pid == os.getpid():
            continue
        with contextlib.suppress(ProcessLookupError, PermissionError, OSError):
            os.kill(pid, sig)


def marked_pids(token: str) -> list[int]:
    """Processes whose environment holds ``PI_CONTEXT_CHAT_OWNER=token`` (Linux ``/proc`` only)."""
    if not sys.platform.startswith("linux"):
        return []
    needle = f"\0{MARKER_NAME}={token}\0".encode()
    found: list[int] = []
    own = os.getpid()
    try:
        names = os.listdir("/proc")
    except OSError:
        return []
    for name in names:
        if not name.isdigit() or int(name) == own:
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as handle:
                environ = b"\0" + handle.read()
        except OSError:
            continue
        if needle in environ + b"\0":
            found.append(int(name))
    return found


def descendant_pids(root: int) -> list[int]:
    """Every live process below ``root`` by parent id (empty when the table cannot be read)."""
    children: dict[int, list[int]] = {}
    for pid, ppid in _process_table():
        children.setdefault(ppid, []).append(pid)
    found: list[int] = []
    stack = [root]
    seen = {root}
    while stack:
        for child in children.get(stack.pop(), []):
            if child not in seen:
                seen.add(child)
                found.append(child)
                stack.append(child)
    return found


def _process_table() -> list[tuple[int, int]]:
    if sys.platform.startswith("linux") and os.path.isdir("/proc"):
        table: list[tuple[int, int]] = []
        for name in os.listdir("/proc"):
            if not name.isdigit():
                continue
            try:
                with open(f"/proc/{name}/stat", "rb") as handle:
                    stat = handle.read()
            except OSError:
                continue
            # "pid (comm) state ppid ...": comm may hold spaces and parentheses, so split after the last ')'.
            fields = stat[stat.rfind(b")") + 2 :].split()
            if len(fields) > 1:
                table.append((int(name), int(fields[1])))
        return table
    if not POSIX:
        return []
    try:
        out = subprocess.run(
            ["ps", "-A", "-o", "pid=", "-o", "ppid="],
            capture_output=True,
            timeout=PS_TIMEOUT_S,
            check=False,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    rows: list[tuple[int, int]] = []
    for line in out.decode(errors="replace").splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0].isdigit() and parts[1].isdigit():
            rows.append((int(parts[0]), int(parts[1])))
    return rows


def kill_leftovers(pgid: int, token: str, extra: Iterable[int] = ()) -> None:
    """SIGKILL what is left of one Pi: its group, the marked processes, and ``extra`` pids.

    Called once Pi itself has exited (or must die now), so nothing here needs a grace period. A
    few rounds catch a process that forked while the previous round ran.
    """
    signal_group(pgid, signal.SIGKILL if POSIX else signal.SIGTERM)
    signal_pids(extra, _hard())
    for _ in range(3):
        pids = [pid for pid in marked_pids(token) if pid != pgid]
        if not pids:
            return
        signal_pids(pids, _hard())


def _hard() -> int:
    return int(getattr(signal, "SIGKILL", signal.SIGTERM))
