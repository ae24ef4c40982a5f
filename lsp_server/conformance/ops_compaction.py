"""Conformance ops for cut points, the compaction preparation and Pi's constants (the oracle ops of
the same names).

These need no model. The ops that call one (``compact``, ``branch_summary``) and the branch-entry ops
that share their module's imports live in :mod:`.ops_summaries`, so that answering ``prepare_compaction``
on a large session loads neither asyncio nor the model client (``debug eval`` imports only the module of
the op it answers).

What :func:`mask_constants` hides, and only that: the summarization system prompt, which is our wording.
"""

from __future__ import annotations

import copy
from typing import Any

from lsp_server.compaction.cut_points import CutPoint, find_cut_point, find_turn_start_index
from lsp_server.compaction.prepare import prepare_compaction
from lsp_server.compaction.prompts import SUMMARIZATION_SYSTEM_PROMPT
from lsp_server.conformance.op_table import EvalContext, OpError, OpTable
from lsp_server.conformance.ops_session import (
    as_json,
    brief_message,
    decode_entries,
    require_no_null,
    require_no_null_until,
)
from lsp_server.js.errors import cannot_read
from lsp_server.js.values import UNDEFINED, js_get, js_truthy
from lsp_server.prompt.sections import DEFAULT_SELECTED_TOOLS
from lsp_server.session.messages import (
    BRANCH_SUMMARY_PREFIX,
    BRANCH_SUMMARY_SUFFIX,
    COMPACTION_SUMMARY_PREFIX,
    COMPACTION_SUMMARY_SUFFIX,
)
from lsp_server.session.raw import CURRENT_SESSION_VERSION
from lsp_server.truncate import DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, GREP_MAX_LINE_LENGTH
from lsp_server.vocabulary.compaction import DEFAULT_COMPACTION_SETTINGS, CompactionSettings
from lsp_server.vocabulary.pi_files import AGENT_DIR_ENV, PROJECT_CONFIG_DIR

OPS = OpTable()


Json = Any

MASKED_SYSTEM_PROMPT = "<summarization system prompt>"


# --- cut points ------------------------------------------------------------------------------------


def _index_arg(req: dict[str, Any], key: str, default: int) -> int:
    value = req.get(key)
    return default if value is None else int(value)


@OPS.op("find_cut_point")
def find_cut_point_op(req: dict[str, Any], ctx: EvalContext) -> Json:
    entries, _ = decode_entries(req, ctx)
    start = _index_arg(req, "startIndex", 0)
    end = _index_arg(req, "endIndex", len(entries))
    require_no_null(entries[max(start, 0) : end], "type")  # findValidCutPoints reads every entry's type
    keep = req.get("keepRecentTokens")
    cut = find_cut_point(entries, start, end, DEFAULT_COMPACTION_SETTINGS.keep_recent_tokens if keep is None else keep)
    return as_json({**cut.to_json(), **_cut_ids(entries, cut), "entryCount": len(entries)})


def _cut_ids(entries: list[Any], cut: CutPoint) -> dict[str, Any]:
    def id_at(index: int) -> Any:
        if 0 <= index < len(entries):
            value = js_get(entries[index], "id")
            return None if value is UNDEFINED else value
        return None

    return {
        "firstKeptEntryId": id_at(cut.first_kept_entry_index),
        "turnStartEntryId": id_at(cut.turn_start_index) if cut.turn_start_index >= 0 else None,
    }


@OPS.op("find_turn_start_index")
def find_turn_start_index_op(req: dict[str, Any], ctx: EvalContext) -> Json:
    entries, _ = decode_entries(req, ctx)
    entry_index = req.get("entryIndex")
    if not isinstance(entry_index, int):
        raise OpError("entryIndex must be a number")
    start = _index_arg(req, "startIndex", 0)
    found = lambda entry: find_turn_start_index([entry], 0, 0) == 0  # noqa: E731
    require_no_null_until(entries, range(min(entry_index, len(entries) - 1), max(start, 0) - 1, -1), found, "type")
    return {"index": find_turn_start_index(entries, entry_index, start)}


# --- compaction ------------------------------------------------------------------------------------


def settings_of(req: dict[str, Any]) -> tuple[CompactionSettings, dict[str, Any]]:
    """The oracle's ``compactionSettings``: the request's keys over Pi's defaults (echoed as given)."""
    merged = {**DEFAULT_COMPACTION_SETTINGS.to_json(), **(req.get("settings") or {})}
    settings = CompactionSettings(
        enabled=js_truthy(merged.get("enabled")),
        reserve_tokens=merged.get("reserveTokens", 0),
        keep_recent_tokens=merged.get("keepRecentTokens", 0),
    )
    return settings, merged


def require_compactable(entries: list[Any]) -> None:
    """Where ``prepareCompaction`` throws on a ``null`` entry: the last one's type, then buildEntryIndex."""
    if entries and entries[-1] is None:
        raise cannot_read(None, "type")
    require_no_null(entries, "id")


@OPS.op("prepare_compaction")
def prepare_compaction_op(req: dict[str, Any], ctx: EvalContext) -> Json:
    entries, _ = decode_entries(req, ctx)
    require_compactable(entries)
    settings, merged = settings_of(req)
    prep = prepare_compaction(entries, settings)
    if prep is None:
        return {"preparation": None}
    preparation = {**prep.to_json(), "settings": merged}
    if req.get("brief"):
        preparation["messagesToSummarize"] = [brief_message(m) for m in prep.messages_to_summarize]
        preparation["turnPrefixMessages"] = [brief_message(m) for m in prep.turn_prefix_messages]
    return as_json(
        {
            "preparation": preparation,
            "messagesToSummarizeCount": len(prep.messages_to_summarize),
            "turnPrefixMessagesCount": len(prep.turn_prefix_messages),
            "fileLists": prep.file_lists.to_json(),
        }
    )


# --- masks -------------------------------------------------------------------------------------------


def mask_constants(req: dict[str, Any], result: Json) -> Json:
    if not isinstance(result, dict):
        return result
    out = copy.deepcopy(result)
    if "SUMMARIZATION_SYSTEM_PROMPT" in out:
        out["SUMMARIZATION_SYSTEM_PROMPT"] = MASKED_SYSTEM_PROMPT
    return out


# --- constants -------------------------------------------------------------------------------------


@OPS.op("constants", mask=mask_constants)
def constants_op(req: dict[str, Any], ctx: EvalContext) -> Json:
    return {
        "CONFIG_DIR_NAME": PROJECT_CONFIG_DIR,
        "APP_NAME": "pi",
        "ENV_AGENT_DIR": AGENT_DIR_ENV,
        "CURRENT_SESSION_VERSION": CURRENT_SESSION_VERSION,
        "DEFAULT_COMPACTION_SETTINGS": DEFAULT_COMPACTION_SETTINGS.to_json(),
        "SUMMARIZATION_SYSTEM_PROMPT": SUMMARIZATION_SYSTEM_PROMPT,
        "COMPACTION_SUMMARY_PREFIX": COMPACTION_SUMMARY_PREFIX,
        "COMPACTION_SUMMARY_SUFFIX": COMPACTION_SUMMARY_SUFFIX,
        "BRANCH_SUMMARY_PREFIX": BRANCH_SUMMARY_PREFIX,
        "BRANCH_SUMMARY_SUFFIX": BRANCH_SUMMARY_SUFFIX,
        "DEFAULT_MAX_LINES": DEFAULT_MAX_LINES,
        "DEFAULT_MAX_BYTES": DEFAULT_MAX_BYTES,
        "GREP_MAX_LINE_LENGTH": GREP_MAX_LINE_LENGTH,
        "DEFAULT_TOOL_NAMES": list(DEFAULT_SELECTED_TOOLS),
    }
