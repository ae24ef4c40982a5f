"""Reading Pi session files: lines -> entries, header check, v1/v2 migration (in memory only).

Pi's loader skips blank lines and lines that are not JSON *silently*; we skip the same lines (so
the tree and the projection are Pi's) but report each one with its 1-based line number and a short
reason, because a session that lost a line is exactly what a user opening it wants to know. A
last line without a newline is parsed as Pi parses it and reported as partial (Pi appends the
missing newline when it opens the file; we never write to the user's file). Old sessions (v1/v2)
are migrated the way Pi migrates them, but only in memory, with deterministic ids so reloading
gives the same ids every time.

JSON is parsed with ``JSON.parse``'s rules: ``NaN``/``Infinity`` are rejected (Python's json
accepts them), integers beyond 2**53 become floats as in JavaScript, ``-0`` is negative zero and
``1e999`` is infinity. Complete lines go through orjson first (several times faster than the
standard library, and it shares the key strings of all entries); a line orjson refuses or could
read differently from ``JSON.parse`` (invalid UTF-8, a lone surrogate, a number out of range, 16
or more digits in a row, ``-0``) is read again with the standard library's decoder under the rules
above, so both give the same values (a differential test checks it).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any, Final

import orjson

from lsp_server.findings import Finding, Range, Severity
from lsp_server.fsread import node_error_message
from lsp_server.js.errors import cannot_create, cannot_read, is_primitive
from lsp_server.js.numbers import js_json_integer
from lsp_server.js.strings import js_trim, js_trim_start
from lsp_server.js.values import UNDEFINED
from lsp_server.session.bounds import DEFAULT_LIMITS, SessionReadLimits, line_too_long_reason, open_session
from lsp_server.session.entries import CURRENT_SESSION_VERSION, Entry

NOT_A_SESSION: Final = "Session file is not a valid pi session: {path}"


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


_DECODER: Final = json.JSONDecoder(parse_int=js_json_integer, parse_constant=_reject_constant)


class BadJson:
    __slots__ = ("reason",)

    def __init__(self, reason: str) -> None:
        self.reason = reason


def parse_json(text: str) -> Any | BadJson:
    """``JSON.parse(text)`` or a :class:`BadJson` with a short reason (never raises)."""
    try:
        return _DECODER.decode(text)
    except json.JSONDecodeError as exc:
        return BadJson(f"not valid JSON at column {exc.colno}: {exc.msg}")
    except ValueError as exc:
        return BadJson(f"not valid JSON: {exc}")
    except RecursionError:
        return BadJson("JSON nested too deeply to read")


_KIND_NAMES: Final = {bool: "a boolean", int: "a number", float: "a number", str: "a string", list: "an array"}


@dataclass(frozen=True)
class LineProblem:
    """A line Pi skips or repairs, as a value: 1-based line, a short reason, how serious it is."""

    line: int
    code: str
    reason: str
    severity: Severity = Severity.WARNING

    def to_finding(self, path: str) -> Finding:
        return Finding(path, Range.at(self.line - 1, 0), self.severity, self.code, self.reason)

    def to_json(self) -> dict[str, Any]:
        return {"line": self.line, "code": self.code, "reason": self.reason, "severity": self.severity.label}


@dataclass
class ParsedLines:
    """JSON objects of a chunk of lines, the 1-based line of each, and the lines that were skipped."""

    entries: list[Entry] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)
    problems: list[LineProblem] = field(default_factory=list)
    # Pi's fileEntries: every line that parses as JSON, whatever its type, in order. Only
    # parse_session_text fills it (what Pi-compatible answers start from); the entries above
    # hold the objects alone, and the others are reported as problems.
    values: list[Any] = field(default_factory=list)


def _describe_value(value: Any) -> str:
    if value is None:
        return "null"
    return _KIND_NAMES.get(type(value), "not an object")


# Where orjson's number could differ from JSON.parse's: an integer of 16+ digits (beyond 2**53 it
# must round to a double), or "-0" (an integer 0 for orjson, negative zero for JavaScript). The
# check also hits such text inside strings; those lines just take the slower decoder. It runs on
# the line mapped to its number shape (digits -> "0", ".eE+" -> "e", "-" kept, the rest -> " "),
# so two C-speed ``find``s do it.
_SHAPE: Final = bytes(
    ord("0") if chr(b).isdigit() and b < 128 else b if b == ord("-") else ord("e") if chr(b) in ".eE+" else ord(" ")
    for b in range(256)
)
_LONG_INTEGER: Final = b"0" * 16
_SLOW: Final = object()


def _needs_js_numbers(raw: bytes) -> bool:
    shape = raw.translate(_SHAPE)
    return _LONG_INTEGER in shape or b"-0 " in shape or shape.endswith(b"-0")


def _fast_value(raw: bytes) -> Any:
    """``JSON.parse`` of a complete line through orjson, or ``_SLOW`` when the full rules must decide."""
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return _SLOW  # bad JSON, bad UTF-8, NaN, 1e999, lone surrogates, deep nesting: the slow path says which
    if _needs_js_numbers(raw):
        return _SLOW
    return value


def _accept(value: Any, line: int, out: ParsedLines) -> None:
    if not isinstance(value, dict):
        out.problems.append(
            LineProblem(line, "session/not-an-object", f"line holds {_describe_value(value)}, not an entry object")
        )
        return
    out.entries.append(value)
    out.lines.append(line)


def parse_line(text: str, line: int, out: ParsedLines, *, partial: bool = False) -> None:
    """Parse one physical line into ``out`` (an entry, or a problem; blank lines are ignored)."""
    if not js_trim(text):
        if partial:
            out.problems.append(LineProblem(line, "session/partial-line", "last line is blank but has no newline"))
        return
    value = parse_json(text)
    if isinstance(value, BadJson):
        reason = value.reason
        if text.startswith("\ufeff"):
            reason = "starts with a byte-order mark, which Pi cannot read (the line is skipped)"
        elif partial:
            reason = f"last line is incomplete (no newline at the end; cut off mid-write?): {reason}"
        out.problems.append(LineProblem(line, "session/invalid-json", reason, Severity.ERROR))
        return
    _accept(value, line, out)
    if partial and isinstance(value, dict):
        out.problems.append(
            LineProblem(
                line,
                "session/partial-line",
                "last line has no newline at the end (Pi appends one when it opens the session)",
                Severity.INFORMATION,
            )
        )


def decode_line(raw: bytes, line: int, problems: list[LineProblem]) -> str:
    """UTF-8 with U+FFFD for bad bytes (as Node's decoder), noting the line when that happens."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        problems.append(LineProblem(line, "session/invalid-utf8", "invalid UTF-8 (read with U+FFFD replacements)"))
        return raw.decode("utf-8", errors="replace")


def _line_too_long(line: int, length: int, limit: int) -> LineProblem:
    reason = line_too_long_reason(length, limit)
    return LineProblem(line, "session/line-too-long", reason, Severity.ERROR)


def parse_bytes(
    data: bytes, first_line: int = 1, *, final: bool = True, max_line_bytes: int | None = None
) -> tuple[ParsedLines, int]:
    """Parse the complete lines of ``data``; with ``final`` also the last line if it has no newline.

    Returns the parsed lines and how many bytes were consumed (through the last ``\\n``; all of
    ``data`` when ``final``), so a follower can resume at a line boundary. A line longer than
    ``max_line_bytes`` is not parsed: it becomes a ``session/line-too-long`` problem.
    """
    out = ParsedLines()
    end = data.rfind(b"\n") + 1
    line = first_line
    start = 0
    while start < end:
        newline = data.index(b"\n", start)
        raw = data[start:newline]
        if max_line_bytes is not None and newline - start > max_line_bytes:
            out.problems.append(_line_too_long(line, newline - start, max_line_bytes))
        else:
            value = _fast_value(raw)
            if value is _SLOW:
                parse_line(decode_line(raw, line, out.problems), line, out)
            else:
                _accept(value, line, out)
        start = newline + 1
        line += 1
    if final and end < len(data):
        if max_line_bytes is not None and len(data) - end > max_line_bytes:
            out.problems.append(_line_too_long(line, len(data) - end, max_line_bytes))
        else:
            parse_line(decode_line(data[end:], line, out.problems), line, out, partial=True)
        end = len(data)
    return out, end


def parse_session_text(content: str) -> ParsedLines:
    """Pi's ``parseSessionEntries`` (the whole text trimmed, then split on ``\\n``), with problems.

    Pi keeps any JSON value (``values``); ``entries`` keeps objects only and the rest are reported.
    """
    trimmed = js_trim(content)
    first_line = 1 + content[: len(content) - len(js_trim_start(content))].count("\n")
    out = ParsedLines()
    for offset, text in enumerate(trimmed.split("\n")):
        entries, problems = len(out.entries), len(out.problems)
        parse_line(text, first_line + offset, out)
        if len(out.entries) > entries:
            out.values.append(out.entries[-1])
        elif any(problem.code == "session/not-an-object" for problem in out.problems[problems:]):
            out.values.append(parse_json(text))  # a number, string, array, boolean or null: Pi keeps it
    return out


# --- migration -----------------------------------------------------------------------------------


def migration_id(number: int) -> str:
    """The id a migrated v1 entry gets: ``00000001``, ``00000002``, … in file order.

    Stable across reloads (we never write migrated ids back, so they must not change), and equal
    to the ids Pi gives under the oracle's deterministic UUIDs, so migrated sessions compare equal.
    """
    return f"{number:08x}"


def _version_number(header: Entry | None) -> float:
    """``header?.version ?? 1`` as a JavaScript number (a non-numeric version compares as NaN)."""
    if header is None:
        return 1
    version = header.get("version")
    if version is None:
        return 1
    if isinstance(version, bool):
        return float(version)
    if isinstance(version, (int, float)):
        return version
    if isinstance(version, str):
        try:
            return float(version.strip() or 0)
        except ValueError:
            return float("nan")
    return float("nan")


@dataclass
class Migration:
    """Pi's v1 -> v2 -> v3 migration, applicable to a file read in pieces (a growing session).

    v1 -> v2: every non-header entry gets a fresh id and ``parentId`` = the previous entry's id; a
    compaction's ``firstKeptEntryIndex`` (an index into the parsed entries *including the header*)
    becomes ``firstKeptEntryId``. v2 -> v3: message role ``hookMessage`` becomes ``custom``. The
    header's ``version`` becomes 3. Entries are changed in place (keys added at the end, as Pi's
    assignments add them), never written back to the file.
    """

    from_version: float
    next_number: int = 1
    previous_id: Any = None

    @property
    def needed(self) -> bool:
        return not self.from_version >= CURRENT_SESSION_VERSION

    @classmethod
    def for_header(cls, header: Entry | None) -> Migration:
        return cls(_version_number(header))

    def snapshot(self) -> tuple[int, Any]:
        return self.next_number, self.previous_id

    def restore(self, snapshot: tuple[int, Any]) -> None:
        self.next_number, self.previous_id = snapshot

    def apply(self, file_entries: list[Any], start: int = 0) -> None:
        """Migrate ``file_entries[start:]``; earlier ones were migrated by this same instance.

        Pi's file entries can be any JSON value (``parse_session_text``'s ``values``): a ``null``
        fails as Pi's ``entry.type`` fails, a number, string or boolean where Pi assigns an id
        fails as that assignment does (:class:`~lsp_server.js.errors.JsTypeError`), and an array
        gets an id Pi's JSON never shows (it still takes its place in the id sequence).
        """
        if not self.needed:
            return
        if any(not isinstance(entry, dict) for entry in file_entries[start:]):
            self._apply_values(file_entries, start)
            return
        for index in range(start, len(file_entries)):
            entry = file_entries[index]
            if entry.get("type") == "session":
                if self.from_version < 2:
                    entry["version"] = 2
                if self.from_version < 3:
                    entry["version"] = 3
                continue
            if self.from_version < 2:
                entry["id"] = migration_id(self.next_number)
                self.next_number += 1
                entry["parentId"] = self.previous_id
                self.previous_id = entry["id"]
                if entry.get("type") == "compaction":
                    self._convert_first_kept_index(entry, file_entries)
            message = entry.get("message")
            if (
                self.from_version < 3
                and entry.get("type") == "message"
                and isinstance(message, dict)
                and message.get("role") == "hookMessage"
            ):
                message["role"] = "custom"

    def _apply_values(self, file_entries: list[Any], start: int) -> None:
        """Pi's two passes (v1 -> v2, then v2 -> v3) over values of any JSON type, throwing as Pi throws."""
        array_ids: dict[int, Any] = {}
        if self.from_version < 2:
            for index in range(start, len(file_entries)):
                entry = file_entries[index]
                if entry is None:
                    raise cannot_read(entry, "type")
                if isinstance(entry, dict) and entry.get("type") == "session":
                    entry["version"] = 2
                    continue
                if is_primitive(entry):
                    raise cannot_create(entry, "id")
                new_id = migration_id(self.next_number)
                self.next_number += 1
                if isinstance(entry, list):
                    array_ids[id(entry)] = new_id  # a property on the array: invisible in its JSON
                else:
                    entry["id"] = new_id
                    entry["parentId"] = self.previous_id
                self.previous_id = new_id
                if isinstance(entry, dict) and entry.get("type") == "compaction":
                    self._convert_first_kept_index(entry, file_entries, array_ids)
        if self.from_version < 3:
            for index in range(start, len(file_entries)):
                entry = file_entries[index]
                if entry is None:
                    raise cannot_read(entry, "type")
                if not isinstance(entry, dict):
                    continue
                if entry.get("type") == "session":
                    entry["version"] = 3
                    continue
                message = entry.get("message")
                if (
                    entry.get("type") == "message"
                    and isinstance(message, dict)
                    and message.get("role") == "hookMessage"
                ):
                    message["role"] = "custom"

    @staticmethod
    def _convert_first_kept_index(
        entry: Entry, file_entries: list[Any], array_ids: dict[int, Any] | None = None
    ) -> None:
        index = entry.get("firstKeptEntryIndex", UNDEFINED)
        if isinstance(index, bool) or not isinstance(index, (int, float)):
            return
        if float(index).is_integer() and 0 <= index < len(file_entries):
            target = file_entries[int(index)]
            if isinstance(target, dict):
                if target.get("type") != "session" and "id" in target:
                    entry["firstKeptEntryId"] = target["id"]
            elif isinstance(target, list) and array_ids is not None and id(target) in array_ids:
                entry["firstKeptEntryId"] = array_ids[id(target)]
            # a number, string or boolean has no id: Pi sets undefined, which JSON drops
        del entry["firstKeptEntryIndex"]


def migrate_session_entries(file_entries: list[Any]) -> float | None:
    """Pi's ``migrateSessionEntries`` in place; returns the version migrated from, or ``None``.

    ``file_entries`` may hold any JSON values (Pi's ``fileEntries``); see ``Migration.apply``.
    """
    header = None
    for entry in file_entries:  # Pi's entries.find((e) => e.type === "session")
        if entry is None:
            raise cannot_read(entry, "type")
        if isinstance(entry, dict) and entry.get("type") == "session":
            header = entry
            break
    migration = Migration.for_header(header)
    if not migration.needed:
        return None
    migration.apply(file_entries)
    return migration.from_version


# --- Pi's loadEntriesFromFile ------------------------------------------------------------------


@dataclass
class FileEntries:
    """What Pi's ``loadEntriesFromFile`` sees in a file, plus what it would not tell you.

    ``entries`` is Pi's answer: the parsed objects (header first), or ``[]`` when the file is
    missing, empty or not a session. ``needs_newline`` says Pi would append a ``\\n`` on load.
    """

    path: str
    exists: bool
    entries: list[Entry]
    lines: list[int]
    problems: list[LineProblem]
    needs_newline: bool = False
    error: str | None = None  # why the file is not a session / could not be read

    @property
    def is_session(self) -> bool:
        return bool(self.entries)


def header_problem(entries: list[Entry], path: str) -> str | None:
    """Why ``entries`` is not a Pi session (first object must be a header with a string id)."""
    if not entries:
        return None
    first = entries[0]
    if first.get("type") != "session" or not isinstance(first.get("id"), str):
        return NOT_A_SESSION.format(path=path)
    return None


def read_entries_from_file(path: str, limits: SessionReadLimits = DEFAULT_LIMITS) -> FileEntries:
    """Pi's ``loadEntriesFromFile`` without its side effect (we report, Pi appends the newline).

    Only a regular file within ``limits`` is read (a FIFO or a device is an error, not a wait).
    """
    if not os.path.exists(path):
        return FileEntries(path, False, [], [], [])
    opened = open_session(path, limits)
    if isinstance(opened, str):
        return FileEntries(path, True, [], [], [], error=opened)
    handle, _size = opened
    try:
        with handle:
            data = handle.read(limits.max_bytes + 1)
    except OSError as exc:
        return FileEntries(path, True, [], [], [], error=node_error_message(exc, "read", path))
    parsed, _ = parse_bytes(data, max_line_bytes=limits.max_line_bytes)
    if not parsed.entries:
        error = NOT_A_SESSION.format(path=path) if data else None
        return FileEntries(path, True, [], [], parsed.problems, error=error)
    problem = header_problem(parsed.entries, path)
    if problem is not None:
        return FileEntries(path, True, [], [], parsed.problems, error=problem)
    needs_newline = bool(data) and not data.endswith(b"\n")
    return FileEntries(path, True, parsed.entries, parsed.lines, parsed.problems, needs_newline=needs_newline)


def file_size(path: str) -> int | None:
    try:
        return os.stat(path).st_size
    except OSError:
        return None
