"""Which files a conversation read and modified (Pi's file-operation lists).

A compaction or branch summary ends with ``<read-files>`` / ``<modified-files>`` blocks so the
model keeps knowing which files it touched after the messages are gone; the same lists are stored
in the entry's ``details`` and carried into the next compaction. They come from the ``path``
argument of ``read``, ``write`` and ``edit`` tool calls, including calls a codemode script made
(recorded as ``nestedCalls`` on its tool result). Only those three tools and only the ``path``
argument count: ``grep`` or a ``file_path`` argument are ignored, as in Pi.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from lsp_server.js.strings import js_sorted
from lsp_server.js.values import js_get, js_truthy


@dataclass
class FileOps:
    """Pi's ``FileOperations``: three insertion-ordered sets (dict keys keep the order)."""

    read: dict[str, None] = field(default_factory=dict)
    written: dict[str, None] = field(default_factory=dict)
    edited: dict[str, None] = field(default_factory=dict)

    @classmethod
    def of(cls, read: Iterable[str] = (), written: Iterable[str] = (), edited: Iterable[str] = ()) -> FileOps:
        return cls(dict.fromkeys(read), dict.fromkeys(written), dict.fromkeys(edited))

    def to_json(self) -> dict[str, list[str]]:
        return {"read": list(self.read), "written": list(self.written), "edited": list(self.edited)}


@dataclass(frozen=True)
class FileLists:
    """Sorted lists for the summary: files only read, and files written or edited."""

    read_files: list[str]
    modified_files: list[str]

    def to_json(self) -> dict[str, list[str]]:
        return {"readFiles": self.read_files, "modifiedFiles": self.modified_files}


def seed_from_summary(entry: Any, ops: FileOps) -> None:
    """Carry a summary entry's file lists over (``details.readFiles`` / ``modifiedFiles``), as Pi does.

    Compactions and branch summaries both do it; an entry written by an extension (``fromHook``)
    or without details carries nothing.
    """
    if entry is None or js_truthy(js_get(entry, "fromHook")):
        return
    details = js_get(entry, "details")
    if not js_truthy(details):
        return
    read, modified = js_get(details, "readFiles"), js_get(details, "modifiedFiles")
    for path in read if isinstance(read, list) else ():
        if isinstance(path, str):
            ops.read[path] = None
    for path in modified if isinstance(modified, list) else ():
        if isinstance(path, str):
            ops.edited[path] = None


def add_file_op(tool_name: Any, arguments: Any, ops: FileOps) -> None:
    """Record one call: ``read``/``write``/``edit`` with a non-empty string ``path``."""
    path = js_get(arguments, "path")
    if not isinstance(path, str) or not path:
        return
    if tool_name == "read":
        ops.read[path] = None
    elif tool_name == "write":
        ops.written[path] = None
    elif tool_name == "edit":
        ops.edited[path] = None


def extract_file_ops_from_message(message: Any, ops: FileOps) -> None:
    """Pi's ``extractFileOpsFromMessage``: assistant tool calls, or a tool result's nested calls."""
    role = js_get(message, "role")
    if role == "toolResult":
        calls = js_get(js_get(message, "nestedCalls"), "calls")
        for call in calls if isinstance(calls, list) else ():
            add_file_op(js_get(call, "name"), js_get(call, "arguments"), ops)
        return
    if role != "assistant":
        return
    content = js_get(message, "content")
    for block in content if isinstance(content, list) else ():
        if not isinstance(block, dict) or block.get("type") != "toolCall":
            continue
        if "arguments" not in block or "name" not in block:
            continue
        add_file_op(block["name"], block["arguments"], ops)


def compute_file_lists(ops: FileOps) -> FileLists:
    """Modified = edited then written; read-only = read minus modified; both sorted as JS sorts."""
    modified = dict.fromkeys([*ops.edited, *ops.written])
    read_only = [path for path in ops.read if path not in modified]
    return FileLists(js_sorted(read_only), js_sorted(modified))


def format_file_operations(read_files: list[str], modified_files: list[str]) -> str:
    """The blocks appended to a summary: ``\\n\\n<read-files>…`` and/or ``<modified-files>…``, or ""."""
    sections: list[str] = []
    if read_files:
        sections.append("<read-files>\n" + "\n".join(read_files) + "\n</read-files>")
    if modified_files:
        sections.append("<modified-files>\n" + "\n".join(modified_files) + "\n</modified-files>")
    if not sections:
        return ""
    return "\n\n" + "\n\n".join(sections)
