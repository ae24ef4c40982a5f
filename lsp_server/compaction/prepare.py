"""What a compaction would summarize and keep (Pi 1.6.0's ``prepareCompaction``), without a model.

Preparation is the deterministic half of compaction and the part a user wants to see before
anything is written: which entry becomes the first kept one, how many tokens the context has now
(Pi's own estimate, the number its trigger compares with the window), which messages go to the
summarizer as history and which as the prefix of a split turn, and which files the summary will
list. The summary itself comes later (:mod:`lsp_server.compaction.summarize`).

Pi works on the *projection* of the branch (context edits applied, the previous compaction's kept
range already in place) and answers "nothing" in three cases: the branch already ends with a
compaction, the first kept entry has no id, or there is nothing to summarize (everything fits in
``keepRecentTokens``). :func:`nothing_to_compact_reason` gives the sentence Pi's agent shows then.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from lsp_server.compaction.cut_points import CutPoint, find_projected_cut_point
from lsp_server.compaction.file_ops import (
    FileLists,
    FileOps,
    compute_file_lists,
    extract_file_ops_from_message,
    seed_from_summary,
)
from lsp_server.js.values import UNDEFINED, index_where, js_get, js_truthy
from lsp_server.session.estimates import estimate_projected_context_tokens
from lsp_server.session.messages import Message
from lsp_server.session.projection import ProjectedEntry, SessionProjection, project_path
from lsp_server.session.raw import Entry
from lsp_server.session.tree import build_path
from lsp_server.vocabulary.compaction import CompactionSettings

ALREADY_COMPACTED: Final = "Already compacted"
NOTHING_TO_COMPACT: Final = "Nothing to compact (session too small)"


@dataclass
class CompactionPreparation:
    """Pi's ``CompactionPreparation`` plus where the cut fell, for reports.

    ``previous_summary`` is :data:`UNDEFINED` when there was no earlier compaction (Pi leaves the
    key out). ``cut`` indexes ``projection.entries``; ``kept_entry_ids`` are the entries the model
    will still see verbatim after the compaction (path order, stored system messages excluded, as
    Pi's ``buildContextEntries`` selects them).
    """

    first_kept_entry_id: Any
    messages_to_summarize: list[Message]
    turn_prefix_messages: list[Message]
    is_split_turn: bool
    tokens_before: float
    previous_summary: Any
    file_ops: FileOps
    settings: CompactionSettings
    cut: CutPoint
    projection: SessionProjection = field(repr=False)
    kept_entry_ids: list[Any] = field(default_factory=list)

    @property
    def file_lists(self) -> FileLists:
        return compute_file_lists(self.file_ops)

    def to_json(self) -> dict[str, Any]:
        """Pi's object, key for key (``previousSummary`` absent when undefined)."""
        out: dict[str, Any] = {
            "firstKeptEntryId": self.first_kept_entry_id,
            "messagesToSummarize": self.messages_to_summarize,
            "turnPrefixMessages": self.turn_prefix_messages,
            "isSplitTurn": self.is_split_turn,
            "tokensBefore": self.tokens_before,
        }
        if self.previous_summary is not UNDEFINED:
            out["previousSummary"] = self.previous_summary
        out["fileOps"] = self.file_ops.to_json()
        out["settings"] = self.settings.to_json()
        return out


def _compaction_messages(item: ProjectedEntry) -> list[Message]:
    """What one projected entry gives the summarizer: nothing for compactions, no system messages."""
    if js_get(item.source_entry, "type") == "compaction":
        return []
    return [m for m in item.messages if js_get(m, "role") != "system"]


def _seed_file_ops(previous: Entry | None) -> FileOps:
    """File lists carried over from the previous compaction, unless an extension wrote it."""
    ops = FileOps()
    seed_from_summary(previous, ops)
    return ops


def _kept_entry_ids(path: Sequence[Entry], first_kept_id: Any) -> list[Any]:
    at = index_where(path, "id", first_kept_id)
    if at < 0:
        return []
    return [
        js_get(e, "id")
        for e in path[at:]
        if not (js_get(e, "type") == "message" and js_get(js_get(e, "message"), "role") == "system")
    ]


def prepare_compaction(
    path_entries: Sequence[Entry], settings: CompactionSettings, projection: SessionProjection | None = None
) -> CompactionPreparation | None:
    """Pi's ``prepareCompaction(pathEntries, settings)``; ``None`` when there is nothing to do.

    Pi projects ``path_entries`` from their last entry; a caller that already holds the path (root
    first) and its projection (:func:`~lsp_server.session.projection.project_path`) passes the
    projection so a large session is walked once.
    """
    if path_entries and js_get(path_entries[-1], "type") == "compaction":
        return None
    path: Sequence[Entry]
    if projection is None:
        path = build_path(path_entries)
        projection = project_path(path)
    else:
        path = path_entries
    projected = projection.entries
    previous_index = next(
        (i for i, item in enumerate(projected) if js_get(item.source_entry, "type") == "compaction" and item.messages),
        -1,
    )
    previous_summary: Any = UNDEFINED
    boundary_start = 0
    if previous_index >= 0:
        previous_summary = js_get(projected[previous_index].source_entry, "summary")
        boundary_start = previous_index + 1  # the projection already holds the previously kept tail
    boundary_end = len(projected)
    tokens_before = estimate_projected_context_tokens(projection, path_entries).tokens
    cut = find_projected_cut_point(projected, boundary_start, boundary_end, settings.keep_recent_tokens)
    at = cut.first_kept_entry_index
    first_kept_id = js_get(projected[at].source_entry, "id") if at < boundary_end else UNDEFINED
    if not js_truthy(first_kept_id):
        return None
    history_end = cut.turn_start_index if cut.is_split_turn else cut.first_kept_entry_index
    history = [m for item in projected[boundary_start:history_end] for m in _compaction_messages(item)]
    prefix = (
        [m for item in projected[cut.turn_start_index : cut.first_kept_entry_index] for m in _compaction_messages(item)]
        if cut.is_split_turn
        else []
    )
    if not history and not prefix:
        return None
    file_ops = _seed_file_ops(projected[previous_index].source_entry if previous_index >= 0 else None)
    for message in history:
        extract_file_ops_from_message(message, file_ops)
    for message in prefix:
        extract_file_ops_from_message(message, file_ops)
    return CompactionPreparation(
        first_kept_entry_id=first_kept_id,
        messages_to_summarize=history,
        turn_prefix_messages=prefix,
        is_split_turn=cut.is_split_turn,
        tokens_before=tokens_before,
        previous_summary=previous_summary,
        file_ops=file_ops,
        settings=settings,
        cut=cut,
        projection=projection,
        kept_entry_ids=_kept_entry_ids(path, first_kept_id),
    )


def nothing_to_compact_reason(path_entries: Sequence[Entry]) -> str:
    """The sentence Pi's agent throws when :func:`prepare_compaction` gives nothing."""
    if path_entries and js_get(path_entries[-1], "type") == "compaction":
        return ALREADY_COMPACTED
    return NOTHING_TO_COMPACT
