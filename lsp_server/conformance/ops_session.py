"""Conformance ops for sessions, context tokens, message conversion, serialization and truncation.

Each op answers like the oracle's op of the same name (``shared/oracle/pi-oracle.mjs``): session
entries come as ``entries``, ``jsonl`` or ``jsonlFile``, headers are dropped and old sessions
migrated with the oracle's deterministic ids; long outputs are elided the way the oracle's
``describeText`` elides them. Where we report more than Pi (skipped lines, tree problems), the
extra detail goes under a ``pi-context`` key, which the subset comparison ignores.
"""

from __future__ import annotations

import copy
import hashlib
import math
from typing import Any

from lsp_server.compaction.file_ops import (
    FileOps,
    compute_file_lists,
    extract_file_ops_from_message,
    format_file_operations,
)
from lsp_server.compaction.serialize import serialize_conversation
from lsp_server.conformance.op_table import EvalContext, OpError, OpTable, gen_content
from lsp_server.js.errors import cannot_read
from lsp_server.js.strings import js_len, js_slice, node_utf8
from lsp_server.js.values import UNDEFINED, is_nullish, js_get, js_join_part, js_to_string
from lsp_server.prompt.system_messages import current_system_message, system_message_text
from lsp_server.session.estimates import (
    calculate_context_tokens,
    estimate_context_tokens,
    get_last_assistant_usage,
    pi_estimate_tokens,
    should_compact,
)
from lsp_server.session.jsonl import (
    ParsedLines,
    migrate_session_entries,
    parse_session_text,
    read_entries_from_file,
    read_session_values,
)
from lsp_server.session.messages import convert_to_llm
from lsp_server.session.projection import build_session_projection
from lsp_server.session.raw import Entry
from lsp_server.truncate import format_size, truncate_head, truncate_line, truncate_tail
from lsp_server.vocabulary.compaction import DEFAULT_COMPACTION_SETTINGS, CompactionSettings

OPS = OpTable()


Json = Any


def _problems(parsed: ParsedLines) -> list[dict[str, Any]]:
    return [problem.to_json() for problem in parsed.problems]


def decode_entries(req: dict[str, Any], ctx: EvalContext, key: str = "entries") -> tuple[list[Any], Entry | None]:
    """The oracle's ``decodeEntries``: entries without the header, migrated unless ``migrate: false``.

    Like Pi's ``parseSessionEntries``, every JSON value is kept, not only objects: a line ``42``
    or ``[1,2]`` is an entry to Pi's functions too (with no id, type or parent), and a ``null``
    makes them throw where they read a property of it (:func:`require_no_null`).
    """
    raw = req.get(key)
    if isinstance(raw, list):
        file_entries = copy.deepcopy(raw)
    elif isinstance(req.get("jsonl"), str):
        file_entries = parse_session_text(req["jsonl"]).values
    elif isinstance(req.get("jsonlFile"), str):
        file_entries = read_session_values(req["jsonlFile"]).values
    else:
        raise OpError(f"missing {key} (array) or jsonl (string) or jsonlFile (path)")
    ctx.retain(file_entries)
    header = next((e for e in file_entries if js_get(e, "type") == "session"), None)
    if req.get("migrate") is not False and header is not None:
        migrate_session_entries(file_entries)
    return [e for e in file_entries if js_get(e, "type") != "session"], header


def require_no_null(entries: list[Any], key: str) -> None:
    """Pi's function reads ``entry.<key>`` of every entry first: a ``null`` entry throws there."""
    if any(entry is None for entry in entries):
        raise cannot_read(None, key)


def require_no_null_until(entries: list[Any], indices: range, found: Any, key: str) -> None:
    """Pi's loop over ``indices`` reads ``entry.<key>`` until ``found(entry)``: a ``null`` before that throws."""
    for index in indices:
        entry = entries[index]
        if entry is None:
            raise cannot_read(None, key)
        if found(entry):
            return


def describe_text(text: Any, full: Any) -> Any:
    """The oracle's ``describeText``: strings over 4000 UTF-16 units become a short description."""
    if not isinstance(text, str):
        return text
    if full or js_len(text) <= 4000:
        return text
    data = node_utf8(text)
    return {
        "elided": True,
        "length": js_len(text),
        "bytes": len(data),
        "lines": 0 if not text else text.count("\n") + 1,
        "sha256": hashlib.sha256(data).hexdigest(),
        "head": js_slice(text, 0, 300),
        "tail": js_slice(text, -300),
    }


def brief_message(message: Any) -> dict[str, Any]:
    """The oracle's ``briefMessage``: role, an 80-unit preview, timestamp."""
    content = js_get(message, "content")
    text: Any
    if isinstance(content, str):
        text = content
    elif isinstance(content, list):
        pieces = []
        for block in content:
            kind = js_get(block, "type")
            if kind == "text":
                pieces.append(js_join_part(js_get(block, "text")))
            elif kind == "toolCall":
                pieces.append(f"<toolCall {js_to_string(js_get(block, 'name'))}>")
            elif kind == "thinking":
                pieces.append("<thinking>")
            else:
                pieces.append(f"<{js_to_string(kind)}>")
        text = " ".join(pieces)
    else:
        summary = js_get(message, "summary")
        command = js_get(message, "command")
        text = summary if not is_nullish(summary) else command if not is_nullish(command) else ""
    preview = f"{js_slice(text, 0, 80)}…" if isinstance(text, str) and js_len(text) > 80 else text
    out: dict[str, Any] = {"role": js_get(message, "role"), "preview": preview}
    timestamp = js_get(message, "timestamp")
    if timestamp is not UNDEFINED:
        out["timestamp"] = timestamp
    out = {k: v for k, v in out.items() if v is not UNDEFINED}
    return out


# --- session files --------------------------------------------------------------------------------


@OPS.op("parse_session_jsonl")
def parse_session_jsonl_op(req: dict[str, Any], ctx: EvalContext) -> Json:
    jsonl = req.get("jsonl")
    if not isinstance(jsonl, str):
        raise OpError("jsonl must be a string")
    parsed = parse_session_text(jsonl)
    if req.get("migrate") is not False:
        migrate_session_entries(parsed.values)  # Pi's fileEntries: every JSON line, whatever its type
    return as_json({"fileEntries": parsed.values, "pi-context": {"problems": _problems(parsed)}})


@OPS.op("load_session_file")
def load_session_file_op(req: dict[str, Any], ctx: EvalContext) -> Json:
    path = req.get("path")
    if not isinstance(path, str):
        raise OpError("path must be a string")
    result = read_entries_from_file(path)
    after: str | None = None
    if result.exists:
        with open(path, "rb") as handle:
            after = handle.read().decode("utf-8", errors="replace")
        # Pi appends the missing newline when it loads; we never write, we say what it would do.
        if result.needs_newline:
            after += "\n"
    return as_json(
        {
            "entries": result.entries,
            "fileChanged": result.needs_newline,
            "fileAfter": after,
            "pi-context": {
                "problems": [p.to_json() for p in result.problems],
                "error": result.error,
                "lines": result.lines,
            },
        }
    )


def _leaf_arg(req: dict[str, Any]) -> Any:
    return req.get("leafId", UNDEFINED)


@OPS.op("build_session_context")
def build_session_context_op(req: dict[str, Any], ctx: EvalContext) -> Json:
    entries, _ = decode_entries(req, ctx)
    require_no_null(entries, "id")  # buildEntryIndex
    projection = build_session_projection(entries, _leaf_arg(req))
    out: dict[str, Any] = {
        "messages": projection.messages,
        "thinkingLevel": projection.thinking_level,
        "model": projection.model.to_json() if projection.model else None,
        "contextEntryIds": [js_get(p.source_entry, "id") for p in projection.entries],
        "projection": [
            {
                "id": js_get(p.source_entry, "id"),
                "type": js_get(p.source_entry, "type"),
                "messageCount": len(p.messages),
            }
            for p in projection.entries
        ],
    }
    llm_messages = convert_to_llm(projection.messages) if req.get("llm") else None
    if llm_messages is not None:
        out["llmMessages"] = llm_messages
    if req.get("includeSystemText"):
        system = current_system_message(projection.messages)
        out["systemText"] = system_message_text(system) if system is not None else ""
    if req.get("summaryOnly") or req.get("brief"):
        out["messages"] = [brief_message(m) for m in projection.messages]
        if llm_messages is not None:
            out["llmMessages"] = [brief_message(m) for m in llm_messages]
    return as_json(out)


def as_json(value: Any) -> Any:
    """The value after a JSON round trip, as the oracle answers: no ``undefined`` keys, NaN/Infinity null."""
    if isinstance(value, dict):
        return {k: as_json(v) for k, v in value.items() if v is not UNDEFINED}
    if isinstance(value, list):
        return [None if v is UNDEFINED else as_json(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


# --- tokens ----------------------------------------------------------------------------------------


@OPS.op("estimate_tokens")
def estimate_tokens_op(req: dict[str, Any], ctx: EvalContext) -> Json:
    if req.get("message"):
        return as_json({"tokens": pi_estimate_tokens(req["message"])})
    messages = req.get("messages") or []
    per_message = [pi_estimate_tokens(m) for m in messages]
    return as_json(
        {
            "perMessage": per_message,
            "total": sum(per_message),
            "contextEstimate": estimate_context_tokens(messages, pi_estimate_tokens).to_json(),
        }
    )


@OPS.op("calculate_context_tokens")
def calculate_context_tokens_op(req: dict[str, Any], ctx: EvalContext) -> Json:
    return {"tokens": calculate_context_tokens(req.get("usage"))}


@OPS.op("get_last_assistant_usage")
def get_last_assistant_usage_op(req: dict[str, Any], ctx: EvalContext) -> Json:
    entries, _ = decode_entries(req, ctx)
    found = lambda entry: get_last_assistant_usage([entry]) is not None  # noqa: E731
    require_no_null_until(entries, range(len(entries) - 1, -1, -1), found, "type")
    return {"usage": get_last_assistant_usage(entries)}


@OPS.op("should_compact")
def should_compact_op(req: dict[str, Any], ctx: EvalContext) -> Json:
    merged = {**DEFAULT_COMPACTION_SETTINGS.to_json(), **(req.get("settings") or {})}
    settings = CompactionSettings(
        enabled=bool(merged.get("enabled")),
        reserve_tokens=merged.get("reserveTokens", 0),
        keep_recent_tokens=merged.get("keepRecentTokens", 0),
    )
    return {
        "shouldCompact": should_compact(req.get("contextTokens", 0), req.get("contextWindow", 0), settings),
        "settings": merged,
    }


# --- messages, serialization, file lists -----------------------------------------------------------


@OPS.op("convert_to_llm")
def convert_to_llm_op(req: dict[str, Any], ctx: EvalContext) -> Json:
    return {"messages": convert_to_llm(req.get("messages") or [])}


@OPS.op("serialize_conversation")
def serialize_conversation_op(req: dict[str, Any], ctx: EvalContext) -> Json:
    messages = req.get("messages") or []
    if req.get("convertToLlm"):
        messages = convert_to_llm(messages)
    return {"text": serialize_conversation(messages, ctx.rules)}


@OPS.op("compute_file_lists")
def compute_file_lists_op(req: dict[str, Any], ctx: EvalContext) -> Json:
    given = req.get("fileOps") or {}
    ops = FileOps.of(given.get("read") or (), given.get("written") or (), given.get("edited") or ())
    for message in req.get("messages") or []:
        extract_file_ops_from_message(message, ops)
    lists = compute_file_lists(ops)
    return {
        "fileOps": ops.to_json(),
        **lists.to_json(),
        "formatted": format_file_operations(lists.read_files, lists.modified_files),
    }


# --- truncation ------------------------------------------------------------------------------------


def _limits(req: dict[str, Any]) -> dict[str, int]:
    options = req.get("options") or {}
    limits: dict[str, int] = {}
    if not is_nullish(options.get("maxLines")):
        limits["max_lines"] = options["maxLines"]
    if not is_nullish(options.get("maxBytes")):
        limits["max_bytes"] = options["maxBytes"]
    return limits


@OPS.op("truncate_head")
def truncate_head_op(req: dict[str, Any], ctx: EvalContext) -> Json:
    result = truncate_head(gen_content(req.get("content")), **_limits(req)).to_json()
    return {**result, "content": describe_text(result["content"], req.get("fullContent"))}


@OPS.op("truncate_tail")
def truncate_tail_op(req: dict[str, Any], ctx: EvalContext) -> Json:
    result = truncate_tail(gen_content(req.get("content")), **_limits(req)).to_json()
    return {**result, "content": describe_text(result["content"], req.get("fullContent"))}


@OPS.op("truncate_line")
def truncate_line_op(req: dict[str, Any], ctx: EvalContext) -> Json:
    line = gen_content(req.get("line"))
    result = (
        truncate_line(line, req["maxChars"], ctx.rules) if "maxChars" in req else truncate_line(line, rules=ctx.rules)
    )
    return {**result.to_json(), "text": describe_text(result.text, req.get("fullContent"))}


@OPS.op("format_size")
def format_size_op(req: dict[str, Any], ctx: EvalContext) -> Json:
    return {"text": format_size(req.get("bytes", 0))}
