"""Session files as the editor asks about them: followed incrementally, listed, shown as a tree.

The sidebar asks for the same session again and again (budget, projected request, tree), usually
while an agent appends to it. :class:`SessionStore` keeps one :class:`SessionFile` per path and
refreshes it on each use, which reads only the bytes appended since the last look (a replaced or
rewritten file is reloaded in full). Requests may run in worker threads: :meth:`SessionStore.use`
holds the file's lock while the caller reads it, so a refresh never runs under an analysis.

Listing reads each file's header, last name and line count; :class:`SessionListCache` keeps that
per path until the file's size or modification time changes, so listing a folder of large
sessions again costs a ``stat`` per file.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from lsp_server import protocol
from lsp_server.js.values import UNDEFINED, js_get, js_to_string
from lsp_server.session.bounds import DEFAULT_LIMITS, SessionReadLimits
from lsp_server.session.folders import SessionSummary, list_sessions, peek_session
from lsp_server.session.gist import entry_gist, one_line
from lsp_server.session.tail import RefreshResult, SessionFile
from lsp_server.session.tree import TreeNode, build_path

PREVIEW_CHARS = 80


class SessionStore:
    """One followed :class:`SessionFile` per path (the least recently used beyond ``limit`` dropped)."""

    def __init__(self, limit: int = 8, read_limits: SessionReadLimits = DEFAULT_LIMITS) -> None:
        self.limit = limit
        self.read_limits = read_limits  # the server replaces it when piContext.limits changes
        self._lock = threading.Lock()
        self._files: OrderedDict[str, tuple[SessionFile, threading.Lock]] = OrderedDict()
        self.last_refresh: dict[str, RefreshResult] = {}

    def _slot(self, path: str) -> tuple[SessionFile, threading.Lock]:
        with self._lock:
            slot = self._files.get(path)
            if slot is None:
                slot = (SessionFile(path, self.read_limits), threading.Lock())
                self._files[path] = slot
            self._files.move_to_end(path)
            while len(self._files) > self.limit:
                self._files.popitem(last=False)
            return slot

    @contextmanager
    def use(self, path: str) -> Iterator[tuple[SessionFile, RefreshResult]]:
        """The session at ``path``, brought up to date, locked for the ``with`` block."""
        session, lock = self._slot(path)
        with lock:
            session.limits = self.read_limits
            result = session.refresh()
            self.last_refresh[path] = result
            yield session, result

    def cached(self, path: str) -> bool:
        with self._lock:
            return path in self._files

    def paths(self) -> list[str]:
        with self._lock:
            return list(self._files)


@dataclass(frozen=True)
class _Peek:
    size: int
    mtime_ns: int
    summary: SessionSummary | None


class SessionListCache:
    """``list_sessions`` with each file's peek kept until the file changes."""

    def __init__(self, read_limits: SessionReadLimits = DEFAULT_LIMITS) -> None:
        self.read_limits = read_limits
        self._lock = threading.Lock()
        self._peeks: dict[str, _Peek] = {}
        self._listed: set[str] = set()

    def list(self, session_dir: str, cwd: str | None = None) -> list[SessionSummary]:
        """Sessions in ``session_dir``, newest modification first (``pi -c``'s order); see ``list_sessions``."""
        with self._lock:
            self._listed.add(os.path.normpath(session_dir))
        return list_sessions(session_dir, cwd, peek=self._peek)

    def listed_dirs(self) -> set[str]:
        """The folders listed so far: a session appearing, growing or going there changes a list someone saw."""
        with self._lock:
            return set(self._listed)

    def _peek(self, path: str) -> SessionSummary | None:
        try:
            st = os.stat(path)
        except OSError:
            return None
        with self._lock:
            known = self._peeks.get(path)
        if known is not None and known.size == st.st_size and known.mtime_ns == st.st_mtime_ns:
            return known.summary
        summary = peek_session(path, self.read_limits)
        with self._lock:
            self._peeks[path] = _Peek(st.st_size, st.st_mtime_ns, summary)
        return summary


def session_summary_wire(summary: SessionSummary) -> protocol.SessionSummary:
    created = summary.timestamp if isinstance(summary.timestamp, str) else None
    return protocol.SessionSummary(
        path=summary.path,
        id=summary.id,
        cwd=summary.cwd or None,
        name=summary.name,
        created=created,
        modified=summary.mtime_ms / 1000,
        size=summary.size,
        entry_count=summary.entry_lines,
        title=summary.title,
        first_message=summary.first_message,
        model=summary.model,
        cost=summary.cost,
    )


def entry_preview(entry: Any) -> str:
    """One line saying what an entry holds (the text of a message, the summary of a summary, …)."""
    gist = entry_gist(entry)
    if gist.sections is not None:
        return "system prompt: " + (", ".join(gist.sections) if gist.sections else "(no sections)")
    if gist.text is None:
        prefix = "thinking: " if gist.kind == "thinking_level_change" else ""
        return prefix + (gist.detail or "")
    text = gist.text if gist.detail is None else f"{gist.detail}: {gist.text}"
    if gist.tools:
        text = (text + " " if text else "") + "→ " + ", ".join(gist.tools)
    return one_line(text, PREVIEW_CHARS)


def _id_text(value: Any) -> str | None:
    if isinstance(value, str):
        return value
    if value is None or value is UNDEFINED:
        return None
    return js_to_string(value)


def session_tree_result(session: SessionFile, leaf_id: str | None = None) -> protocol.SessionTreeResult:
    """``pi/sessionTree``: every entry as a node (children oldest first), the leaf and its path.

    ``leaf_id`` ``None`` is Pi's leaf (the last entry). Skipped lines and tree repairs are listed
    in ``problems`` with their line numbers.
    """
    tree = session.tree()
    leaf = leaf_id if leaf_id is not None else _id_text(session.leaf_id)
    start: Any = leaf if leaf is not None else session.default_leaf
    active = {id(entry) for entry in build_path(session.entries, start, session.index.by_id)}
    nodes: list[protocol.TreeNode] = []
    stack: list[TreeNode] = list(reversed(tree.roots))
    while stack:
        node = stack.pop()
        entry = node.entry
        node_id = _id_text(js_get(entry, "id"))
        if node_id is not None:
            message = js_get(entry, "message")
            role = js_get(message, "role") if js_get(entry, "type") == "message" else None
            stamp = js_get(entry, "timestamp")
            nodes.append(
                protocol.TreeNode(
                    id=node_id,
                    parent_id=_id_text(js_get(entry, "parentId")),
                    type=js_to_string(js_get(entry, "type")),
                    role=role if isinstance(role, str) else None,
                    label=node.label,
                    timestamp=stamp if isinstance(stamp, str) else None,
                    preview=entry_preview(entry),
                    children=[c for child in node.children if (c := _id_text(js_get(child.entry, "id"))) is not None],
                    on_active_path=id(entry) in active,
                )
            )
        stack.extend(reversed(node.children))
    problems = [f"line {p.line}: {p.reason} ({p.code})" for p in session.all_problems()]
    problems += [f"line {session.lines[p.index]}: {p.message} ({p.code})" for p in tree.problems]
    if session.error is not None:
        problems.insert(0, session.error)
    roots = [r for root in tree.roots if (r := _id_text(js_get(root.entry, "id"))) is not None]
    return protocol.SessionTreeResult(session=session.path, leaf_id=leaf, roots=roots, nodes=nodes, problems=problems)
