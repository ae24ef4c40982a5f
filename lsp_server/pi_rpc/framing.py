"""Pi's RPC framing: one JSON object per LF-terminated line, split on ``\\n`` only.

Pi writes ``JSON.stringify(record) + "\\n"`` to stdout. U+2028 and U+2029 are legal inside JSON
strings, so a splitter that knows Unicode line breaks (Node's ``readline``, Python's
``str.splitlines``) cuts a record in half; this one looks at the byte ``0x0A`` and nothing else. A
``\\r`` just before it is dropped (CRLF is accepted on input as Pi accepts it).

Reading must never stop (Pi blocks when its stdout pipe fills), and memory must stay bounded, so a
line longer than ``max_line_bytes`` is not buffered: its bytes are dropped as they arrive and one
:class:`FramingProblem` reports it when its newline comes. The first bytes are kept, because a
response's ``id`` comes first (``{"id":"…","type":"response",…}``) and lets the caller fail the
request that waited for it instead of hanging.

The splitter is a plain object (bytes in, records and problems out) so it is tested without a
process.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Final, Literal

DEFAULT_MAX_LINE_BYTES: Final = 64 * 1024 * 1024  # get_messages/get_entries of a long session is one line
PREVIEW_BYTES: Final = 200  # kept of a bad or over-long line, for the message and the id sniff

ProblemKind = Literal["not-json", "not-an-object", "too-long", "too-deep"]

_RESPONSE_ID = re.compile(rb'^\{"id":"((?:[^"\\]|\\.){1,200})","type":"response"')


@dataclass(frozen=True)
class FramingProblem:
    """A line that is not a record: reported, never raised, so reading goes on."""

    kind: ProblemKind
    size: int  # bytes of the line, without the newline
    preview: str  # its first bytes, decoded with replacement characters
    detail: str = ""
    response_id: str | None = None  # for an over-long or over-deep response: the id it answered

    @property
    def message(self) -> str:
        what = {
            "not-json": "a line that is not JSON",
            "not-an-object": "a JSON line that is not an object",
            "too-long": "a line longer than the limit",
            "too-deep": "a line nested deeper than this reader can parse",
        }[self.kind]
        tail = f": {self.detail}" if self.detail else ""
        return f"Pi wrote {what} ({self.size} bytes){tail}"


Frame = dict[str, Any] | FramingProblem


def encode_record(record: dict[str, Any]) -> bytes:
    """One command as Pi reads it: compact JSON, UTF-8, one ``\\n``.

    ``ensure_ascii`` escapes U+2028/U+2029 (and everything else non-ASCII), so what we write can
    never be split early even by a reader that gets this wrong.
    """
    return json.dumps(record, ensure_ascii=True, separators=(",", ":"), allow_nan=False).encode("ascii") + b"\n"


class LineSplitter:
    """Feeds bytes in arrival order; returns the complete frames found so far, in order."""

    def __init__(self, max_line_bytes: int = DEFAULT_MAX_LINE_BYTES) -> None:
        if max_line_bytes < 1:
            raise ValueError("max_line_bytes must be positive")
        self.max_line_bytes = max_line_bytes
        self._buffer = bytearray()
        self._skipping: bytearray | None = None  # preview of the over-long line being dropped
        self._skipped = 0  # its bytes so far
        self._skipped_cr = False  # its last byte so far is a \r (not counted if the newline follows)

    @property
    def buffered(self) -> int:
        """Bytes held for an unfinished line (never more than ``max_line_bytes``)."""
        return len(self._buffer)

    def feed(self, data: bytes) -> list[Frame]:
        frames: list[Frame] = []
        start = 0
        if self._skipping is not None:
            end = data.find(b"\n")
            if end < 0:
                self._skip(data)
                return frames
            self._skip(data[:end])
            frames.append(self._too_long())
            start = end + 1
        while True:
            end = data.find(b"\n", start)
            if end < 0:
                break
            if self._buffer:
                self._buffer += data[start:end]
                line = bytes(self._buffer)
                self._buffer.clear()
            else:
                line = data[start:end]
            frames.extend(self._line(line))
            start = end + 1
        rest = data[start:]
        if len(self._buffer) + len(rest) > self.max_line_bytes:
            self._skipping = bytearray()
            self._skipped = 0
            self._skip(bytes(self._buffer))
            self._skip(rest)
            self._buffer.clear()
        else:
            self._buffer += rest
        return frames

    def finish(self) -> list[Frame]:
        """End of stream: a last line without its newline is still a record (or a problem)."""
        if self._skipping is not None:
            return [self._too_long()]
        line = bytes(self._buffer)
        self._buffer.clear()
        return self._line(line)

    def _line(self, line: bytes) -> list[Frame]:
        if line.endswith(b"\r"):
            line = line[:-1]
        if not line.strip():
            return []
        if len(line) > self.max_line_bytes:
            return [_problem("too-long", line, "", response_id=sniff_response_id(line))]
        try:
            value = json.loads(line.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as error:
            return [_problem("not-json", line, str(error))]
        except RecursionError:  # JavaScript reads deeper nesting than Python's parser (a model's tool arguments)
            return [_problem("too-deep", line, "", response_id=sniff_response_id(line))]
        if not isinstance(value, dict):
            return [_problem("not-an-object", line, type(value).__name__)]
        return [value]

    def _skip(self, data: bytes) -> None:
        assert self._skipping is not None
        room = PREVIEW_BYTES - len(self._skipping)
        if room > 0:
            self._skipping += data[:room]
        self._skipped += len(data)
        if data:
            self._skipped_cr = data.endswith(b"\r")

    def _too_long(self) -> FramingProblem:
        assert self._skipping is not None
        preview = bytes(self._skipping)
        size = self._skipped - (1 if self._skipped_cr else 0)
        self._skipping = None
        self._skipped = 0
        self._skipped_cr = False
        return FramingProblem(
            "too-long",
            size,
            _preview(preview),
            f"limit {self.max_line_bytes} bytes",
            sniff_response_id(preview),
        )


def _problem(kind: ProblemKind, line: bytes, detail: str, response_id: str | None = None) -> FramingProblem:
    return FramingProblem(kind, len(line), _preview(line), detail, response_id)


def _preview(data: bytes) -> str:
    return data[:PREVIEW_BYTES].decode("utf-8", errors="replace")


def sniff_response_id(prefix: bytes) -> str | None:
    """The id of a response whose line starts the way Pi writes responses, else None."""
    match = _RESPONSE_ID.match(prefix)
    if match is None:
        return None
    try:
        value = json.loads(b'"' + match.group(1) + b'"')
    except ValueError:
        return None
    return value if isinstance(value, str) else None
