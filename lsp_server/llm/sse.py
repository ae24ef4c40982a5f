"""Server-sent events, line by line (the framing both OpenAI and Anthropic stream in).

:class:`BoundedLines` cuts the decoded body into lines at ``\\n``, ``\\r\\n`` and ``\\r`` (only
those: a JSON string may hold U+2028), holding at most a given number of characters of a line that
has not ended. The parser takes lines without their line ending and returns an event when a blank
line ends one, following the WHATWG rules we need: ``data`` lines are joined with ``\\n``, one space
after the colon is dropped, lines starting with ``:`` are comments, and an event with no data is not
dispatched. ``pending_chars`` says how much an event not yet ended holds, so a server cannot grow
memory with a line or an event that never ends.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final

_LINE_END: Final = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True)
class SseEvent:
    event: str  # "message" when the stream names none
    data: str


class BoundedLines:
    """Decoded text in, complete lines out; a line longer than ``limit`` sets :attr:`overflowed`."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.overflowed = False
        self._rest = ""

    def feed(self, text: str) -> Iterator[str]:
        """The lines ``text`` completes. A ``\\r`` at the very end waits: a ``\\n`` may follow it."""
        buffer = self._rest + text
        start = 0
        for match in _LINE_END.finditer(buffer):
            if match.group() == "\r" and match.end() == len(buffer):
                break
            yield buffer[start : match.start()]
            start = match.end()
        self._rest = buffer[start:]
        if len(self._rest) > self.limit:
            self.overflowed = True
            self._rest = ""

    def flush(self) -> Iterator[str]:
        """The last line when the body ends without a line ending."""
        rest, self._rest = self._rest, ""
        if rest:
            yield rest.removesuffix("\r")


class SseParser:
    def __init__(self) -> None:
        self._event = ""
        self._data: list[str] = []
        self.pending_chars = 0  # characters of data held for the event not yet ended

    def feed_line(self, line: str) -> SseEvent | None:
        """Consume one line; return the event it completes, if any."""
        if line == "":
            return self._dispatch()
        if line.startswith(":"):
            return None
        name, sep, value = line.partition(":")
        if sep and value.startswith(" "):
            value = value[1:]
        if name == "data":
            self._data.append(value)
            self.pending_chars += len(value) + 1
        elif name == "event":
            self._event = value
        # "id" and "retry" do not matter for a single request/response stream.
        return None

    def flush(self) -> SseEvent | None:
        """The last event when the stream ends without a blank line after it."""
        return self._dispatch()

    def _dispatch(self) -> SseEvent | None:
        if not self._data:
            self._event = ""
            return None
        event = SseEvent(self._event or "message", "\n".join(self._data))
        self._event = ""
        self._data = []
        self.pending_chars = 0
        return event
