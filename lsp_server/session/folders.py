"""Where Pi keeps sessions, and a cheap look at each one (header, name, size) without loading it.

Pi stores a project's sessions in ``<agentDir>/sessions/--<cwd with / \\ : replaced by ->--/``,
one ``<ISO time>_<session id>.jsonl`` per session. The folder can be moved: ``--session-dir``
beats ``$PI_CODING_AGENT_SESSION_DIR`` (``~`` expanded), which beats ``sessionDir`` in
settings.json; ``$PI_CODING_AGENT_DIR`` moves the agent dir itself. A custom folder holds the
sessions of every project, so Pi filters it by the ``cwd`` in each header.

Ordering, as Pi does it: "continue the most recent session" (``pi -c``) takes the file with the
newest **modification time** whose header is valid; the ``/resume`` picker sorts by **last
activity** (the newest user/assistant message time, else the header time, else the mtime), which
needs a full read. :func:`list_sessions` orders by mtime from a cheap peek (first line, a
backward scan for the latest ``session_info``, a line count) and computes activity only when
asked.
"""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any, BinaryIO, Final, Literal

from lsp_server.base.fsread import open_regular
from lsp_server.base.paths import default_agent_dir, normalize_path, paths_equal, resolve_path
from lsp_server.js.dates import js_date_ms
from lsp_server.js.strings import js_trim
from lsp_server.js.values import js_truthy
from lsp_server.session.bounds import DEFAULT_LIMITS, SessionReadLimits, iter_lines, open_session
from lsp_server.session.jsonl import BadJson, parse_json

SESSION_DIR_ENV: Final = "PI_CODING_AGENT_SESSION_DIR"
SESSIONS_FOLDER: Final = "sessions"
MAX_HEADER_SCAN_BYTES: Final = 1024 * 1024  # Pi's bound on the header search
_CHUNK: Final = 1024 * 1024

SessionDirSource = Literal["flag", "env", "settings", "default"]


def encode_cwd(cwd: str) -> str:
    """``--home-me-proj--`` for ``/home/me/proj``: one leading separator dropped, ``/ \\ :`` -> ``-``."""
    return "--" + re.sub(r"[/\\:]", "-", re.sub(r"^[/\\]", "", cwd)) + "--"


def default_session_dir(cwd: str, agent_dir: str | None = None) -> str:
    """Pi's ``getDefaultSessionDirPath``: ``<agentDir>/sessions/--<cwd>--`` (both resolved)."""
    agent = resolve_path(agent_dir if agent_dir is not None else default_agent_dir(os.environ))
    return posixpath.join(agent, SESSIONS_FOLDER, encode_cwd(resolve_path(cwd)))


@dataclass(frozen=True)
class SessionDirChoice:
    """The folder Pi would use for ``cwd``, where the choice came from, and whether to filter by cwd."""

    path: str
    source: SessionDirSource
    filter_by_cwd: bool


def resolve_session_dir(
    cwd: str,
    *,
    flag: str | None = None,
    settings_session_dir: str | None = None,
    agent_dir: str | None = None,
    env: Mapping[str, str],
) -> SessionDirChoice:
    """The session folder by Pi's precedence: flag, ``$PI_CODING_AGENT_SESSION_DIR``, settings, default."""
    environ = env
    default = default_session_dir(cwd, agent_dir)
    chosen: tuple[str, SessionDirSource]
    if flag:
        chosen = (normalize_path(flag), "flag")
    elif environ.get(SESSION_DIR_ENV):
        chosen = (normalize_path(environ[SESSION_DIR_ENV]), "env")
    elif settings_session_dir:
        chosen = (normalize_path(settings_session_dir), "settings")
    else:
        return SessionDirChoice(default, "default", False)
    path = resolve_path(chosen[0], cwd)
    return SessionDirChoice(path, chosen[1], not paths_equal(path, default))


def session_file_name(timestamp_iso: str, session_id: str) -> str:
    """``2025-01-01T00-00-00-000Z_<id>.jsonl``: the name Pi gives a new session file."""
    return f"{re.sub(r'[:.]', '-', timestamp_iso)}_{session_id}.jsonl"


def read_session_header(path: str) -> dict[str, Any] | None:
    """Pi's header discovery: the first parseable line, if it is a header with a string ``id``.

    Blank and unparsable lines before it are skipped; at most 1 MiB is read. Unreadable files
    and anything but a regular file (a FIFO named ``x.jsonl`` would block) are not sessions
    (``None``), as in Pi's best-effort discovery.
    """
    opened = open_regular(path)
    if isinstance(opened, str):
        return None
    handle, _st = opened
    try:
        with handle:
            data = handle.read(MAX_HEADER_SCAN_BYTES + 1)
    except OSError:
        return None
    complete = len(data) <= MAX_HEADER_SCAN_BYTES
    lines = data.split(b"\n")
    for index, raw in enumerate(lines):
        is_last = index == len(lines) - 1
        if is_last and not complete:
            return None  # the header search hit Pi's scan limit
        text = raw.decode("utf-8", errors="replace")
        if not js_trim(text):
            continue
        value = parse_json(text)
        if isinstance(value, BadJson) or not js_truthy(value):
            continue  # Pi keeps looking past unparsable lines and falsy values (null, 0, "")
        if not isinstance(value, dict) or value.get("type") != "session" or not isinstance(value.get("id"), str):
            return None
        return value
    return None


@dataclass(frozen=True)
class SessionSummary:
    """What a session list shows, from a cheap peek (``activity_ms`` only when asked for)."""

    path: str
    id: str
    cwd: str
    timestamp: Any  # the header's ISO string as written
    parent_session: str | None
    name: str | None  # latest session_info name, trimmed; an empty name clears it
    entry_lines: int | None  # lines after the header holding a JSON object; None over the size limit
    size: int
    mtime_ms: float
    activity_ms: float | None = None  # Pi's /resume "modified" time, see :func:`session_activity_ms`
    first_message: str | None = None  # the first user message's text, as Pi's /resume list reads it
    model: str | None = None  # ``provider/id`` of the last assistant message (what the session ran on last)
    cost: float | None = None  # the sum of ``usage.cost.total`` Pi recorded; None when it recorded none

    @property
    def title(self) -> str:
        """What a list calls the session: its name, else its first message (one line, bounded), else its id."""
        return session_title(self.name, self.first_message, self.id)

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "id": self.id,
            "cwd": self.cwd,
            "timestamp": self.timestamp,
            "parentSession": self.parent_session,
            "name": self.name,
            "entryLines": self.entry_lines,
            "size": self.size,
            "mtimeMs": self.mtime_ms,
            "activityMs": self.activity_ms,
            "firstMessage": self.first_message,
            "model": self.model,
            "cost": self.cost,
            "title": self.title,
        }


def _latest_session_name(handle: BinaryIO, size: int, max_line_bytes: int) -> str | None:
    """Scan backwards for the last ``session_info`` line: usually near the end, so cheap.

    A line longer than the line limit is dropped unread (its start is never joined to its end).
    """
    end = size
    carry = b""
    while end > 0:
        start = max(0, end - _CHUNK)
        handle.seek(start)
        block = handle.read(end - start) + carry
        lines = block.split(b"\n")
        carry = lines[0] if start > 0 else b""
        if len(carry) > max_line_bytes:
            carry = b""
        candidates = lines[1:] if start > 0 else lines
        for raw in reversed(candidates):
            if b"session_info" not in raw or len(raw) > max_line_bytes:
                continue
            value = parse_json(raw.decode("utf-8", errors="replace"))
            if isinstance(value, dict) and value.get("type") == "session_info":
                name = value.get("name")
                trimmed = js_trim(name) if isinstance(name, str) else ""
                return trimmed or None
        end = start
    return None


TITLE_MAX_CHARS: Final = 80  # a title longer than this ends in "…"
_CONTROL = re.compile(r"[\x00-\x1f\x7f]+")
_SPACES = re.compile(r"\s+")


def session_title(name: str | None, first_message: str | None, session_id: str) -> str:
    """A session's title: Pi's name for it, else its first user message, else its id.

    Pi's ``/resume`` list shows ``name ?? firstMessage`` with control characters as spaces; a title is that
    on one line (runs of white space as one space, trimmed) and at most :data:`TITLE_MAX_CHARS` characters.
    """
    for text in (name, first_message):
        if text:
            line = _SPACES.sub(" ", _CONTROL.sub(" ", text)).strip()
            if line:
                return line if len(line) <= TITLE_MAX_CHARS else line[: TITLE_MAX_CHARS - 1].rstrip() + "…"
    return session_id


def _message_text(message: dict[str, Any]) -> str:
    """Pi's ``extractTextContent``: a string content, or its text blocks joined by spaces."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return " ".join(
        block["text"]
        for block in content
        if isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str)
    )


@dataclass
class _Scan:
    entries: int = 0
    first_message: str | None = None
    model: str | None = None
    cost: float | None = None

    def take(self, value: dict[str, Any]) -> None:
        """One entry: its first user text, the last assistant's model and its recorded cost."""
        if value.get("type") != "message":
            return
        message = value.get("message")
        if not isinstance(message, dict):
            return
        role = message.get("role")
        if role == "user" and self.first_message is None:
            self.first_message = _message_text(message) or None
        elif role == "assistant":
            provider, model = message.get("provider"), message.get("model")
            if isinstance(provider, str) and isinstance(model, str) and model:
                self.model = f"{provider}/{model}" if provider else model
            usage = message.get("usage")
            cost = usage.get("cost") if isinstance(usage, dict) else None
            total = cost.get("total") if isinstance(cost, dict) else None
            if isinstance(total, (int, float)) and not isinstance(total, bool):
                self.cost = (self.cost or 0.0) + float(total)


def _scan_entries(handle: BinaryIO, limits: SessionReadLimits) -> _Scan:
    """Lines after the header that hold a JSON object (what Pi loads as entries; bad lines not counted),
    the first user message, the last model and the recorded cost, in one pass."""
    scan = _Scan()
    count = 0
    for raw in iter_lines(handle, limits.max_line_bytes, limits.max_bytes):
        if raw.data is None or not raw.data.strip():
            continue
        value = parse_json(raw.data.decode("utf-8", "replace"))
        if isinstance(value, dict):
            count += 1
            if count > 1:
                scan.take(value)
    scan.entries = max(0, count - 1)
    return scan


def peek_session(path: str, limits: SessionReadLimits = DEFAULT_LIMITS) -> SessionSummary | None:
    """A session's header facts, name, size and entry count (``None`` over the size limit)."""
    header = read_session_header(path)
    if header is None:
        return None
    opened = open_regular(path)
    if isinstance(opened, str):
        return None
    handle, st = opened
    cwd = header.get("cwd")
    parent = header.get("parentSession")
    name: str | None = None
    scan: _Scan | None = None
    try:
        with handle:
            if st.st_size <= limits.max_bytes:
                name = _latest_session_name(handle, st.st_size, limits.max_line_bytes)
                handle.seek(0)
                scan = _scan_entries(handle, limits)
    except OSError:
        return None
    return SessionSummary(
        path=path,
        id=header["id"],
        cwd=cwd if isinstance(cwd, str) else "",
        timestamp=header.get("timestamp"),
        parent_session=parent if isinstance(parent, str) else None,
        name=name,
        entry_lines=None if scan is None else scan.entries,
        size=st.st_size,
        mtime_ms=st.st_mtime_ns / 1e6,
        first_message=None if scan is None else scan.first_message,
        model=None if scan is None else scan.model,
        cost=None if scan is None else scan.cost,
    )


def session_activity_ms(path: str) -> float | None:
    """Pi's ``modified`` for the /resume list: newest user/assistant message time (full read).

    A message's own numeric ``timestamp`` counts, else its entry's ISO time. ``None`` when no such
    message exists (Pi then falls back to the header time, then the file's mtime).
    """
    latest: float | None = None
    opened = open_session(path)
    if isinstance(opened, str):
        return None
    handle, _size = opened
    try:
        with handle:
            for line in iter_lines(handle, DEFAULT_LIMITS.max_line_bytes, DEFAULT_LIMITS.max_bytes):
                raw = line.data
                if raw is None or b'"message"' not in raw:
                    continue
                value = parse_json(raw.decode("utf-8", errors="replace"))
                if not isinstance(value, dict) or value.get("type") != "message":
                    continue
                message = value.get("message")
                if not isinstance(message, dict) or not isinstance(message.get("role"), str):
                    continue
                if "content" not in message or message["role"] not in ("user", "assistant"):
                    continue
                stamp = message.get("timestamp")
                when = stamp if isinstance(stamp, (int, float)) and not isinstance(stamp, bool) else None
                if when is None:
                    when = js_date_ms(value.get("timestamp"))
                if when is not None:
                    latest = max(latest or 0, when)
    except OSError:
        return None
    return latest if latest else None


def list_sessions(
    session_dir: str,
    cwd: str | None = None,
    *,
    with_activity: bool = False,
    peek: Callable[[str], SessionSummary | None] | None = None,
) -> list[SessionSummary]:
    """Sessions in ``session_dir``, newest first.

    Without ``with_activity`` the order is by file mtime (Pi's ``continueRecent``); with it, by
    Pi's /resume rule (activity, else header time, else mtime). ``cwd`` keeps only sessions whose
    header names that directory (what Pi does in a custom session folder). ``peek`` reads one
    file's summary (default :func:`peek_session`; the server passes a cache).
    """
    read = peek if peek is not None else peek_session
    try:
        names = [n for n in os.listdir(session_dir) if n.endswith(".jsonl")]
    except OSError:
        return []
    resolved_cwd = resolve_path(cwd) if cwd is not None else None
    found: list[SessionSummary] = []
    for name in names:
        summary = read(posixpath.join(session_dir, name))
        if summary is None:
            continue
        if resolved_cwd is not None and not (summary.cwd and paths_equal(resolve_path(summary.cwd), resolved_cwd)):
            continue
        if with_activity:
            summary = replace(summary, activity_ms=session_activity_ms(summary.path))
        found.append(summary)
    if with_activity:
        found.sort(key=_resume_time, reverse=True)
    else:
        found.sort(key=lambda s: s.mtime_ms, reverse=True)
    return found


def _resume_time(summary: SessionSummary) -> float:
    if summary.activity_ms:
        return summary.activity_ms
    header_ms = js_date_ms(summary.timestamp)
    return header_ms if header_ms is not None else summary.mtime_ms


def most_recent_session(session_dir: str, cwd: str | None = None) -> str | None:
    """Pi's ``findMostRecentSession`` (``pi -c``): newest mtime with a valid header (cwd-filtered).

    Reads only headers, newest file first, and stops at the first match.
    """
    try:
        paths = [posixpath.join(session_dir, n) for n in os.listdir(session_dir) if n.endswith(".jsonl")]
        stamped = sorted(((os.stat(p).st_mtime_ns, p) for p in paths), reverse=True)
    except OSError:
        return None
    resolved_cwd = resolve_path(cwd) if cwd is not None else None
    for _, path in stamped:
        header = read_session_header(path)
        if header is None:
            continue
        header_cwd = header.get("cwd")
        if resolved_cwd is None or (
            isinstance(header_cwd, str) and header_cwd and paths_equal(resolve_path(header_cwd), resolved_cwd)
        ):
            return path
    return None
