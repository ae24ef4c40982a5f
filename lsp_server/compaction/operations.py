"""Compaction and branch summaries of a session *file*: plan, summarize, write one entry.

This is what the CLI (``pi-context compact`` / ``branch-summary``) and the language server call.
Each operation has two steps, so a caller can show the plan before any model is called:

1. ``plan_*`` reads nothing new: it works on a :class:`SessionForAppend` (the file read once,
   with the snapshot the write will check) and answers with what would be summarized and kept,
   or a failure sentence (unknown entry, nothing to compact, ...).
2. ``run_*`` calls the summarizer, and unless ``dry_run`` appends the entry exactly as Pi's
   agent would (parent, key order, ``fromHook: false``, the replayed system message for a
   compaction). Every failure, a cancellation included, writes nothing.

Outcomes are values with a ``failure`` sentence that names the file; nothing here raises for bad
input, a model error or a changed file.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from lsp_server.compaction.branch import (
    BranchCollection,
    BranchSummary,
    collect_entries_for_branch_summary,
    generate_branch_summary,
    summary_parent_for_target,
)
from lsp_server.compaction.prepare import CompactionPreparation, nothing_to_compact_reason, prepare_compaction
from lsp_server.compaction.summarize import (
    DEFAULT_OPTIONS,
    CompactionResult,
    Progress,
    ProgressCallback,
    SummaryFailure,
    SummaryOptions,
    compact,
)
from lsp_server.js.values import UNDEFINED, js_get
from lsp_server.llm.client import CancelToken, LlmClient
from lsp_server.prompt.system_messages import current_system_message
from lsp_server.session.projection import ModelRef, project_path, session_settings
from lsp_server.session.raw import Entry
from lsp_server.session.tree import build_path
from lsp_server.session.writer import (
    AppendFailure,
    AppendResult,
    SessionForAppend,
    append_entry,
    branch_summary_entry,
    compaction_entry,
    new_entry_id,
    now_ms,
)
from lsp_server.vocabulary.compaction import DEFAULT_BRANCH_RESERVE_TOKENS, CompactionSettings

SettingsFor = Callable[[ModelRef | None], CompactionSettings]


def _lookup(session: SessionForAppend, entry_id: Any) -> Entry | None:
    try:
        return session.index.get(entry_id)
    except TypeError:
        return None


@dataclass(frozen=True)
class CompactionPlan:
    """A compaction ready to summarize: the branch, Pi's preparation, the session's settings."""

    session: SessionForAppend
    leaf_id: Any
    branch: list[Entry]
    preparation: CompactionPreparation
    thinking_level: Any
    model: ModelRef | None


@dataclass(frozen=True)
class CompactionOutcome:
    plan: CompactionPlan | None
    result: CompactionResult | None = None
    entry: Entry | None = None  # the entry written (or, for a dry run, that would be written)
    written: AppendResult | None = None
    failure: str | None = None
    cancelled: bool = False
    changed_under_us: bool = False


def plan_compaction(
    session: SessionForAppend, settings: CompactionSettings | SettingsFor, leaf_id: Any = None
) -> CompactionPlan | str:
    """Pi's preparation for the branch ending at ``leaf_id`` (default: the last entry, Pi's leaf)."""
    if session.error is not None:
        return session.error
    leaf = session.leaf_id if leaf_id is None else leaf_id
    if leaf is None and session.nonobject_leaf is not None:
        line = session.nonobject_leaf.line
        return (
            f"{session.path}: nothing to compact: Pi's last entry is line {line}, which is not an entry object, "
            "so Pi's leaf has no id and its branch is empty (pass a leaf id to compact an earlier branch)"
        )
    if leaf is None:
        return f"{session.path} has no entries to compact"
    if _lookup(session, leaf) is None:
        return f"Entry {leaf} not found in {session.path}"
    branch = build_path(session.entries, leaf, session.index)
    projection = project_path(branch)
    resolved = settings if isinstance(settings, CompactionSettings) else settings(projection.model)
    preparation = prepare_compaction(branch, resolved, projection)
    if preparation is None:
        return f"{nothing_to_compact_reason(branch)}: {session.path}"
    return CompactionPlan(session, leaf, branch, preparation, projection.thinking_level, projection.model)


async def run_compaction(
    plan: CompactionPlan,
    client: LlmClient,
    *,
    options: SummaryOptions = DEFAULT_OPTIONS,
    dry_run: bool = False,
    cancel: CancelToken | None = None,
    on_progress: ProgressCallback | None = None,
    clock: Callable[[], int] = now_ms,
    new_id: Callable[[SessionForAppend], str] | None = None,
) -> CompactionOutcome:
    """Summarize ``plan`` and (unless ``dry_run``) append the ``compaction`` entry at its leaf."""
    result = await compact(plan.preparation, client, options=options, cancel=cancel, on_progress=on_progress)
    if isinstance(result, SummaryFailure):
        return CompactionOutcome(
            plan, failure=f"{result.message}: nothing written to {plan.session.path}", cancelled=result.cancelled
        )
    session = plan.session
    system = current_system_message(plan.preparation.projection.messages)
    entry = compaction_entry(
        entry_id=_entry_id(session, new_id),
        parent_id=plan.leaf_id,
        timestamp_ms=clock(),
        summary=result.summary,
        first_kept_entry_id=result.first_kept_entry_id,
        tokens_before=result.tokens_before,
        details=result.details,
        usage=result.usage,
        from_hook=False,
        system_message=system,
    )
    end = _write(session, entry, "Compaction", dry_run=dry_run, cancel=cancel, on_progress=on_progress)
    return CompactionOutcome(plan, result, **end.fields())


def _entry_id(session: SessionForAppend, new_id: Callable[[SessionForAppend], str] | None) -> str:
    """The new entry's id: ``new_id``'s (tests, the conformance harness) or a fresh one unused in the file."""
    return new_id(session) if new_id else new_entry_id(session.index)


@dataclass(frozen=True)
class _Written:
    """How a run ended once its entry was made: the fields both outcomes share."""

    entry: Entry | None
    written: AppendResult | None = None
    failure: str | None = None
    cancelled: bool = False
    changed_under_us: bool = False

    def fields(self) -> dict[str, Any]:
        return {
            "entry": self.entry,
            "written": self.written,
            "failure": self.failure,
            "cancelled": self.cancelled,
            "changed_under_us": self.changed_under_us,
        }


def _write(
    session: SessionForAppend,
    entry: Entry,
    what: str,
    *,
    dry_run: bool,
    cancel: CancelToken | None,
    on_progress: ProgressCallback | None,
) -> _Written:
    """The last step of both runs: nothing for a dry run or after a cancel, else one checked append."""
    if dry_run:
        return _Written(entry)
    if cancel is not None and cancel.cancelled:
        return _Written(None, failure=f"{what} cancelled: nothing written to {session.path}", cancelled=True)
    if on_progress is not None:
        on_progress(Progress("writing"))
    if session.snapshot is None:  # only a session that failed to load has none
        written: AppendResult | AppendFailure = AppendFailure(
            session.path, f"{session.path} was not read; nothing was written"
        )
    else:
        written = append_entry(session.path, entry, session.snapshot)
    if isinstance(written, AppendFailure):
        return _Written(entry, failure=written.message, changed_under_us=written.changed_under_us)
    return _Written(entry, written)


# --- branch summaries ------------------------------------------------------------------------------


@dataclass(frozen=True)
class BranchPlan:
    """A branch summary ready to generate: what is left behind and where the summary goes."""

    session: SessionForAppend
    from_id: Any
    target_id: Any
    collection: BranchCollection
    parent_id: Any  # the new leaf the summary hangs off (None: a new root)
    thinking_level: Any


@dataclass(frozen=True)
class BranchOutcome:
    plan: BranchPlan | None
    summary: BranchSummary | None = None
    entry: Entry | None = None
    written: AppendResult | None = None
    failure: str | None = None
    cancelled: bool = False
    changed_under_us: bool = False


def plan_branch_summary(session: SessionForAppend, from_id: Any, target_id: Any) -> BranchPlan | str:
    """Pi's ``navigateTree`` bookkeeping: the entries to summarize and the summary's parent."""
    if session.error is not None:
        return session.error
    for label, value in (("--from", from_id), ("--to", target_id)):
        if _lookup(session, value) is None:
            return f"Entry {value} not found in {session.path} ({label})"
    if from_id == target_id:
        return f"{from_id} is already the current position: nothing to summarize in {session.path}"
    collection = collect_entries_for_branch_summary(session.entries, from_id, target_id, session.index)
    if not collection.entries:
        return f"Nothing to summarize: {from_id} is on the path to {target_id} in {session.path}"
    target = _lookup(session, target_id)
    assert target is not None
    parent = summary_parent_for_target(target)
    if parent is UNDEFINED or (parent is not None and _lookup(session, parent) is None):
        return f"Entry {js_get(target, 'parentId')} not found in {session.path} (the parent of {target_id})"
    branch = build_path(session.entries, from_id, session.index)
    return BranchPlan(session, from_id, target_id, collection, parent, session_settings(branch).thinking_level)


async def run_branch_summary(
    plan: BranchPlan,
    client: LlmClient,
    *,
    options: SummaryOptions = DEFAULT_OPTIONS,
    replace_instructions: bool = False,
    reserve_tokens: float = DEFAULT_BRANCH_RESERVE_TOKENS,
    context_window: float | None = None,
    dry_run: bool = False,
    cancel: CancelToken | None = None,
    on_progress: ProgressCallback | None = None,
    clock: Callable[[], int] = now_ms,
    new_id: Callable[[SessionForAppend], str] | None = None,
) -> BranchOutcome:
    """Generate the summary and (unless ``dry_run``) append the ``branch_summary`` entry."""
    summary = await generate_branch_summary(
        plan.collection.entries,
        client,
        context_window=context_window,
        reserve_tokens=reserve_tokens,
        options=options,
        replace_instructions=replace_instructions,
        cancel=cancel,
        on_progress=on_progress,
    )
    session = plan.session
    if isinstance(summary, SummaryFailure):
        return BranchOutcome(
            plan, failure=f"{summary.message}: nothing written to {session.path}", cancelled=summary.cancelled
        )
    entry = branch_summary_entry(
        entry_id=_entry_id(session, new_id),
        parent_id=plan.parent_id,
        timestamp_ms=clock(),
        from_id=plan.from_id,
        summary=summary.summary,
        details=summary.details,
        usage=summary.usage.to_json() if summary.usage is not None else UNDEFINED,
        from_hook=False,
    )
    end = _write(session, entry, "Branch summary", dry_run=dry_run, cancel=cancel, on_progress=on_progress)
    return BranchOutcome(plan, summary, **end.fields())
