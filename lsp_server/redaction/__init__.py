"""Keeping keys out of everything pi-context prints, logs, relays or stores.

One redactor serves every place that may show a key: the summarizer's error messages and replies
(:mod:`lsp_server.llm.http_client`), everything relayed from a chat's Pi (:mod:`lsp_server.chat`),
a model's streamed deltas (:class:`StreamRedactor`) and the server's log lines and
``window/logMessage`` (:class:`KeyRing`). A key counts as shown when 8 characters in a row of any of
its forms are (the key, its base64 and base64url), folded for case, whitespace and
percent-encoding (:mod:`.forms`, :mod:`.folding`); they are found in one linear scan
(:mod:`.matching`). ``docs/llm.md`` ("Redaction") describes what is covered and what is not.
"""

from __future__ import annotations

from lsp_server.redaction.keyring import KeyRing, RedactingFormatter
from lsp_server.redaction.redactor import Redactor
from lsp_server.redaction.secret import REDACTED, Secret
from lsp_server.redaction.stream import StreamRedactor

__all__ = ["REDACTED", "KeyRing", "RedactingFormatter", "Redactor", "Secret", "StreamRedactor"]
