"""How the CLI writes to its terminal or pipe, so that no text in a user's file can make it crash.

Session files come from JSON, and JSON can spell a lone surrogate (``"\\ud800"``) that no UTF-8
stream can encode. Python would raise ``UnicodeEncodeError`` in the middle of printing a report,
after the work was done (for ``compact``: after the entry was written). We write UTF-8 with
``backslashreplace`` instead: a lone surrogate shows as ``\\ud800``, which inside a JSON string is
exactly the escape JavaScript's ``JSON.stringify`` writes for it, so ``--json`` output stays valid
JSON and plain output stays readable.
"""

from __future__ import annotations

import io
import sys


def configure_streams() -> None:
    """Make stdout and stderr UTF-8 with ``backslashreplace`` for what UTF-8 cannot encode."""
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(encoding="utf-8", errors="backslashreplace")
