"""The ``session_script`` op: Pi's ``SessionManager`` methods replayed, to compare the JSONL it writes.

The oracle runs a list of ``SessionManager`` calls (append a message, a label, a compaction, move
the leaf, branch with a summary, ...) and returns the entries, the tree, the context and the exact
file text. :class:`ScriptedSessionManager` answers the same calls with our code: the entry
objects in Pi's key order, the ``compaction`` and ``branch_summary`` entries from the writer's
builders, the file created by :func:`write_new_session_file` on the first conversation message
and every later line appended by :func:`append_entry` (the same code path ``pi-context compact``
uses), so ``fileText`` proves the bytes we write equal Pi's.

Ids and timestamps follow the oracle's deterministic UUIDs and clock. A session id made by Pi's
``uuidv7`` (``createBranchedSession``) has random bits and is masked on both sides.
"""

from __future__ import annotations

import copy
import os
import posixpath
import re
import shutil
import tempfile
from collections.abc import Callable
from typing import Any

from lsp_server.base.paths import resolve_path
from lsp_server.compaction.summarize import uuid7
from lsp_server.conformance.op_table import EvalContext, OpError, OpTable
from lsp_server.conformance.ops_session import as_json
from lsp_server.js.strings import js_trim
from lsp_server.js.values import UNDEFINED, js_get, js_truthy
from lsp_server.prompt.system_messages import current_system_message
from lsp_server.session.projection import build_session_projection
from lsp_server.session.raw import CURRENT_SESSION_VERSION, Entry
from lsp_server.session.tree import Label, TreeNode, build_tree
from lsp_server.session.writer import (
    ID_ATTEMPTS,
    append_entry,
    branch_summary_entry,
    compaction_entry,
    iso_timestamp,
    load_for_append,
    write_new_session_file,
)

Json = Any
OPS = OpTable()

_SESSION_ID = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$")
_INVALID_ID = (
    "Session id must be non-empty, contain only alphanumeric characters, '-', '_', and '.', "
    "and start and end with an alphanumeric character"
)
_UUID7 = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}")


class ScriptError(Exception):
    """A ``SessionManager`` method threw; the message is Pi's."""


def _defined(pairs: list[tuple[str, Any]]) -> Entry:
    return {key: value for key, value in pairs if value is not UNDEFINED}


class ScriptedSessionManager:
    """The subset of Pi's ``SessionManager`` that ``session_script`` requests call."""

    def __init__(self, ctx: EvalContext, cwd: str, session_dir: str | None, persist: bool, session_id: Any) -> None:
        self.ctx = ctx
        self.cwd = resolve_path(cwd)
        self.session_dir = session_dir
        self.persist = persist
        self.session_file: str | None = None
        self.session_id: Any = ""
        self.file_entries: list[Entry] = []
        self.by_id: dict[Any, Entry] = {}
        self.labels: dict[Any, Any] = {}
        self.label_timestamps: dict[Any, Any] = {}
        self.leaf_id: Any = None
        self.flushed = False
        if persist and session_dir:
            os.makedirs(session_dir, exist_ok=True)
        self.newSession({} if session_id is UNDEFINED else {"id": session_id})

    # --- helpers ------------------------------------------------------------------------------

    def _now(self) -> int:
        return self.ctx.now_ms()

    def _generate_id(self, taken: Any) -> str:
        for _ in range(ID_ATTEMPTS):
            candidate = self.ctx.new_uuid()[:8]
            if candidate not in taken:
                return candidate
        return self.ctx.new_uuid()

    def _entries(self) -> list[Entry]:
        return [e for e in self.file_entries if e.get("type") != "session"]

    def _has_conversation(self) -> bool:
        return any(
            e.get("type") == "message" and js_get(e.get("message"), "role") in ("user", "assistant")
            for e in self.file_entries
        )

    def _persist(self, entry: Entry) -> None:
        if not self.persist or not self.session_file:
            return
        if not self.flushed:
            if not self._has_conversation():
                return
            error = write_new_session_file(self.session_file, self.file_entries)
            if error is not None:
                raise ScriptError(error)
            self.flushed = True
            return
        session = load_for_append(self.session_file)
        if session.snapshot is None:
            raise ScriptError(session.error or "cannot read the session file")
        written = append_entry(self.session_file, entry, session.snapshot, validate=False)
        if not hasattr(written, "offset"):
            raise ScriptError(getattr(written, "message", "append failed"))

    def _append(self, entry: Entry) -> str:
        previous_leaf = self.leaf_id
        self.file_entries.append(entry)
        self.by_id[entry["id"]] = entry
        self.leaf_id = entry["id"]
        try:
            self._persist(entry)
        except ScriptError:
            self.file_entries.pop()
            self.by_id.pop(entry["id"], None)
            self.leaf_id = previous_leaf
            raise
        return str(entry["id"])

    def _build_index(self) -> None:
        self.by_id.clear()
        self.labels.clear()
        self.label_timestamps.clear()
        self.leaf_id = None
        for entry in self.file_entries:
            if entry.get("type") == "session":
                continue
            self.by_id[entry.get("id")] = entry
            self.leaf_id = entry.get("id")
            if entry.get("type") == "label":
                self._set_label(entry.get("targetId"), entry.get("label", UNDEFINED), entry.get("timestamp"))

    def _set_label(self, target: Any, label: Any, timestamp: Any) -> None:
        if js_truthy(label):
            self.labels[target] = label
            self.label_timestamps[target] = timestamp
        else:
            self.labels.pop(target, None)
            self.label_timestamps.pop(target, None)

    def _base(self, kind: str) -> list[tuple[str, Any]]:
        entry_id = self._generate_id(self.by_id)
        return [("type", kind), ("id", entry_id), ("parentId", self.leaf_id), ("timestamp", iso_timestamp(self._now()))]

    def _need(self, entry_id: Any) -> Entry:
        entry = self.by_id.get(entry_id) if _hashable(entry_id) else None
        if entry is None:
            raise ScriptError(f"Entry {_js_str(entry_id)} not found")
        return entry

    # --- Pi's methods (names as in Pi) -----------------------------------------------------------

    def newSession(self, options: Any = UNDEFINED) -> Any:
        given = js_get(options, "id")
        if given is not UNDEFINED and (not isinstance(given, str) or not _SESSION_ID.match(given)):
            raise ScriptError(_INVALID_ID)
        self.session_id = given if given is not UNDEFINED else uuid7(self._now())
        timestamp = iso_timestamp(self._now())
        header = _defined(
            [
                ("type", "session"),
                ("version", CURRENT_SESSION_VERSION),
                ("id", self.session_id),
                ("timestamp", timestamp),
                ("cwd", self.cwd),
                ("parentSession", js_get(options, "parentSession")),
            ]
        )
        self.file_entries = [header]
        self.by_id.clear()
        self.labels.clear()
        self.label_timestamps.clear()
        self.leaf_id = None
        self.flushed = False
        if self.persist and self.session_dir is not None:
            stamp = timestamp.replace(":", "-").replace(".", "-")
            self.session_file = posixpath.join(self.session_dir, f"{stamp}_{self.session_id}.jsonl")
        return self.session_file if self.session_file is not None else UNDEFINED

    def appendMessage(self, message: Any) -> str:
        return self._append(_defined([*self._base("message"), ("message", message)]))

    def appendThinkingLevelChange(self, level: Any) -> str:
        return self._append(_defined([*self._base("thinking_level_change"), ("thinkingLevel", level)]))

    def appendModelChange(self, provider: Any, model_id: Any) -> str:
        return self._append(_defined([*self._base("model_change"), ("provider", provider), ("modelId", model_id)]))

    def appendUsage(self, kind: Any, provider: Any, model: Any, usage: Any, note: Any = UNDEFINED) -> Entry:
        entry = _defined(
            [
                *self._base("usage"),
                ("kind", kind),
                ("provider", provider),
                ("model", model),
                ("usage", usage),
                ("note", note if js_truthy(note) else UNDEFINED),
            ]
        )
        self._append(entry)
        return entry

    def appendCompaction(
        self,
        summary: Any,
        first_kept_entry_id: Any = UNDEFINED,
        tokens_before: Any = UNDEFINED,
        details: Any = UNDEFINED,
        from_hook: Any = UNDEFINED,
        usage: Any = UNDEFINED,
    ) -> str:
        timestamp_ms = self._now()
        projection = build_session_projection(self._entries(), self.leaf_id, self.by_id)
        system = current_system_message(projection.messages)
        entry = compaction_entry(
            entry_id=self._generate_id(self.by_id),
            parent_id=self.leaf_id,
            timestamp_ms=timestamp_ms,
            summary=summary,
            first_kept_entry_id=first_kept_entry_id,
            tokens_before=tokens_before,
            details=details,
            usage=usage,
            from_hook=from_hook,
            system_message=system,
        )
        return self._append(entry)

    def appendCustomEntry(self, custom_type: Any, data: Any = UNDEFINED) -> str:
        entry_id = self._generate_id(self.by_id)
        return self._append(
            _defined(
                [
                    ("type", "custom"),
                    ("customType", custom_type),
                    ("data", data),
                    ("id", entry_id),
                    ("parentId", self.leaf_id),
                    ("timestamp", iso_timestamp(self._now())),
                ]
            )
        )

    def appendSessionInfo(self, name: Any) -> str:
        sanitized = js_trim(re.sub(r"[\r\n]+", " ", str(name)))
        return self._append(_defined([*self._base("session_info"), ("name", sanitized)]))

    def appendCustomMessageEntry(self, custom_type: Any, content: Any, display: Any, details: Any = UNDEFINED) -> str:
        entry_id = self._generate_id(self.by_id)
        return self._append(
            _defined(
                [
                    ("type", "custom_message"),
                    ("customType", custom_type),
                    ("content", content),
                    ("display", display),
                    ("details", details),
                    ("id", entry_id),
                    ("parentId", self.leaf_id),
                    ("timestamp", iso_timestamp(self._now())),
                ]
            )
        )

    def appendContextEdit(self, target_id: Any, replacement: Any) -> str:
        if replacement is not None and (
            not isinstance(replacement, dict)
            or "content" not in replacement
            or not isinstance(replacement["content"], (str, list))
        ):
            raise ScriptError("Context edit replacement must be null or contain string/array content")
        target = self._need(target_id)
        if not any(e.get("id") == target_id for e in self.getBranch()):
            raise ScriptError(f"Entry {_js_str(target_id)} is not on the active branch")
        kind = target.get("type")
        role = js_get(target.get("message"), "role") if kind == "message" else "custom"
        editable = kind == "custom_message" or (kind == "message" and role in ("user", "assistant", "toolResult"))
        if not editable:
            raise ScriptError(f"Entry {_js_str(target_id)} does not contribute editable model content")
        normalized = replacement
        if replacement is not None and role in ("assistant", "toolResult") and isinstance(replacement["content"], str):
            normalized = {"content": [{"type": "text", "text": replacement["content"]}]}
        return self._append(
            _defined([*self._base("context_edit"), ("targetId", target_id), ("replacement", normalized)])
        )

    def appendLabelChange(self, target_id: Any, label: Any = UNDEFINED) -> str:
        self._need(target_id)
        entry = _defined([*self._base("label"), ("targetId", target_id), ("label", label)])
        entry_id = self._append(entry)
        self._set_label(target_id, label, entry["timestamp"])
        return entry_id

    def branch(self, branch_from_id: Any) -> None:
        self._need(branch_from_id)
        self.leaf_id = branch_from_id

    def resetLeaf(self) -> None:
        self.leaf_id = None

    def branchWithSummary(
        self,
        branch_from_id: Any,
        summary: Any,
        details: Any = UNDEFINED,
        from_hook: Any = UNDEFINED,
        usage: Any = UNDEFINED,
    ) -> str:
        if branch_from_id is not None:
            self._need(branch_from_id)
        from_id = self.leaf_id if self.leaf_id is not None else "root"
        self.leaf_id = branch_from_id
        entry = branch_summary_entry(
            entry_id=self._generate_id(self.by_id),
            parent_id=branch_from_id,
            timestamp_ms=self._now(),
            from_id=from_id,
            summary=summary,
            details=details,
            usage=usage,
            from_hook=from_hook,
        )
        return self._append(entry)

    def getLeafId(self) -> Any:
        return self.leaf_id

    def getEntry(self, entry_id: Any) -> Any:
        return self.by_id.get(entry_id, UNDEFINED) if _hashable(entry_id) else UNDEFINED

    def getEntries(self) -> list[Entry]:
        return self._entries()

    def getHeader(self) -> Any:
        return next((e for e in self.file_entries if e.get("type") == "session"), None)

    def getLabel(self, entry_id: Any) -> Any:
        return self.labels.get(entry_id, UNDEFINED) if _hashable(entry_id) else UNDEFINED

    def getChildren(self, parent_id: Any) -> list[Entry]:
        return [e for e in self.by_id.values() if e.get("parentId", UNDEFINED) == parent_id]

    def getBranch(self, from_id: Any = UNDEFINED) -> list[Entry]:
        start = self.leaf_id if from_id is UNDEFINED or from_id is None else from_id
        current = self.by_id.get(start) if js_truthy(start) and _hashable(start) else None
        path: list[Entry] = []
        seen: set[int] = set()
        while current is not None and id(current) not in seen:
            seen.add(id(current))
            path.append(current)
            parent = current.get("parentId")
            current = self.by_id.get(parent) if js_truthy(parent) and _hashable(parent) else None
        path.reverse()
        return path

    def getTree(self) -> list[Json]:
        labels = {k: Label(v, self.label_timestamps.get(k)) for k, v in self.labels.items()}
        return [_node_json(node) for node in build_tree(self._entries(), labels).roots]

    def buildSessionContext(self) -> Json:
        projection = build_session_projection(self._entries(), self.leaf_id, self.by_id)
        return {
            "messages": projection.messages,
            "thinkingLevel": projection.thinking_level,
            "model": projection.model.to_json() if projection.model else None,
        }

    def getSessionFile(self) -> Any:
        return self.session_file if self.session_file is not None else UNDEFINED

    def createBranchedSession(self, leaf_id: Any) -> Any:
        previous_file = self.session_file
        path = self.getBranch(leaf_id)
        if not path:
            raise ScriptError(f"Entry {_js_str(leaf_id)} not found")
        kept: list[Entry] = []
        replacement_by_label: dict[Any, Any] = {}
        pending: list[Any] = []
        parent: Any = None
        for entry in path:
            if entry.get("type") == "label":
                pending.append(entry.get("id"))
                continue
            for label_id in pending:
                replacement_by_label[label_id] = entry.get("id")
            pending.clear()
            copied = {**entry, "parentId": parent}
            if entry.get("type") == "compaction":
                first = entry.get("firstKeptEntryId")
                copied["firstKeptEntryId"] = (
                    entry.get("id") if first == entry.get("id") else replacement_by_label.get(first, first)
                )
            kept.append(copied)
            parent = entry.get("id")
        new_id = uuid7(self._now())
        timestamp = iso_timestamp(self._now())
        header = _defined(
            [
                ("type", "session"),
                ("version", CURRENT_SESSION_VERSION),
                ("id", new_id),
                ("timestamp", timestamp),
                ("cwd", self.cwd),
                ("parentSession", previous_file if self.persist and previous_file is not None else UNDEFINED),
            ]
        )
        kept_ids = {e.get("id") for e in kept}
        labels_to_write = [
            (target, label, self.label_timestamps.get(target))
            for target, label in self.labels.items()
            if target in kept_ids
        ]
        label_parent: Any = (kept[-1].get("id") if kept else None) or None
        label_entries: list[Entry] = []
        for target, label, label_timestamp in labels_to_write:
            label_entry = {
                "type": "label",
                "id": self._generate_id(kept_ids),
                "parentId": label_parent,
                "timestamp": label_timestamp,
                "targetId": target,
                "label": label,
            }
            kept_ids.add(label_entry["id"])
            label_entries.append(label_entry)
            label_parent = label_entry["id"]
        self.file_entries = [header, *kept, *label_entries]
        self.session_id = new_id
        if self.persist and self.session_dir is not None:
            stamp = timestamp.replace(":", "-").replace(".", "-")
            self.session_file = posixpath.join(self.session_dir, f"{stamp}_{new_id}.jsonl")
            self._build_index()
            if self._has_conversation():
                error = write_new_session_file(self.session_file, self.file_entries)
                if error is not None:
                    raise ScriptError(error)
                self.flushed = True
            else:
                self.flushed = False
            return self.session_file
        self._build_index()
        return UNDEFINED


def _hashable(value: Any) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


def _js_str(value: Any) -> str:
    if value is UNDEFINED:
        return "undefined"
    if value is None:
        return "null"
    return str(value)


def _node_json(node: TreeNode) -> Json:
    out: dict[str, Any] = {"entry": node.entry, "children": [_node_json(child) for child in node.children]}
    if node.label is not None:
        out["label"] = node.label
        out["labelTimestamp"] = node.label_timestamp
    return out


def _resolve_refs(value: Any, refs: dict[str, Any]) -> Any:
    if value == "$undefined":
        return UNDEFINED
    if isinstance(value, str) and value.startswith("$"):
        if value[1:] not in refs:
            raise OpError(f"unknown ref {value}")
        return refs[value[1:]]
    return value


def mask_session_ids(req: dict[str, Any], result: Json) -> Json:
    """Session ids from Pi's ``uuidv7`` carry random bits: compared by shape, not value."""

    def fix(value: Any) -> Any:
        if isinstance(value, str):
            return _UUID7.sub("<uuidv7>", value)
        if isinstance(value, list):
            return [fix(v) for v in value]
        if isinstance(value, dict):
            return {k: fix(v) for k, v in value.items()}
        return value

    return fix(copy.deepcopy(result))


@OPS.op("session_script", mask=mask_session_ids)
def session_script_op(req: dict[str, Any], ctx: EvalContext) -> Json:
    own_tmp: str | None = None
    session_dir: str | None = None
    if req.get("persist"):
        if isinstance(req.get("sessionDir"), str):
            session_dir = req["sessionDir"]
        else:
            base = str(ctx.tmp) if ctx.tmp is not None else tempfile.mkdtemp(prefix="pi-context-eval-")
            own_tmp = None if ctx.tmp is not None else base
            session_dir = posixpath.join(base, "sessions")
    try:
        out = _run_script(req, ctx, session_dir)
        if own_tmp is not None:
            out = _replace_strings(out, lambda s: s.replace(own_tmp, "${TMP}"))
        return out
    finally:
        if own_tmp is not None:
            shutil.rmtree(own_tmp, ignore_errors=True)


def _run_script(req: dict[str, Any], ctx: EvalContext, session_dir: str | None) -> Json:
    manager = ScriptedSessionManager(
        ctx, req.get("cwd") or "/project", session_dir, bool(req.get("persist")), _session_id(req)
    )
    refs: dict[str, Any] = {}
    results: list[dict[str, Any]] = []
    for step in req.get("steps") or []:
        name = step.get("do")
        args = [_resolve_refs(a, refs) for a in step.get("args") or []]
        method: Callable[..., Any] | None = getattr(manager, str(name), None)
        if method is None or str(name).startswith("_"):
            results.append({"do": name, "error": "sm[step.do] is not a function"})
            continue
        try:
            value = method(*args)
        except ScriptError as exc:
            results.append({"do": name, "error": str(exc)})
            continue
        if step.get("as"):
            refs[step["as"]] = value
        results.append({"do": name, "value": None if value is UNDEFINED or value is None else value})
    out: dict[str, Any] = {
        "refs": {k: v for k, v in refs.items() if v is not UNDEFINED},
        "results": results,
        "header": manager.getHeader(),
        "entries": manager.getEntries(),
        "leafId": manager.leaf_id,
        "sessionFile": manager.session_file,
    }
    if req.get("includeTree"):
        out["tree"] = manager.getTree()
    if req.get("includeContext"):
        out["context"] = manager.buildSessionContext()
    if req.get("persist"):
        file = manager.session_file
        if file is not None and os.path.exists(file):
            with open(file, "rb") as handle:
                out["fileText"] = handle.read().decode("utf-8")
        else:
            out["fileText"] = None
    return as_json(out)


def _replace_strings(value: Any, fn: Callable[[str], str]) -> Any:
    if isinstance(value, str):
        return fn(value)
    if isinstance(value, list):
        return [_replace_strings(v, fn) for v in value]
    if isinstance(value, dict):
        return {k: _replace_strings(v, fn) for k, v in value.items()}
    return value


def _session_id(req: dict[str, Any]) -> Any:
    """``req.sessionId ?? "test-session"`` (an explicit empty id is kept and rejected, as in Pi)."""
    value = req.get("sessionId")
    return "test-session" if value is None else value
