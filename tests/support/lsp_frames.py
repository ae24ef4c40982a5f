"""LSP base-protocol framing for tests that talk to the server's stdio byte by byte."""

from __future__ import annotations

import json
from typing import Any


def read_frames(data: bytes) -> list[dict[str, Any]]:
    """The messages of a stream of ``Content-Length``-framed JSON bodies (other headers ignored)."""
    out = []
    while data:
        header, _, rest = data.partition(b"\r\n\r\n")
        length = int(header.split(b"Content-Length:")[1].split(b"\r\n")[0])
        out.append(json.loads(rest[:length]))
        data = rest[length:]
    return out
