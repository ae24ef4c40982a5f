"""Which processes a test's chats left: found by the variables in their environment (Linux ``/proc``).

Pi renames itself (``process.title``), so its command line reads ``pi``; what a chat starts is found
instead by the marker the server puts in its environment (inherited by Pi's tool shells) together with
the test's own agent dir, so that two tests running side by side never see each other's processes.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from pathlib import Path

from lsp_server.pi_rpc.keeper_files import KEEPER_MARKER
from lsp_server.pi_rpc.reaper import MARKER_NAME as CHAT_OWNER


def parent_of(pid: int) -> int | None:
    """The parent's pid, or None when the process is gone."""
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return None


def marked_processes(agent_dir: Path | str, marker: str, *, zombies: bool) -> list[int]:
    """Processes whose environment names ``agent_dir`` and sets ``marker``; a zombie counts only when asked
    (a process that ended but was not reaped is still one its parent failed to wait for)."""
    needle = f"PI_CODING_AGENT_DIR={agent_dir}".encode()
    prefix = f"{marker}=".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environ = (entry / "environ").read_bytes().split(b"\0")
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if (zombies or state != "Z") and needle in environ and any(item.startswith(prefix) for item in environ):
            found.append(int(entry.name))
    return sorted(found)


def pi_processes(agent_dir: Path | str) -> list[int]:
    """Pi and its tool shells started for this agent dir's chats, zombies included: after a chat ends
    none of them may be left, not even unreaped."""
    return marked_processes(agent_dir, CHAT_OWNER, zombies=True)


def keeper_processes(agent_dir: Path | str) -> list[int]:
    """The keepers holding this agent dir's chats (docs/chat.md, *A turn that outlives the window*)."""
    return marked_processes(agent_dir, KEEPER_MARKER, zombies=False)


def reap_chat_processes(agent_dir: Path | str, wait_s: float = 10.0) -> tuple[list[int], list[int]]:
    """Waits up to ``wait_s`` for this agent dir's Pi processes and keepers to end with their window, then kills
    what is left (a failed step may end mid-turn: its keeper would wait out the grace) and returns it, as
    (Pi processes, keepers), for the test to assert on."""
    deadline = time.monotonic() + wait_s
    while (pi_processes(agent_dir) or keeper_processes(agent_dir)) and time.monotonic() < deadline:
        time.sleep(0.2)
    left_pi, left_keepers = pi_processes(agent_dir), keeper_processes(agent_dir)
    for pid in left_keepers + left_pi:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    return left_pi, left_keepers
