"""Branch summaries: what a user leaves behind when moving to another point of the session tree.

When Pi's ``/tree`` navigation leaves a branch, it can summarize the abandoned part so the model
keeps knowing what was tried there. Reproduced here, as Pi 1.6.0 does it:

1. **Collect** (:func:`collect_entries_for_branch_summary`): the deepest common ancestor of the old
   leaf and the target, then the entries from the old leaf up to (not including) it, oldest first.
2. **Prepare** (:func:`prepare_branch_entries`): newest to oldest, one message per entry, until
   the token budget is used up; tool results are never included (the tool calls say enough),
   file operations are collected *before* the budget check (and seeded from earlier Pi-made
   branch summaries), and a compaction or branch summary may squeeze in over budget while less
   than 90 % of it is used. Context edits apply from Pi 1.5.0 on (before, each entry is read as written).
3. **Generate** (:func:`generate_branch_summary`): one call with our instructions in Pi's structure
   (no Critical Context section), Pi's preamble in front and the file lists behind. Errors are
   returned, never raised; no messages gives ``No content to summarize`` with no call. Before Pi 1.4.0
   the call is capped at 4096 tokens (or the model's ``maxTokens``); before 1.5.0 it carries no
   thinking level (``SummaryOptions.rules``, docs/pi-versions.md).
4. **Place** (:func:`summary_parent_for_target`): the summary entry goes where Pi's
   ``navigateTree`` puts it: under a target that is a user (or custom) message's *parent*, since
   that message goes back to the editor, else under the target itself.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Final

from lsp_server.compaction.file_ops import (
    FileOps,
    compute_file_lists,
    extract_file_ops_from_message,
    format_file_operations,
    seed_from_summary,
)
from lsp_server.compaction.prompts import (
    BRANCH_LABEL,
    BRANCH_SUMMARY_PREAMBLE,
    NO_CONTENT_TO_SUMMARIZE,
    NO_SUMMARY_GENERATED,
    branch_prompt,
)
from lsp_server.compaction.summarize import (
    DEFAULT_OPTIONS,
    ProgressCallback,
    SummaryFailure,
    SummaryOptions,
    SummaryText,
    conversation_text,
    output_cap,
    summarize_once,
)
from lsp_server.js.errors import JsTypeError
from lsp_server.js.values import js_get, js_to_string, js_truthy
from lsp_server.llm.client import CancelToken, LlmClient
from lsp_server.llm.types import Usage
from lsp_server.session.estimates import estimate_tokens_failure, pi_estimate_tokens
from lsp_server.session.messages import (
    Message,
    create_branch_summary_message,
    create_compaction_summary_message,
    create_custom_message,
)
from lsp_server.session.projection import apply_context_edit, entry_to_context_messages
from lsp_server.session.raw import Entry
from lsp_server.session.tree import build_index
from lsp_server.vocabulary.compaction import DEFAULT_BRANCH_RESERVE_TOKENS
from lsp_server.vocabulary.pi_releases import CURRENT, PiRules

DEFAULT_CONTEXT_WINDOW: Final = 128000
SQUEEZE_RATIO: Final = 0.9
BRANCH_OUTPUT_CAP: Final = 4096  # a branch summary's maxTokens before Pi 1.4.0


@dataclass(frozen=True)
class BranchCollection:
    """Entries of the abandoned branch (oldest first) and the deepest common ancestor (or ``None``)."""

    entries: list[Entry]
    common_ancestor_id: Any

    def to_json(self) -> dict[str, Any]:
        return {
            "entryIds": [js_get(e, "id") for e in self.entries],
            "commonAncestorId": self.common_ancestor_id,
            "entries": self.entries,
        }


@dataclass
class BranchPreparation:
    """Pi's ``BranchPreparation``: the messages that fit, every file touched, their token total."""

    messages: list[Message]
    file_ops: FileOps
    total_tokens: float  # NaN when Pi's count is (a text that is not a string: see pi_estimate_tokens)

    def to_json(self) -> dict[str, Any]:
        return {"messages": self.messages, "fileOps": self.file_ops.to_json(), "totalTokens": self.total_tokens}


@dataclass(frozen=True)
class BranchSummary:
    """A summary ready to store: text (preamble and file lists included), usage, the file lists.

    ``usage`` is ``None`` for ``No content to summarize`` (no model was called).
    """

    summary: str
    usage: Usage | None = None
    read_files: list[str] = field(default_factory=list)
    modified_files: list[str] = field(default_factory=list)

    @property
    def details(self) -> dict[str, list[str]]:
        return {"readFiles": self.read_files, "modifiedFiles": self.modified_files}

    def to_json(self) -> dict[str, Any]:
        """Pi's ``BranchSummaryResult`` on success."""
        if self.usage is None:
            return {"summary": self.summary}
        return {
            "summary": self.summary,
            "usage": self.usage.to_json(),
            "readFiles": self.read_files,
            "modifiedFiles": self.modified_files,
        }


class PiWouldFail(JsTypeError):
    """Pi's branch-summary preparation throws on this entry; ``str()`` is Pi's (V8's) message."""

    def __init__(self, message: str, entry_id: Any) -> None:
        super().__init__(message)
        self.entry_id = entry_id

    def describe(self) -> str:
        """What to tell the user: Pi would fail, why, and on which entry."""
        return f"Pi would fail on this session: {self} (entry {js_to_string(self.entry_id)})"


def branch_of(index: Mapping[Any, Entry], from_id: Any) -> list[Entry]:
    """Pi's ``SessionManager.getBranch(id)``: the entry and its ancestors, root first; unknown id -> ``[]``."""
    path: list[Entry] = []
    seen: set[int] = set()
    current = _lookup(index, from_id) if js_truthy(from_id) else None
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        path.append(current)
        parent = js_get(current, "parentId")
        current = _lookup(index, parent) if js_truthy(parent) else None
    path.reverse()
    return path


def _lookup(index: Mapping[Any, Entry], key: Any) -> Entry | None:
    try:
        return index.get(key)
    except TypeError:
        return None


def collect_entries_for_branch_summary(
    entries: Sequence[Entry], old_leaf_id: Any, target_id: Any, index: Mapping[Any, Entry] | None = None
) -> BranchCollection:
    """Pi's ``collectEntriesForBranchSummary(session, oldLeafId, targetId)``.

    ``target_id`` falsy means the session's leaf (the last entry), as ``getBranch()`` reads it.
    """
    if not js_truthy(old_leaf_id):
        return BranchCollection([], None)
    by_id = index if index is not None else build_index(entries)
    old_path_ids = set()
    for entry in branch_of(by_id, old_leaf_id):
        try:
            old_path_ids.add(js_get(entry, "id"))
        except TypeError:
            continue
    leaf = target_id if js_truthy(target_id) else (js_get(entries[-1], "id") if entries else None)
    ancestor: Any = None
    for entry in reversed(branch_of(by_id, leaf)):
        try:
            if js_get(entry, "id") in old_path_ids:
                ancestor = js_get(entry, "id")
                break
        except TypeError:
            continue
    collected: list[Entry] = []
    seen: set[int] = set()
    current: Any = old_leaf_id
    while js_truthy(current) and current != ancestor:
        found = _lookup(by_id, current)
        if found is None or id(found) in seen:
            break
        seen.add(id(found))
        collected.append(found)
        current = js_get(found, "parentId")
    collected.reverse()
    return BranchCollection(collected, ancestor)


def _message_for(entry: Entry, edit: Entry | None) -> Message | None:
    """Pi's ``getMessageFromEntry``: at most one message per entry, tool results skipped."""
    kind = js_get(entry, "type")
    if kind == "message":
        message = js_get(entry, "message")
        if js_get(message, "role") == "toolResult":
            return None
        if edit is not None:
            edited = apply_context_edit(entry_to_context_messages(entry), edit)
            return edited[0] if edited else None
        return message if js_truthy(message) else None
    if kind == "custom_message":
        if edit is not None:
            edited = apply_context_edit(entry_to_context_messages(entry), edit)
            return edited[0] if edited else None
        return create_custom_message(
            js_get(entry, "customType"),
            js_get(entry, "content"),
            js_get(entry, "display"),
            js_get(entry, "details"),
            js_get(entry, "timestamp"),
        )
    if kind == "branch_summary":
        return create_branch_summary_message(
            js_get(entry, "summary"), js_get(entry, "fromId"), js_get(entry, "timestamp")
        )
    if kind == "compaction":
        return create_compaction_summary_message(
            js_get(entry, "summary"), js_get(entry, "tokensBefore"), js_get(entry, "timestamp")
        )
    return None


def _seed_from_branch_summaries(entries: Sequence[Entry]) -> FileOps:
    ops = FileOps()
    for entry in entries:
        if js_get(entry, "type") == "branch_summary":
            seed_from_summary(entry, ops)
    return ops


def prepare_branch_entries(
    entries: Sequence[Entry], token_budget: float = 0, rules: PiRules = CURRENT
) -> BranchPreparation:
    """Pi's ``prepareBranchEntries``: newest first within ``token_budget`` (0 = no limit)."""
    file_ops = _seed_from_branch_summaries(entries)
    edits: dict[Any, Entry] = {}
    for entry in entries if rules.has("branch-summary-context-edits") else ():
        if js_get(entry, "type") == "context_edit":
            try:
                edits[js_get(entry, "targetId")] = entry
            except TypeError:
                continue
    messages: list[Message] = []
    total: float = 0
    for entry in reversed(entries):
        try:
            edit: Entry | None = edits.get(js_get(entry, "id"))
        except TypeError:
            edit = None
        message = _message_for(entry, edit)
        if message is None:
            continue
        extract_file_ops_from_message(message, file_ops)
        failure = estimate_tokens_failure(message)
        if failure is not None:  # Pi's estimateTokens throws here: so does its branch summary
            raise PiWouldFail(str(failure), js_get(entry, "id"))
        tokens = pi_estimate_tokens(message)  # NaN as in Pi: the total becomes NaN and no budget check holds
        if token_budget > 0 and total + tokens > token_budget:
            if js_get(entry, "type") in ("compaction", "branch_summary") and total < token_budget * SQUEEZE_RATIO:
                messages.append(message)
                total += tokens
            break
        messages.append(message)
        total += tokens
    messages.reverse()
    return BranchPreparation(messages, file_ops, total)


def branch_token_budget(context_window: float | None, reserve_tokens: float = DEFAULT_BRANCH_RESERVE_TOKENS) -> float:
    """``(model.contextWindow || 128000) - reserveTokens`` (``branchSummary.reserveTokens``)."""
    return (context_window or DEFAULT_CONTEXT_WINDOW) - reserve_tokens


async def generate_branch_summary(
    entries: Sequence[Entry],
    client: LlmClient,
    *,
    context_window: float | None = None,
    reserve_tokens: float = DEFAULT_BRANCH_RESERVE_TOKENS,
    options: SummaryOptions = DEFAULT_OPTIONS,
    replace_instructions: bool = False,
    cancel: CancelToken | None = None,
    on_progress: ProgressCallback | None = None,
) -> BranchSummary | SummaryFailure:
    """Pi's ``generateBranchSummary``: a summary, or a failure (``cancelled`` for an abort)."""
    rules = options.rules
    try:
        prepared = prepare_branch_entries(entries, branch_token_budget(context_window, reserve_tokens), rules)
    except PiWouldFail as exc:
        return SummaryFailure(exc.describe())
    if not prepared.messages:
        return BranchSummary(NO_CONTENT_TO_SUMMARIZE)
    text = conversation_text(prepared.messages, rules)
    prompt = branch_prompt(text, options.custom_instructions, replace_instructions)
    if rules.lacks("branch-summary-thinking-level"):
        options = replace(options, thinking_level=None)  # no reasoning option before Pi 1.5.0
    cap = output_cap(BRANCH_OUTPUT_CAP, options)
    reply = await summarize_once(client, prompt, BRANCH_LABEL, "summarizing branch", options, cancel, on_progress, cap)
    if isinstance(reply, SummaryFailure):
        return reply
    return _finish(reply, prepared.file_ops)


def _finish(reply: SummaryText, file_ops: FileOps) -> BranchSummary:
    lists = compute_file_lists(file_ops)
    summary = BRANCH_SUMMARY_PREAMBLE + reply.text + format_file_operations(lists.read_files, lists.modified_files)
    return BranchSummary(summary or NO_SUMMARY_GENERATED, reply.usage, lists.read_files, lists.modified_files)


def summary_parent_for_target(target: Entry) -> Any:
    """Where ``navigateTree`` attaches the summary: a user/custom message's parent, else the target."""
    kind = js_get(target, "type")
    if (kind == "message" and js_get(js_get(target, "message"), "role") == "user") or kind == "custom_message":
        return js_get(target, "parentId")
    return js_get(target, "id")
