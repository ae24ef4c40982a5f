"""Reading Pi session files: lines -> entries, header check, v1/v2 migration (in memory only).

Pi's loader skips blank lines and lines that are not JSON *silently*; we skip the same lines (so
the tree and the projection are Pi's) but report each one with its 1-based line number and a short
reason, because a session that lost a line is exactly what a user opening it wants to know. A
last line without a newline is parsed as Pi parses it and reported as partial (Pi appends the
missing newline when it opens the file; we never write to the user's file). Old sessions (v1/v2)
are migrated the way Pi migrates them, but only in memory, with deterministic ids so reloading
gives the same ids every time.

A line that is JSON but not an object (``42``, ``[1]``, ``"x"``, ``true``, ``null``) is reported
too, yet Pi keeps it: its text parser keeps every such value, its file loader every truthy one
(:class:`NonObject`). The Pi-compatible answers keep them where Pi does, because they matter: one
before the header makes the file no session, and one as the last line is Pi's leaf.

Files are parsed as they are read (:func:`parse_stream`, in chunks), never held whole in memory.

JSON is parsed with ``JSON.parse``'s rules: ``NaN``/``Infinity`` are rejected (Python's json
accepts them), integers beyond 2**53 become floats as in JavaScript, ``-0`` is negative zero and
``1e999`` is infinity. Complete lines go through orjson first (several times faster than the
standard library, and it shares the key strings of all entries); a line orjson refuses (invalid
UTF-8, a lone surrogate, a number out of range) or could read differently from ``JSON.parse`` (an
integer literal of 16 or more digits, ``-0``) is read again with the standard library's decoder
under the rules above, so both give the same values (a differential test checks it). Fractions
take the fast path whatever their length (orjson rounds decimals to the nearest double as
JavaScript does: Pi's cost floats such as ``0.013875000000000002``), and so do digits inside
strings. Every reader goes through these lines: the server's and the CLI's (:func:`parse_stream`),
and ``debug eval``'s Pi-style text reader (:func:`parse_session_text`, :func:`read_session_values`).
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, BinaryIO, Final, cast

import orjson

from lsp_server.base.findings import Finding, Range, Severity
from lsp_server.base.fsread import node_error_message
from lsp_server.base.gcpause import collector_paused
from lsp_server.base.native import native_module
from lsp_server.js.errors import cannot_create, cannot_read, is_primitive
from lsp_server.js.json import JS_JSON
from lsp_server.js.strings import js_trim, js_trim_start
from lsp_server.js.values import UNDEFINED, JsArray, js_get, js_truthy
from lsp_server.session.bounds import (
    DEFAULT_LIMITS,
    READ_CHUNK_BYTES,
    TAIL_BYTES,
    RawLine,
    SessionReadLimits,
    line_too_long_reason,
    open_session,
    too_large_message,
)
from lsp_server.session.raw import CURRENT_SESSION_VERSION, Entry

NOT_A_SESSION: Final = "Session file is not a valid pi session: {path}"


_DECODER: Final = JS_JSON


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


@dataclass(frozen=True)
class NonObject:
    """A line holding a JSON value that is not an object, which Pi's file loader keeps all the same.

    Pi's ``loadEntriesFromFile`` keeps every line that parses to a *truthy* value (``42``, ``[1]``,
    ``"text"``, ``true``), so such a line takes a place among Pi's file entries: it can stand where
    the header should be, or be the last entry (Pi's leaf, which then has no id). ``position`` is
    how many objects of the same :class:`ParsedLines` came before it, ``problem`` the index of its
    ``session/not-an-object`` report in that :class:`ParsedLines`' problems.
    """

    position: int
    line: int
    value: Any
    problem: int = -1


@dataclass
class ParsedLines:
    """JSON objects of a chunk of lines, the 1-based line of each, and the lines that were skipped."""

    entries: list[Entry] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)
    problems: list[LineProblem] = field(default_factory=list)
    # Pi's fileEntries from parseSessionEntries: every line that parses as JSON, whatever its type,
    # in order. Only parse_session_text fills it (what the oracle's jsonl answers start from).
    values: list[Any] = field(default_factory=list)
    # The non-objects Pi's loadEntriesFromFile keeps (truthy ones), where they stand among the objects.
    others: list[NonObject] = field(default_factory=list)
    # Fill ``values`` (Pi's parseSessionEntries keeps every JSON value: objects, and the rest, falsy too).
    keep_values: bool = False

    def file_entries(self) -> tuple[list[Any], list[int]]:
        """Pi's ``loadEntriesFromFile`` entries (objects and kept non-objects, file order) and their lines."""
        if not self.others:
            return list(self.entries), list(self.lines)
        values: list[Any] = []
        lines: list[int] = []
        start = 0
        for other in self.others:
            values += self.entries[start : other.position]
            lines += self.lines[start : other.position]
            values.append(other.value)
            lines.append(other.line)
            start = other.position
        values += self.entries[start:]
        lines += self.lines[start:]
        return values, lines


def _describe_value(value: Any) -> str:
    if value is None:
        return "null"
    return _KIND_NAMES.get(type(value), "not an object")


# Where orjson's number could differ from JSON.parse's: an integer literal of 16+ digits (beyond
# 2**53 it must round to a double), or "-0" (an integer 0 for orjson, negative zero for JavaScript).
# The C module (``_native.c``) tokenizes each line in one pass. Without it, the Python search runs
# on the buffer mapped to its number shape (digits -> "0"; ".", "e", "E", "+" -> "e"; the rest ->
# " ", newlines and minus signs included), so one ``translate`` and one C-speed ``find`` do it for
# many lines at once: an integer literal is 16 "0"s after a " ", where a fraction's or an
# exponent's digits follow an "e" (Pi's cost floats never match). A hit in a string (a quote count
# on its line says so), after "e-" or followed by a fraction or an exponent is no integer literal.
_SHAPE: Final = bytes(
    ord("0") if chr(b).isdigit() and b < 128 else ord("e") if chr(b) in ".eE+" else ord(" ") for b in range(256)
)
_LONG_INTEGER: Final = b"0" * 16
_AFTER_SPACE: Final = b" " + _LONG_INTEGER
_MINUS_ZERO: Final = re.compile(rb"-0(?![0-9.eE])")
_SLOW: Final = object()


# Short values that repeat in every entry of a session (entry types, roles, model and provider names,
# tool names) share one string object instead of one per entry: about 6% of the memory of a large
# session. ``sys.intern`` does not keep a string alive once no entry holds it. The content blocks'
# types and names are left alone: walking every block cost 7% of the read for 2% of the memory.
_SHARED_MESSAGE_KEYS: Final = ("role", "api", "provider", "model", "stopReason", "toolName")
_SHARED_MAX: Final = 64


def _python_share_strings(entry: Entry) -> None:
    """Replace the repeated short values of ``entry`` by their interned copies (values and key order unchanged).

    ``_native.c``'s ``share_strings`` does the same in C, in a fifth of the time; this is the fallback.
    """
    intern = sys.intern
    kind = entry.get("type")
    if kind.__class__ is str:
        entry["type"] = intern(kind)
    message = entry.get("message")
    if message.__class__ is not dict:
        return
    for key in _SHARED_MESSAGE_KEYS:
        value = message.get(key)
        if value.__class__ is str and len(value) <= _SHARED_MAX:
            message[key] = intern(value)


V1_ARRAY_REASON: Final = (
    "line holds an array, not an entry object (Pi's v1 migration gives it an id and a parent as it "
    "does every entry: it is a node of the tree that adds no message)"
)


def _accept(value: Any, line: int, out: ParsedLines) -> None:
    if out.keep_values:
        out.values.append(value)
    if isinstance(value, dict):
        _share_strings(value)
        out.entries.append(value)
        out.lines.append(line)
        return
    kept = js_truthy(value)  # Pi's loadEntriesFromFile: `if (entry) entries.push(entry)`
    fate = "Pi keeps it as an entry with no id" if kept else "Pi skips it"
    out.problems.append(
        LineProblem(line, "session/not-an-object", f"line holds {_describe_value(value)}, not an entry object ({fate})")
    )
    if kept:
        out.others.append(NonObject(len(out.entries), line, value, len(out.problems) - 1))


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


def _in_string(data: bytes, line_start: int, at: int) -> bool:
    """Whether ``data[at]`` lies inside a JSON string of the line starting at ``line_start``.

    Counts the quotes before it that are not escaped (escaped backslashes removed first, as a
    JSON reader pairs them left to right); an odd count is inside a string. Run only for hits.
    """
    before = data[line_start:at].replace(b"\\\\", b"")
    return (before.count(b'"') - before.count(b'\\"')) % 2 == 1


def _integer_literal(data: bytes, shape: bytes, at: int, end: int) -> bool:
    """Whether the 16 digits at ``at`` (a run's first digit) are a long integer literal outside strings."""
    run_end = at + 16
    while run_end < end and shape[run_end] == 0x30:  # "0": the run goes on
        run_end += 1
    if run_end < end and shape[run_end] == 0x65:  # "e": a fraction or an exponent follows, a float
        return False
    if at >= 2 and data[at - 1] == 0x2D and shape[at - 2] == 0x65:  # "e-": an exponent's digits
        return False
    return not _in_string(data, data.rfind(b"\n", 0, at) + 1, at)


def _native_slow_offsets() -> Callable[[bytes, int, int], list[int]] | None:
    """The C version of :func:`_python_slow_offsets` (``_native.c``: one pass, ``memchr`` through
    strings), or ``None`` when the package was built without it or ``PI_CONTEXT_NATIVE=0``."""
    module = native_module("lsp_server.session._native")
    return None if module is None else cast(Callable[[bytes, int, int], list[int]], module.slow_offsets)


def _python_slow_offsets(data: bytes, start: int, end: int) -> list[int]:
    """Where in ``data[start:end]`` a number needs ``JSON.parse``'s own rules, in order.

    Long integer literals: one ``translate`` to the number shape (``_SHAPE``) and a ``find``; ``-0``
    not followed by more of a number: one regular expression, whose literal prefix makes it a
    C-speed scan. Each hit is checked to stand outside
    strings; after a hit the search goes on from the next line (that line takes the standard decoder).
    """
    shape = data.translate(_SHAPE)
    hits: list[int] = []
    at = shape.find(_AFTER_SPACE, max(start - 1, 0), end)
    while at >= 0:
        digits = at + 1
        if digits >= start and _integer_literal(data, shape, digits, end):
            hits.append(digits)
            newline = data.find(b"\n", digits)
            at = shape.find(_AFTER_SPACE, newline, end) if 0 <= newline < end else -1
        else:
            at = shape.find(_AFTER_SPACE, digits + 16, end)
    # At the very start of the buffer a literal has no byte before it.
    if start == 0 and shape.startswith(_LONG_INTEGER) and _integer_literal(data, shape, 0, end):
        hits.append(0)
    for match in _MINUS_ZERO.finditer(data, start, end):
        at = match.start()
        if at > 0 and data[at - 1] in b"eE":
            continue  # an exponent: 1e-0 is a float to both readers
        if not _in_string(data, data.rfind(b"\n", 0, at) + 1, at):
            hits.append(at)
    hits.sort()
    return hits


_slow_offsets: Final = _native_slow_offsets() or _python_slow_offsets


def _native_share_strings() -> Callable[[Entry], None] | None:
    """The C version of :func:`_python_share_strings`, or ``None`` (no C module, or ``PI_CONTEXT_NATIVE=0``)."""
    module = native_module("lsp_server.session._native")
    return None if module is None else cast(Callable[[Entry], None], module.share_strings)


_share_strings: Final = _native_share_strings() or _python_share_strings


def _parse_complete(data: bytes, start: int, end: int, line: int, out: ParsedLines, max_line_bytes: int | None) -> int:
    """Parse the ``\n``-terminated lines of ``data[start:end]`` into ``out``; returns the next line number.

    Lines go through orjson straight from the buffer (a memoryview, no copy per line) unless a
    number on them needs the standard decoder's JavaScript rules or orjson refuses them.
    """
    view = memoryview(data)
    hits = _slow_offsets(data, start, end)
    next_hit = hits[0] if hits else end  # the first hit not behind us yet
    hit = 0
    find = data.find
    loads = orjson.loads
    limit = end if max_line_bytes is None else max_line_bytes
    keep = out.keep_values  # an object line is taken here, the rest by _accept
    entries, lines, values, share = out.entries, out.lines, out.values, _share_strings
    while start < end:
        newline = find(b"\n", start)
        if newline - start > limit:
            out.problems.append(_line_too_long(line, newline - start, limit))
        else:
            while next_hit < start:
                hit += 1
                next_hit = hits[hit] if hit < len(hits) else end
            value: Any = _SLOW
            if next_hit > newline:
                try:
                    value = loads(view[start:newline])
                except orjson.JSONDecodeError:
                    value = _SLOW  # bad JSON, bad UTF-8, NaN, 1e999, lone surrogates, deep nesting: the slow path
            if value.__class__ is dict:
                if keep:
                    values.append(value)
                share(value)
                entries.append(value)
                lines.append(line)
            elif value is _SLOW:
                parse_line(decode_line(data[start:newline], line, out.problems), line, out)
            else:
                _accept(value, line, out)
        start = newline + 1
        line += 1
    return line


def parse_bytes(
    data: bytes, first_line: int = 1, *, final: bool = True, max_line_bytes: int | None = None
) -> tuple[ParsedLines, int]:
    """Parse the complete lines of ``data``; with ``final`` also the last line if it has no newline.

    Returns the parsed lines and how many bytes were consumed (through the last ``\n``; all of
    ``data`` when ``final``), so a follower can resume at a line boundary. A line longer than
    ``max_line_bytes`` is not parsed: it becomes a ``session/line-too-long`` problem.
    """
    out = ParsedLines()
    end = data.rfind(b"\n") + 1
    with collector_paused():
        line = _parse_complete(data, 0, end, first_line, out, max_line_bytes)
    if final and end < len(data):
        if max_line_bytes is not None and len(data) - end > max_line_bytes:
            out.problems.append(_line_too_long(line, len(data) - end, max_line_bytes))
        else:
            parse_line(decode_line(data[end:], line, out.problems), line, out, partial=True)
        end = len(data)
    return out, end


@dataclass
class StreamRead:
    """A session file parsed chunk by chunk, with what a writer checks later about its bytes."""

    parsed: ParsedLines
    size: int  # bytes read (over the size limit when ``size > limits.max_bytes``)
    head: bytes  # the first ``keep`` bytes
    tail: bytes  # the last ``keep`` bytes
    last_line: bytes | None  # the last line when it has no ``\n`` (None when it was over the line limit)


def parse_stream(handle: BinaryIO, limits: SessionReadLimits = DEFAULT_LIMITS, keep: int = 0) -> StreamRead:
    """:func:`parse_bytes` of the whole file, read in chunks: the file is never held whole in memory.

    Reads at most ``limits.max_bytes + 1`` bytes (a caller that sees ``size`` over the limit
    reports the file as too large); a line over ``limits.max_line_bytes`` is dropped as it is read.
    """
    out = ParsedLines()
    size = 0
    head = tail = b""
    last_line: bytes | None = None
    with collector_paused():
        for step in read_chunks(handle, limits.max_line_bytes, limits.max_bytes + 1, into=out):
            size += len(step.data)
            if keep and step.data:
                if len(head) < keep:
                    head += step.data[: keep - len(head)]
                tail = (tail + step.data[-keep:])[-keep:]
            unfinished = step.unfinished
            if unfinished is None:
                continue
            if unfinished.data is None:
                out.problems.append(_line_too_long(step.next_line, unfinished.length, limits.max_line_bytes))
            else:
                last_line = unfinished.data
                parse_line(decode_line(last_line, step.next_line, out.problems), step.next_line, out, partial=True)
    return StreamRead(out, size, head, tail, last_line)


@dataclass
class ChunkLines:
    """One step of :func:`read_chunks`: a chunk read, and the lines it completed, parsed."""

    data: bytes  # the bytes read in this step (empty in the final step)
    parsed: ParsedLines  # the lines completed in this step (all steps', with ``into``)
    consumed: int  # bytes of those lines, newlines included
    mark: bytes  # the last TAIL_BYTES bytes before the end of what was consumed so far
    next_line: int  # the number of the first line not complete yet
    unfinished: RawLine | None = None  # final step only: the last line, which has no newline


def read_chunks(
    handle: BinaryIO,
    max_line_bytes: int,
    budget: int,
    first_line: int = 1,
    *,
    before: bytes = b"",
    into: ParsedLines | None = None,
) -> Iterator[ChunkLines]:
    """Read ``handle`` in chunks (at most ``budget`` bytes) and parse each complete line as it arrives.

    The one reader of session files: a line begun in one chunk is parsed once its newline arrives
    (alone, not by copying the chunk); a line over ``max_line_bytes`` becomes a problem and its bytes
    are dropped as they are read. ``before`` is what precedes the handle's position (for ``mark``).
    A last line without a newline comes in a final step as ``unfinished``, for the caller to parse
    as it needs (a follower takes it provisionally).
    """
    line = first_line
    carry: list[bytes] = []  # the pieces of the line still without its newline
    carried = 0
    skipping = False  # inside a line over the line limit: its bytes are counted, not kept
    skipped_tail = b""
    mark = before[-TAIL_BYTES:]
    left = budget
    while left > 0:
        chunk = handle.read(min(READ_CHUNK_BYTES, left))
        if not chunk:
            break
        left -= len(chunk)
        out = into if into is not None else ParsedLines()
        last_newline = chunk.rfind(b"\n")
        if last_newline < 0:
            carried += len(chunk)
            if skipping:
                skipped_tail = (skipped_tail + chunk[-TAIL_BYTES:])[-TAIL_BYTES:]
            else:
                carry.append(chunk)
                if carried > max_line_bytes:
                    skipping = True
                    skipped_tail = b"".join(carry)[-TAIL_BYTES:]
                    carry.clear()
            yield ChunkLines(chunk, out, 0, mark, line)
            continue
        consumed = carried
        pending = (skipped_tail,) if skipping else tuple(carry)  # the bytes between the mark and this chunk
        start = 0
        if skipping:
            start = chunk.index(b"\n") + 1
            out.problems.append(_line_too_long(line, carried + start - 1, max_line_bytes))
            line += 1
            skipping = False
        elif carry:  # the line begun in earlier chunks ends here: parse it alone, not a copy of the chunk
            start = chunk.index(b"\n") + 1
            first = b"".join([*carry, chunk[:start]])
            line = _parse_complete(first, 0, len(first), line, out, max_line_bytes)
        carry.clear()
        end = last_newline + 1
        line = _parse_complete(chunk, start, end, line, out, max_line_bytes)
        consumed += end
        if end >= TAIL_BYTES:
            mark = chunk[end - TAIL_BYTES : end]
        else:
            mark = (mark + b"".join(pending)[-TAIL_BYTES:] + chunk[:end])[-TAIL_BYTES:]
        carried = len(chunk) - end
        if carried > max_line_bytes:
            skipping = True
            skipped_tail = chunk[-TAIL_BYTES:]
        elif carried:
            carry.append(chunk[end:])
        yield ChunkLines(chunk, out, consumed, mark, line)
    if skipping:
        unfinished = RawLine(None, carried, False, skipped_tail)
    elif carry:
        data = b"".join(carry)
        unfinished = RawLine(data, len(data), False, data[-TAIL_BYTES:])
    else:
        return
    yield ChunkLines(b"", into if into is not None else ParsedLines(), 0, mark, line, unfinished)


def parse_session_text(content: str) -> ParsedLines:
    """Pi's ``parseSessionEntries`` (the whole text trimmed, then split on ``\\n``), with problems.

    Pi keeps any JSON value (``values``); ``entries`` keeps objects only and the rest are reported.
    The lines go through the same reader as a session file's (orjson, JavaScript's numbers).
    """
    try:
        data = content.encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates (a request's JSON escapes): no UTF-8 to read
        return _parse_session_text_lines(content)
    return parse_session_bytes(data)


def parse_session_bytes(data: bytes) -> ParsedLines:
    """:func:`parse_session_text` of the text ``data`` holds in UTF-8 (bad bytes read as U+FFFD, as Node does)."""
    start, end = _js_trimmed(data)
    out = ParsedLines(keep_values=True)
    line = 1 + data.count(b"\n", 0, start)
    last_newline = data.rfind(b"\n", start, end)
    with collector_paused():
        if last_newline >= 0:
            line = _parse_complete(data, start, last_newline + 1, line, out, None)
        last = data[max(start, last_newline + 1) : end]
        if last:
            _parse_complete(last + b"\n", 0, len(last) + 1, line, out, None)
    return out


def read_session_values(path: str) -> ParsedLines:
    """:func:`parse_session_text` of the file at ``path`` (Pi's ``readFileSync(path, "utf-8")`` then
    ``parseSessionEntries``), read in chunks as the server and the CLI read sessions.

    Only where JavaScript's ``trim`` removes more than blank lines (a byte-order mark or another
    Unicode space at the file's start or end) is the file read whole, for :func:`parse_session_bytes`.
    """
    with open(path, "rb") as handle:
        head = handle.read(_EDGE_BYTES)
        handle.seek(max(0, os.fstat(handle.fileno()).st_size - _EDGE_BYTES))
        tail = handle.read(_EDGE_BYTES)
        if _unicode_space_at_edge(head.lstrip(_ASCII_SPACE)[:1]) or _unicode_space_at_edge(
            tail.rstrip(_ASCII_SPACE)[-1:]
        ):
            handle.seek(0)
            return parse_session_bytes(handle.read())
        handle.seek(0)
        out = ParsedLines(keep_values=True)
        everything = 1 << 62
        with collector_paused():
            for step in read_chunks(handle, everything, everything, into=out):
                if step.unfinished is not None and step.unfinished.data is not None:
                    last_line = step.unfinished.data
                    parse_line(decode_line(last_line, step.next_line, out.problems), step.next_line, out)
    return out


_EDGE_BYTES: Final = 4096
_ASCII_SPACE: Final = b" \t\n\r\x0b\x0c"


def _unicode_space_at_edge(byte: bytes) -> bool:
    """Whether the first (or last) byte after ASCII white space may start (or end) a non-ASCII character:
    then ``trim`` may remove more, and the careful path reads the file. Also when the edge window was
    all white space."""
    return byte == b"" or byte[0] >= 0x80


def _js_trimmed(data: bytes) -> tuple[int, int]:
    """Where JavaScript's ``trim`` of ``data``'s text starts and ends, in bytes."""
    start, end = 0, len(data)
    while True:
        start = len(data) - len(data[start:end].lstrip(_ASCII_SPACE)) if start < end else end
        if start >= end or data[start] < 0x80:
            break
        width = 2 if data[start] < 0xE0 else 3 if data[start] < 0xF0 else 4
        if js_trim(data[start : start + width].decode("utf-8", "replace")):
            break  # not white space to JavaScript (U+FFFD for bad bytes is not either)
        start += width
    while end > start:
        end = start + len(data[start:end].rstrip(_ASCII_SPACE))
        if end <= start or data[end - 1] < 0x80:
            break
        first = end - 1
        while first > max(start, end - 4) and 0x80 <= data[first] < 0xC0:
            first -= 1
        if js_trim(data[first:end].decode("utf-8", "replace")):
            break
        end = first
    return start, end


def _parse_session_text_lines(content: str) -> ParsedLines:
    """:func:`parse_session_text` of text that has no UTF-8 form, line by line as text."""
    trimmed = js_trim(content)
    first_line = 1 + content[: len(content) - len(js_trim_start(content))].count("\n")
    out = ParsedLines(keep_values=True)
    for offset, text in enumerate(trimmed.split("\n")):
        parse_line(text, first_line + offset, out)
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
        gets an id and a parent as any entry does, which its JSON never shows: it is replaced by a
        :class:`~lsp_server.js.values.JsArray` holding them, so it is a node of the tree as in Pi.
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
                if isinstance(entry, dict):
                    entry["id"] = new_id
                    entry["parentId"] = self.previous_id
                else:  # properties of the array: a tree node to Pi, invisible in its JSON
                    file_entries[index] = JsArray(entry, {"id": new_id, "parentId": self.previous_id})
                self.previous_id = new_id
                if isinstance(entry, dict) and entry.get("type") == "compaction":
                    self._convert_first_kept_index(entry, file_entries)
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
    def _convert_first_kept_index(entry: Entry, file_entries: list[Any]) -> None:
        index = entry.get("firstKeptEntryIndex", UNDEFINED)
        if isinstance(index, bool) or not isinstance(index, (int, float)):
            return
        if float(index).is_integer() and 0 <= index < len(file_entries):
            target = file_entries[int(index)]
            # a migrated array has its id (JsArray); a number, string, boolean or an entry not migrated
            # yet may have none: Pi sets undefined, which JSON drops
            target_id = js_get(target, "id")
            if js_truthy(target) and js_get(target, "type") != "session" and target_id is not UNDEFINED:
                entry["firstKeptEntryId"] = target_id
        del entry["firstKeptEntryIndex"]


def migrated_array_node(value: Any) -> Entry | None:
    """The tree entry Pi sees in an array line its v1 migration gave an id, or ``None`` for any other value.

    To every Pi function but ``JSON.stringify``, such an array is an entry with an ``id``, a
    ``parentId`` and no ``type`` (exactly what a migrated ``{}`` line is): a node of the tree that
    can be the leaf and that a path walks through, contributing no message. The views of a file
    (:class:`~lsp_server.session.tail.SessionFile`) keep this object in its place, so code that reads
    entries as objects needs no case for arrays.
    """
    if not isinstance(value, JsArray):
        return None
    return {key: value.properties[key] for key in ("id", "parentId") if key in value.properties}


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

    ``entries`` is Pi's answer: every line that parses to a truthy JSON value (the header first:
    objects, and the numbers, strings, arrays and ``true`` Pi keeps too), or ``[]`` when the file
    is missing, empty or not a session. ``needs_newline`` says Pi would append a ``\\n`` on load.
    """

    path: str
    exists: bool
    entries: list[Any]
    lines: list[int]
    problems: list[LineProblem]
    needs_newline: bool = False
    error: str | None = None  # why the file is not a session / could not be read

    @property
    def is_session(self) -> bool:
        return bool(self.entries)


def header_problem(entries: list[Any], path: str) -> str | None:
    """Why Pi's file entries are not a session: the first must be a header with a string id."""
    if not entries:
        return None
    first = entries[0]
    if js_get(first, "type") != "session" or not isinstance(js_get(first, "id"), str):
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
            read = parse_stream(handle, limits, keep=1)
    except OSError as exc:
        return FileEntries(path, True, [], [], [], error=node_error_message(exc, "read", path))
    parsed = read.parsed
    if read.size > limits.max_bytes:
        return FileEntries(path, True, [], [], [], error=too_large_message(path, read.size, limits.max_bytes))
    entries, lines = parsed.file_entries()
    if not entries:
        error = NOT_A_SESSION.format(path=path) if read.size else None
        return FileEntries(path, True, [], [], parsed.problems, error=error)
    problem = header_problem(entries, path)
    if problem is not None:
        return FileEntries(path, True, [], [], parsed.problems, error=problem)
    needs_newline = read.size > 0 and read.tail != b"\n"
    return FileEntries(path, True, entries, lines, parsed.problems, needs_newline=needs_newline)


def file_size(path: str) -> int | None:
    try:
        return os.stat(path).st_size
    except OSError:
        return None
