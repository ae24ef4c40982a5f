"""What a session file holds that no Pi release pi-context knows writes: read as far as it goes, said once.

A session written by a newer Pi than every release of :data:`lsp_server.vocabulary.pi_releases.RELEASES` may have
a header ``version`` above :data:`~lsp_server.session.raw.CURRENT_SESSION_VERSION`, entry types the
reader has no model for, keys on known entry types that Pi 1.6.0 does not write (a ``retainedTail``
on a compaction entry) or message roles it does not know. The reader already keeps all of it (unknown
entries and keys stay as they are, never sent to the model; pi-context never rewrites a line); this
module lists what is new so that one finding (``session/newer-pi``) says it, at the first line where it
appears, and the lens that reads the file goes on.

Bounded: each entry is looked at once as the file grows (:class:`NoveltyScan`), at most
:data:`LINES_SHOWN` lines named per item and :data:`ITEMS_SHOWN` items named in the message.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from lsp_server.base.findings import Finding, Range, Severity
from lsp_server.session.entries import _MESSAGE_ROLES, ENTRY_MODELS
from lsp_server.session.raw import CURRENT_SESSION_VERSION, Entry
from lsp_server.vocabulary.pi_releases import NEWEST

CODE: Final = "session/newer-pi"
LINES_SHOWN: Final = 3
ITEMS_SHOWN: Final = 6


def _known_keys() -> dict[str, frozenset[str]]:
    """Each entry type's keys as Pi 1.6.0 writes them (the entry models' camelCase names)."""
    known: dict[str, frozenset[str]] = {}
    for kind, model in ENTRY_MODELS.items():
        known[kind] = frozenset(info.alias or name for name, info in model.model_fields.items())
    return known


# Keys older Pi releases wrote that Pi 1.6.0 no longer does (Pi's own test sessions hold them): old, not new.
OLDER_KEYS: Final[dict[str, frozenset[str]]] = {
    "session": frozenset({"provider", "modelId", "thinkingLevel", "branchedFrom"}),
}
KNOWN_KEYS: Final = {kind: keys | OLDER_KEYS.get(kind, frozenset()) for kind, keys in _known_keys().items()}
KNOWN_ROLES: Final = frozenset(_MESSAGE_ROLES)


@dataclass
class Novelty:
    """What is new in one file, with the 1-based lines where each item appears (the first few)."""

    header_version: Any = None  # the header's version when it is above the one pi-context knows
    header_line: int = 1
    entry_types: dict[str, list[int]] = field(default_factory=dict)
    fields: dict[tuple[str, str], list[int]] = field(default_factory=dict)  # (entry type, key) -> lines
    roles: dict[str, list[int]] = field(default_factory=dict)

    @property
    def found(self) -> bool:
        return self.header_version is not None or bool(self.entry_types or self.fields or self.roles)

    @property
    def first_line(self) -> int:
        lines = [
            line for group in (self.entry_types, self.fields, self.roles) for found in group.values() for line in found
        ]
        if self.header_version is not None:
            lines.append(self.header_line)
        return min(lines, default=1)

    def items(self) -> list[str]:
        """What is new, in words, file order within each kind."""
        out: list[str] = []
        if self.header_version is not None:
            out.append(f"session version {self.header_version} (pi-context knows up to {CURRENT_SESSION_VERSION})")
        out += [f"entries of type '{kind}' ({_lines(lines)})" for kind, lines in self.entry_types.items()]
        out += [f"'{key}' on {kind} entries ({_lines(lines)})" for (kind, key), lines in self.fields.items()]
        out += [f"messages with role '{role}' ({_lines(lines)})" for role, lines in self.roles.items()]
        return out

    def message(self) -> str:
        items = self.items()
        shown = ", ".join(items[:ITEMS_SHOWN]) + (
            f" and {len(items) - ITEMS_SHOWN} more" if len(items) > ITEMS_SHOWN else ""
        )
        return (
            f"Written by a newer Pi than pi-context knows (its newest is Pi {NEWEST.version}): {shown}. "
            "Read as far as it goes: what is new is kept as written and left out of the context counts and "
            "the projected request."
        )

    def to_finding(self, path: str) -> Finding:
        return Finding(path, Range.at(self.first_line - 1, 0), Severity.WARNING, CODE, self.message())


def _lines(lines: Sequence[int]) -> str:
    return ("line " if len(lines) == 1 else "lines ") + ", ".join(str(line) for line in lines)


def _note(group: dict[Any, list[int]], key: Any, line: int) -> None:
    found = group.setdefault(key, [])
    if len(found) < LINES_SHOWN:
        found.append(line)


def session_novelty(
    header: Entry | None, entries: Sequence[Entry], lines: Sequence[int], header_line: int = 1
) -> Novelty | None:
    """What no known Pi writes, in the file's header and entries (``lines``: each entry's 1-based line).

    Only a current-version session is looked through: an older one (v1, v2) is old by definition, and
    what it holds that Pi 1.6.0 does not write is older, not newer.
    """
    scan = NoveltyScan()
    return scan.update(header, entries, lines, header_line)


class NoveltyScan:
    """:func:`session_novelty` kept current as a session file grows: each entry is looked at once.

    The reader only appends (a partial last line may be taken back and read again, and a rewritten
    file is read from scratch into new lists): while the header and the entries scanned so far are the
    same objects, only the entries after them are looked at; anything else starts over.
    """

    def __init__(self) -> None:
        self._header: Entry | None = None
        self._entries: Sequence[Entry] | None = None
        self._scanned = 0
        self._last: object = None
        self._novelty: Novelty | None = None

    def update(
        self, header: Entry | None, entries: Sequence[Entry], lines: Sequence[int], header_line: int = 1
    ) -> Novelty | None:
        same = (
            header is self._header
            and entries is self._entries
            and self._scanned <= len(entries)
            and (self._scanned == 0 or entries[self._scanned - 1] is self._last)
        )
        if not same:
            self._header, self._entries, self._scanned, self._last = header, entries, 0, None
            self._novelty = _start(header, header_line)
        novelty = self._novelty
        if novelty is not None:
            for index in range(self._scanned, len(entries)):
                _look_at(novelty, entries[index], lines[index] if index < len(lines) else 0)
        self._scanned = len(entries)
        self._last = entries[-1] if entries else None
        return novelty if novelty is not None and novelty.found else None


def _start(header: Entry | None, header_line: int) -> Novelty | None:
    """A scan of a current-version session (``None``: not one, nothing to look for), the header looked at."""
    if not isinstance(header, dict):
        return None
    version = header.get("version")
    if not isinstance(version, (int, float)) or isinstance(version, bool) or version < CURRENT_SESSION_VERSION:
        return None
    novelty = Novelty(header_line=header_line)
    if version > CURRENT_SESSION_VERSION:
        novelty.header_version = version
    for key in header:
        if key not in KNOWN_KEYS["session"]:
            _note(novelty.fields, ("session header", key), header_line)
    return novelty


def _look_at(novelty: Novelty, entry: Entry, line: int) -> None:
    if not isinstance(entry, dict):
        return  # a line that is no object is reported by the reader (session/not-an-object)
    kind = entry.get("type")
    if not isinstance(kind, str):
        return
    known = KNOWN_KEYS.get(kind)
    if known is None:
        _note(novelty.entry_types, kind, line)
        return
    for key in entry:
        if key not in known:
            _note(novelty.fields, (kind, key), line)
    if kind == "message":
        message = entry.get("message")
        role = message.get("role") if isinstance(message, dict) else None
        if isinstance(role, str) and role not in KNOWN_ROLES:
            _note(novelty.roles, role, line)
