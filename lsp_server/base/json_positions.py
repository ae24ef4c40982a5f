"""Where each value of a JSON document starts, so a settings problem can name its line.

Python's ``json`` module gives positions only for syntax errors. A settings file with a wrong
type (``"reserveTokens": "lots"``) must still point the user at the right line, so this module
scans an already-valid JSON text once and records, for every key path, the position of the value
and of its key. It never raises: on text it does not understand it returns what it found so far.
"""

from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass

KeyPath = tuple[str | int, ...]

_WS = " \t\n\r"


@dataclass(frozen=True)
class TextPosition:
    """0-based line and 0-based column in code points (the ``Finding`` convention)."""

    line: int
    column: int


@dataclass(frozen=True)
class ValueLocation:
    value: TextPosition
    key: TextPosition | None  # position of the member's key (None for array items and the root)


class _Scanner:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 1 if text.startswith("\ufeff") else 0
        self.found: dict[KeyPath, ValueLocation] = {}
        self._line_starts = [0]
        for index, char in enumerate(text):
            if char == "\n":
                self._line_starts.append(index + 1)

    def position(self, offset: int) -> TextPosition:
        low, high = 0, len(self._line_starts) - 1
        while low < high:
            mid = (low + high + 1) // 2
            if self._line_starts[mid] <= offset:
                low = mid
            else:
                high = mid - 1
        return TextPosition(low, offset - self._line_starts[low])

    def skip_ws(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos] in _WS:
            self.pos += 1

    def peek(self) -> str:
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def read_string(self) -> str:
        start = self.pos
        self.pos += 1
        while self.pos < len(self.text):
            char = self.text[self.pos]
            if char == "\\":
                self.pos += 2
                continue
            self.pos += 1
            if char == '"':
                break
        try:
            decoded = json.loads(self.text[start : self.pos])
        except ValueError:
            return ""
        return decoded if isinstance(decoded, str) else ""

    def value(self, path: KeyPath, key_offset: int | None, depth: int = 0) -> None:
        self.skip_ws()
        key_pos = self.position(key_offset) if key_offset is not None else None
        self.found[path] = ValueLocation(self.position(self.pos), key_pos)
        char = self.peek()
        if depth > 500:
            raise ValueError("too deep")
        if char == "{":
            self.pos += 1
            self.skip_ws()
            if self.peek() == "}":
                self.pos += 1
                return
            while True:
                self.skip_ws()
                if self.peek() != '"':
                    raise ValueError("expected a key")
                offset = self.pos
                key = self.read_string()
                self.skip_ws()
                if self.peek() != ":":
                    raise ValueError("expected ':'")
                self.pos += 1
                self.value((*path, key), offset, depth + 1)
                self.skip_ws()
                if self.peek() == ",":
                    self.pos += 1
                    continue
                if self.peek() == "}":
                    self.pos += 1
                    return
                raise ValueError("expected ',' or '}'")
        if char == "[":
            self.pos += 1
            self.skip_ws()
            if self.peek() == "]":
                self.pos += 1
                return
            index = 0
            while True:
                self.value((*path, index), None, depth + 1)
                index += 1
                self.skip_ws()
                if self.peek() == ",":
                    self.pos += 1
                    continue
                if self.peek() == "]":
                    self.pos += 1
                    return
                raise ValueError("expected ',' or ']'")
        if char == '"':
            self.read_string()
            return
        while self.pos < len(self.text) and self.text[self.pos] not in _WS + ",]}":
            self.pos += 1


def locate_values(text: str) -> dict[KeyPath, ValueLocation]:
    """Every key path of a JSON document mapped to where its value (and key) starts."""
    scanner = _Scanner(text)
    with contextlib.suppress(ValueError, IndexError):
        scanner.value((), None)
    return scanner.found


def locate(text: str | None, path: KeyPath) -> TextPosition:
    """Position for a problem at ``path``: the member's key if it has one, else the value.

    Falls back to the nearest located ancestor, then to the start of the file.
    """
    if text is None:
        return TextPosition(0, 0)
    return nearest(locate_values(text), path)


def nearest(found: dict[KeyPath, ValueLocation], path: KeyPath) -> TextPosition:
    """:func:`locate` in locations scanned once (a file with many problems is scanned once, not per problem)."""
    probe = path
    while True:
        hit = found.get(probe)
        if hit is not None:
            return hit.key or hit.value
        if not probe:
            return TextPosition(0, 0)
        probe = probe[:-1]
