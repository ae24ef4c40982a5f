"""Server-sent events, line by line (the framing both OpenAI and Anthropic stream in).

The parser takes lines without their line ending (httpx's ``aiter_lines`` already splits on
``\\n``, ``\\r\\n`` and ``\\r``) and returns an event when a blank line ends one, following the
WHATWG rules we need: ``data`` lines are joined with ``\\n``, one space after the colon is dropped,
lines starting with ``:`` are comments, and an event with no data is not dispatched.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SseEvent:
    event: str  # "message" when the stream names none
    data: str


class SseParser:
    def __init__(self) -> None:
        self._event = ""
        self._data: list[str] = []

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
        return event
