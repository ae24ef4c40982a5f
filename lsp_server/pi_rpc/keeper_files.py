"""Where Pi keepers live: a private folder per user, one socket and one record file per keeper.

A keeper (:mod:`.keeper`) is the process of ours that holds a Pi in RPC mode so that a turn can
outlive the language server (a window reload). A server finds the keepers of its user here:

* the folder is ``$PI_CONTEXT_RUNTIME_DIR``, else ``$XDG_RUNTIME_DIR/pi-context``, else
  ``<temp dir>/pi-context-<uid>``, with ``keepers/`` inside. It must be a real folder (not a
  symlink) owned by this user with no access for anyone else (mode 0700); it is created so, and a
  folder that is not is refused. The last one is a name anyone can take first: when another
  user (or a loose mode, or a symlink) holds it, the keepers live in a fresh private folder made
  with ``mkdtemp`` instead (:func:`choose_keepers_folder`), whose path is noted in pi-context's
  state folder so that the user's next servers find the same one. A folder chosen explicitly is
  refused without a fallback (the chat then runs Pi directly, without a keeper);
* ``<id>.sock``: the keeper's Unix socket (mode 0600), one client at a time;
* ``<id>.json``: what the keeper holds (:class:`KeeperRecord`), rewritten whole (a temporary file
  renamed over it) when it changes, so a reader never sees half of it;
* ``<id>.held.json``: written by the server whose chat runs on the keeper, what its Pi read (settings,
  trust, prompt sections; ``lsp_server/chat/live.py``), so the server that takes the chat up after a
  window reload computes the chat's numbers from the same.

A record whose socket nobody answers is stale (its keeper was killed): :func:`sweep_stale` removes
its files and ends what is left of its Pi by the marker in Pi's environment.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import stat
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, Final, Literal

from lsp_server.pi_rpc.reaper import MARKER_NAME, marked_pids, signal_pids

RUNTIME_DIR_ENV: Final = "PI_CONTEXT_RUNTIME_DIR"
KEEPER_MARKER: Final = "PI_CONTEXT_CHAT_KEEPER"  # in the keeper's own environment (not Pi's): its id
RECORD_VERSION: Final = 1
SOCKET_PATH_MAX: Final = 100  # sun_path is 108 bytes on Linux, 104 on macOS

KeeperState = Literal["starting", "attached", "detached", "ending"]


class KeeperDirError(Exception):
    """The keepers' folder cannot be used safely; the message says why."""


@dataclass(frozen=True)
class KeeperRecord:
    """One keeper as its record file says (camelCase in the file)."""

    keeper_id: str
    keeper_pid: int
    pi_pid: int
    owner_token: str  # PI_CONTEXT_CHAT_OWNER in Pi's environment
    cwd: str
    session: str | None
    started_at: float  # seconds since the epoch
    state: KeeperState
    busy: bool  # a run, a prompt or a compaction is going on
    grace_s: float
    turn_limit_s: float
    argv: list[str] = field(default_factory=list)  # the installation's prefix before --mode rpc
    pi_version: str = ""
    node_version: str | None = None
    source: str = ""
    detached_at: float | None = None
    version: int = RECORD_VERSION

    def socket_path(self, folder: Path) -> Path:
        return folder / f"{self.keeper_id}.sock"

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        return {_camel(key): value for key, value in data.items()}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> KeeperRecord | None:
        """A record from its file's object, or None when it is not one this version writes."""
        try:
            values = {_snake(key): value for key, value in data.items()}
            if values.get("version") != RECORD_VERSION:
                return None
            known = {name for name in cls.__dataclass_fields__}
            record = cls(**{key: value for key, value in values.items() if key in known})
        except (TypeError, ValueError):
            return None
        if not (isinstance(record.keeper_id, str) and record.keeper_id.isalnum()):
            return None
        if not (isinstance(record.keeper_pid, int) and isinstance(record.pi_pid, int)):
            return None
        return record

    def with_changes(self, **changes: Any) -> KeeperRecord:
        return replace(self, **changes)


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def _snake(name: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in name)


def default_runtime_dir(env: Mapping[str, str]) -> Path:
    """The keepers' folder this user's servers share (not created here)."""
    explicit = env.get(RUNTIME_DIR_ENV)
    if explicit:
        return Path(explicit) / "keepers"
    xdg = env.get("XDG_RUNTIME_DIR")
    if xdg and os.path.isabs(xdg) and os.path.isdir(xdg):
        return Path(xdg) / "pi-context" / "keepers"
    uid = os.getuid() if hasattr(os, "getuid") else 0
    return Path(tempfile.gettempdir()) / f"pi-context-{uid}" / "keepers"


def ensure_private_dir(folder: Path) -> Path:
    """Create ``folder`` (and its parent) 0700 if missing; refuse one that others could reach.

    A path too long for the sockets inside it is refused before anything is created.
    """
    if len(os.fsencode(folder)) + 18 > SOCKET_PATH_MAX:
        raise KeeperDirError(f"{folder} is too long a path for a Unix socket; set {RUNTIME_DIR_ENV} to a shorter one")
    for path in (folder.parent, folder):
        try:
            path.mkdir(mode=0o700, exist_ok=True)
        except OSError as error:
            raise KeeperDirError(f"cannot create {path}: {error.strerror or error}") from error
        check_private(path)
    return folder


FALLBACK_NOTE: Final = "keepers-folder"  # in pi-context's state folder: the fallback folder in use


@dataclass(frozen=True)
class KeepersFolder:
    """The keepers' folder in use, and why it is not the default one (None when it is)."""

    path: Path
    instead_of: Path | None = None
    because: str | None = None

    def fallback_sentence(self) -> str | None:
        if self.instead_of is None:
            return None
        return (
            f"{self.because}, so chats' keepers live in {self.path.parent} instead (a fresh private folder; "
            f"remove {self.instead_of.parent} or set {RUNTIME_DIR_ENV} to go back)"
        )


def choose_keepers_folder(env: Mapping[str, str], state_dir: str | None = None) -> KeepersFolder:
    """The keepers' folder, created private; a fresh one when the shared temp name is held by someone else.

    Raises :class:`KeeperDirError` when no folder can be used (an explicit one that is not private,
    or the fallback cannot be made either).
    """
    folder = default_runtime_dir(env)
    try:
        return KeepersFolder(ensure_private_dir(folder))
    except KeeperDirError as error:
        explicit = bool(env.get(RUNTIME_DIR_ENV)) or folder.parent.parent != Path(tempfile.gettempdir())
        if explicit or state_dir is None:
            raise
        because = str(error)
    return KeepersFolder(_fallback_folder(Path(state_dir)), instead_of=folder, because=because)


def _fallback_folder(state: Path) -> Path:
    """The fallback noted in ``state`` when it is still ours and private, else a new ``mkdtemp`` one, noted."""
    note = state / FALLBACK_NOTE
    try:
        with open(note, "rb") as handle:
            noted = Path(os.fsdecode(handle.read(4096).strip()))
        if noted.is_absolute() and noted.name == "keepers":
            return ensure_private_dir(noted)  # checks both levels: still ours, still private
    except (OSError, KeeperDirError):
        pass
    uid = os.getuid() if hasattr(os, "getuid") else 0
    try:
        parent = Path(tempfile.mkdtemp(prefix=f"pi-context-{uid}-"))  # 0700, ours, a name nobody could take first
    except OSError as error:
        raise KeeperDirError(f"cannot create a private folder for keepers: {error.strerror or error}") from error
    folder = ensure_private_dir(parent / "keepers")
    try:
        state.mkdir(mode=0o700, parents=True, exist_ok=True)
        temporary = note.with_name(f".{FALLBACK_NOTE}.{os.getpid()}.tmp")
        temporary.write_bytes(os.fsencode(folder))
        os.replace(temporary, note)
    except OSError:
        pass  # this server still uses it; the next one makes its own
    return folder


def check_private(path: Path) -> None:
    try:
        info = os.lstat(path)
    except OSError as error:
        raise KeeperDirError(f"cannot read {path}: {error.strerror or error}") from error
    if not stat.S_ISDIR(info.st_mode):
        raise KeeperDirError(f"{path} is not a folder (a symlink or a file is refused)")
    if hasattr(os, "getuid") and info.st_uid != os.getuid():
        raise KeeperDirError(f"{path} belongs to another user")
    if info.st_mode & 0o077:
        mode = f"{stat.S_IMODE(info.st_mode):o}"
        raise KeeperDirError(f"{path} can be reached by other users (mode {mode}); it must be 0700")


def write_record(folder: Path, record: KeeperRecord) -> None:
    """Write the record atomically, readable by this user only."""
    target = folder / f"{record.keeper_id}.json"
    data = json.dumps(record.to_json(), indent=1).encode()
    fd, temporary = tempfile.mkstemp(prefix=f".{record.keeper_id}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


# A server's note of what the keeper's Pi read (chat/live.py), removed with the keeper's own files.
HELD_SUFFIX = ".held.json"


def remove_files(folder: Path, keeper_id: str) -> None:
    for suffix in (".json", ".sock", HELD_SUFFIX):
        with contextlib.suppress(OSError):
            os.unlink(folder / f"{keeper_id}{suffix}")


def read_records(folder: Path) -> list[KeeperRecord]:
    """Every readable record in the folder (oldest first); broken files are skipped."""
    records: list[KeeperRecord] = []
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return records
    for name in names:
        if not name.endswith(".json") or name.startswith("."):
            continue
        try:
            with open(folder / name, "rb") as handle:
                data = json.loads(handle.read(1024 * 1024))
        except (OSError, ValueError):
            continue
        record = KeeperRecord.from_json(data) if isinstance(data, dict) else None
        if record is not None and name == f"{record.keeper_id}.json":
            records.append(record)
    records.sort(key=lambda r: r.started_at)
    return records


def pid_alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    if sys.platform.startswith("linux"):
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            return False
        return state != "Z"
    return True


def is_stale(folder: Path, record: KeeperRecord) -> bool:
    """The keeper is gone: its process is dead, or nothing listens on its socket."""
    if not pid_alive(record.keeper_pid):
        return True
    return record.state != "starting" and not os.path.exists(record.socket_path(folder))


def sweep_stale(folder: Path) -> list[KeeperRecord]:
    """Remove the files of keepers that are gone and SIGKILL what carries their Pi's marker."""
    gone = [record for record in read_records(folder) if is_stale(folder, record)]
    for record in gone:
        remove_files(folder, record.keeper_id)
        signal_pids(marked_pids(record.owner_token), signal.SIGKILL)
    return gone


__all__ = [
    "HELD_SUFFIX",
    "KEEPER_MARKER",
    "MARKER_NAME",
    "RUNTIME_DIR_ENV",
    "KeeperDirError",
    "KeeperRecord",
    "KeeperState",
    "check_private",
    "default_runtime_dir",
    "ensure_private_dir",
    "is_stale",
    "pid_alive",
    "read_records",
    "remove_files",
    "sweep_stale",
    "write_record",
]
