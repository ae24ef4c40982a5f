"""The durable cursor of an OTLP export: which requests a collector has already accepted.

A state file per endpoint holds one line per request sent, the 32 hex digits of its trace id (derived
from the request's identity, :func:`~.otlp.record_ids`). After the collector accepts a batch its ids are
appended and the file is synced (``fsync``) before the next batch goes, so after a restart, a crash or
a ``kill`` each request already accepted is skipped. A line cut off by a crash is ignored (its request
is sent again with the same ids, which a backend can recognize); a line that is not 32 hex digits is
ignored too. The cursor only ever grows (33 bytes a request).

Default place: ``$XDG_STATE_HOME/pi-context/otlp-<16 hex digits of the endpoint URL's hash>.sent``
(``~/.local/state/...`` without the variable), so two collectors keep two cursors; ``--otlp-state``
names another file. docs/usage.md.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterable, Mapping
from typing import Final

_ID: Final = re.compile(r"[0-9a-f]{32}")


def default_cursor_path(env: Mapping[str, str], url: str) -> str:
    base = env.get("XDG_STATE_HOME") or os.path.join(env.get("HOME") or os.path.expanduser("~"), ".local", "state")
    digest = hashlib.sha256(url.encode("utf-8")).hexdigest()[:16]
    return os.path.join(base, "pi-context", f"otlp-{digest}.sent")


class SentCursor:
    """The ids already accepted by the collector, read from and appended to one state file."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.sent: set[str] = set()
        self.ignored_lines = 0

    def load(self) -> None:
        try:
            with open(self.path, encoding="ascii", errors="replace") as handle:
                for line in handle:
                    text = line.rstrip("\n")
                    if line.endswith("\n") and _ID.fullmatch(text):
                        self.sent.add(text)
                    elif text:
                        self.ignored_lines += 1
        except FileNotFoundError:
            return

    def __contains__(self, record_id: str) -> bool:
        return record_id in self.sent

    def add(self, record_ids: Iterable[str]) -> None:
        """Remember ids the collector accepted: appended, then synced to disk before returning."""
        fresh = [record_id for record_id in record_ids if record_id not in self.sent]
        if not fresh:
            return
        folder = os.path.dirname(self.path) or "."
        os.makedirs(folder, exist_ok=True)
        needs_newline = False
        try:
            with open(self.path, "rb") as handle:
                handle.seek(0, os.SEEK_END)
                if handle.tell() > 0:
                    handle.seek(-1, os.SEEK_END)
                    needs_newline = handle.read(1) != b"\n"  # a line cut off by a crash: start a new one
        except FileNotFoundError:
            pass
        data = ("\n" if needs_newline else "") + "".join(f"{record_id}\n" for record_id in fresh)
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            view = memoryview(data.encode("ascii"))
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            os.close(fd)
        self.sent.update(fresh)
