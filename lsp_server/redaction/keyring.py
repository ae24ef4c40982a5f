"""The keys a long-running process has learned, and its log lines redacted with them.

The language server learns keys as it goes: each chat's (the values its Pi may authenticate with)
and the summarizer's. Whatever it logs (``--log-file``, stderr, which the editor shows as the
server's output channel, and ``window/logMessage``) may quote what Pi or a model server said, so
every log line is redacted with all of them: :class:`RedactingFormatter` on the log handler, and
the server's ``window/logMessage`` through :meth:`KeyRing.redact`.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable

from lsp_server.redaction.redactor import Redactor
from lsp_server.redaction.secret import Secret


class KeyRing:
    """A growing set of keys and the redactor for all of them (rebuilt when one is added)."""

    def __init__(self) -> None:
        self._values: set[str] = set()
        self._lock = threading.Lock()
        self.redactor = Redactor()

    def add(self, secrets: Iterable[Secret | str | None]) -> None:
        values = {secret.reveal() if isinstance(secret, Secret) else secret for secret in secrets}
        with self._lock:
            new = {value for value in values if value} - self._values
            if new:
                self._values |= new
                self.redactor = Redactor(self._values)  # one assignment: a reader sees the old or the new

    def redact(self, text: str) -> str:
        return self.redactor.text(text)


class RedactingFormatter(logging.Formatter):
    """A formatter whose every line (message, arguments and traceback) has the ring's keys replaced."""

    def __init__(self, keys: KeyRing, fmt: str | None = None) -> None:
        super().__init__(fmt)
        self.keys = keys

    def format(self, record: logging.LogRecord) -> str:
        return self.keys.redact(super().format(record))
