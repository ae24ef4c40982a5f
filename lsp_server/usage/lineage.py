"""A request a fork or clone copied from its parent is counted once, in the session that made it.

Pi's ``/fork`` and ``/clone`` (``createBranchedSession``) write the branch they copy into a new file
whose header names the old one (``parentSession``), each entry with its own ``id`` and ``timestamp``;
``pi --fork`` (``forkFrom``) copies every entry the same way. A naive sum over the files counts the
parent's paid requests once per copy. Here a request's identity is its ``(id, timestamp)`` pair
(:attr:`~.records.UsageRecord.key`), and among the sessions holding the same pair the **owner** is

1. the one that is an ancestor of the others through ``parentSession`` (the parent, the grandparent);
2. when no header links them (a parent in between was deleted), the session created first (the
   header's ``timestamp``: a copy is always made after its original), then the path.

Only the owner counts the request. A session whose ``parentSession`` is outside the folders read is
still looked at (its records, not counted) so that a fork into another project does not count its
parent's turns as its own; a parent that no longer exists cannot be looked at, and then the copy is
the only record left of those requests and counts them. The chain is followed at most
:data:`MAX_CHAIN` files up and never twice through a file (a loop of headers ends).
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Final

from lsp_server.usage.reading import FileRead
from lsp_server.usage.records import UsageRecord

MAX_CHAIN: Final = 1000


def parent_path(session_path: str, parent: str) -> str:
    """A header's ``parentSession`` as an absolute, normalized path (Pi writes it resolved)."""
    joined = parent if os.path.isabs(parent) else os.path.join(os.path.dirname(session_path), parent)
    return os.path.normpath(joined)


@dataclass
class Attribution:
    """Which records each session counts, and how many it holds that another session counts."""

    counted: dict[str, list[UsageRecord]] = field(default_factory=dict)
    shared: dict[str, int] = field(default_factory=dict)  # session -> its requests counted elsewhere
    outside: dict[str, str] = field(default_factory=dict)  # ancestors read that are not in the report
    notes: list[str] = field(default_factory=list)


def attribute(reads: Mapping[str, FileRead], read_outside: Callable[[str], FileRead]) -> Attribution:
    """Decide the owner of every request of the sessions in ``reads`` (path -> what was read).

    ``read_outside(path)`` reads an ancestor that is not in ``reads`` (through the same cache).
    """
    sessions: dict[str, FileRead] = {path: read for path, read in reads.items() if read.head is not None}
    result = Attribution()
    ancestors: dict[str, list[str]] = {}
    for path in list(sessions):
        chain: list[str] = []
        seen = {path}
        current = path
        while len(chain) < MAX_CHAIN:
            head = sessions[current].head
            parent = head.parent if head is not None else None
            if parent is None:
                break
            up = parent_path(current, parent)
            if up in seen:
                result.notes.append(f"{path}: the parentSession headers form a loop at {up}")
                break
            if up not in sessions:
                if not os.path.exists(up):
                    break
                outside = read_outside(up)
                if outside.head is None:
                    break
                sessions[up] = outside
                result.outside[up] = current
            seen.add(up)
            chain.append(up)
            current = up
        ancestors[path] = chain

    holders: dict[tuple[str, str], list[str]] = {}
    first: dict[tuple[str, str], str] = {}
    for path, read in sessions.items():
        for record in (*read.records, *read.partial):
            entry_id, entry_time = record[0], record[1]  # the key, without the property's call (200,000 times)
            if entry_id is None or entry_time is None:
                continue
            key = (entry_id, entry_time)
            owner = first.setdefault(key, path)
            if owner != path:
                held = holders.setdefault(key, [owner])
                if held[-1] != path:
                    held.append(path)

    def lineage_of(path: str) -> set[str]:
        if path not in ancestors:  # an ancestor read from outside: its own chain, as far as it is known
            chain: list[str] = []
            current = path
            while current in sessions and len(chain) < MAX_CHAIN:
                head = sessions[current].head
                if head is None or head.parent is None:
                    break
                up = parent_path(current, head.parent)
                if up in chain or up == path:
                    break
                chain.append(up)
                current = up
            ancestors[path] = chain
        return set(ancestors[path])

    def rank(path: str) -> tuple[float, str]:
        head = sessions[path].head
        created = head.created_ms if head is not None and head.created_ms is not None else math.inf
        return (created, path)

    owner_of: dict[tuple[str, str], str] = {}
    for key, held in holders.items():
        lineages = {path: lineage_of(path) for path in held}
        tops = [path for path in held if not any(other != path and other in lineages[path] for other in held)]
        owner_of[key] = min(tops or held, key=rank)

    for path, read in reads.items():
        if read.head is None:
            continue
        counted: list[UsageRecord] = []
        shared = 0
        for record in (*read.records, *read.partial):
            entry_id, entry_time = record[0], record[1]
            if (
                owner_of
                and entry_id is not None
                and entry_time is not None
                and owner_of.get((entry_id, entry_time), path) != path
            ):
                shared += 1
                continue
            counted.append(record)
        result.counted[path] = counted
        result.shared[path] = shared
    return result
