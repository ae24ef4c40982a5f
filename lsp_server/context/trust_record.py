"""Recording a project-trust decision in Pi's trust store, the way Pi's ``/trust`` does.

Pi keeps saved decisions in ``<agentDir>/trust.json`` (``core/trust-manager.js``,
``ProjectTrustStore.set``): under a lock (proper-lockfile's ``lockSync`` on the folder with
``lockfilePath: trust.json.lock``, which is a directory created with ``mkdir``), it reads the store,
removes every key naming the folder (``pathsEqual``), sets ``<canonical folder>: true|false``, and
writes the whole object back with its keys sorted (``JSON.stringify(sorted, null, 2) + "\\n"``).
pi-context records the chat's Trust action exactly so: the same key (the folder's real path), the
same bytes, the same lock, so a Pi starting at the same moment reads either the old or the new store
and never half of one. Only the write differs: the new text is written beside the store and renamed
over it, so a failure leaves the old store whole.

A store Pi cannot read (bad JSON, a value that is not ``true``/``false``/``null``) is not rewritten:
Pi would stop with an error on it, and the user's file is theirs to fix; the refusal names it.
"""

from __future__ import annotations

import contextlib
import errno
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Final

from lsp_server.base.paths import canonicalize_path, paths_equal, resolve_path
from lsp_server.context.trust import read_trust_store, trust_store_path
from lsp_server.js.json import js_json_stringify
from lsp_server.js.strings import js_sorted

LOCK_SUFFIX: Final = ".lock"
LOCK_ATTEMPTS: Final = 10  # proper-lockfile as Pi calls it: ten tries, 20 ms apart
LOCK_DELAY_S: Final = 0.02
LOCK_STALE_S: Final = 10.0  # proper-lockfile's default ``stale``: an older lock was left by a dead process


@dataclass(frozen=True)
class TrustRecorded:
    """The decision written: the store's path and the key (the folder's canonical path)."""

    store_path: str
    key: str
    decision: bool


class TrustStoreLocked(Exception):
    """Another process holds Pi's trust-store lock (Pi itself, saving a decision)."""


def trust_key(cwd: str) -> str:
    """The key Pi saves a folder under: ``canonicalizePath(resolvePath(cwd))``."""
    return canonicalize_path(resolve_path(cwd))


def trust_store_text(entries: dict[str, bool | None]) -> str:
    """The store as Pi writes it: keys in JavaScript's sort order, ``true``/``false``/``null`` only, 2-space JSON."""
    ordered = {key: entries[key] for key in js_sorted(entries) if entries[key] in (True, False, None)}
    return js_json_stringify(ordered, indent=2) + "\n"


@contextlib.contextmanager
def _store_lock(store_path: str, sleep: Callable[[float], None] = time.sleep) -> Iterator[None]:
    """proper-lockfile's ``lockSync`` as Pi uses it: ``mkdir <store>.lock``; a lock older than 10 s is stale."""
    lock = store_path + LOCK_SUFFIX
    os.makedirs(os.path.dirname(store_path), exist_ok=True)
    for attempt in range(1, LOCK_ATTEMPTS + 1):
        try:
            os.mkdir(lock)
            break
        except FileExistsError:
            with contextlib.suppress(OSError):
                if time.time() - os.stat(lock).st_mtime > LOCK_STALE_S:
                    os.rmdir(lock)  # left by a process that died holding it, as proper-lockfile decides
                    continue
            if attempt == LOCK_ATTEMPTS:
                raise TrustStoreLocked(f"{store_path} is locked by another process ({lock} exists)") from None
            sleep(LOCK_DELAY_S)
    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            os.rmdir(lock)


def record_trust(agent_dir: str, cwd: str, decision: bool = True) -> TrustRecorded | str:
    """Save ``decision`` for the folder ``cwd`` in ``<agent_dir>/trust.json`` as Pi does; or why not (a sentence).

    Never raises for the file system: an unreadable store, a lock held too long or a failed write
    come back as one sentence naming the store.
    """
    store_path = trust_store_path(agent_dir)
    key = trust_key(cwd)
    try:
        with _store_lock(store_path):
            store = read_trust_store(agent_dir)
            if store.error is not None:
                return f"{store.error}; fix or remove it, then trust the project again"
            entries = {k: v for k, v in store.entries.items() if not paths_equal(k, key)}
            entries[key] = decision
            temporary = f"{store_path}.{os.getpid()}.tmp"
            try:
                with open(temporary, "w", encoding="utf-8", newline="") as out:
                    out.write(trust_store_text(entries))
                    out.flush()
                    os.fsync(out.fileno())
                os.replace(temporary, store_path)
            finally:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(temporary)
    except TrustStoreLocked as exc:
        return f"{exc}; try again in a moment"
    except OSError as exc:
        reason = exc.strerror or errno.errorcode.get(exc.errno or 0, str(exc))
        return f"could not write {store_path}: {reason}"
    return TrustRecorded(store_path, key, decision)
