"""The contract between the language server and its clients: custom methods and their payloads.

Every custom request, notification and command argument/result is a pydantic model here. The
server validates what it receives and serializes what it sends with these models;
``docs/protocol.md`` embeds their JSON schemas (``python -m lsp_server.protocol``), and the VS Code
extension's TypeScript types are checked against the same schemas by a test. Field names are
camelCase on the wire, as LSP's own are. Which method carries which model is the method table
(:mod:`lsp_server.methods`); the methods' names are :mod:`lsp_server.protocol_names`, written from it
and re-exported here.
"""

from __future__ import annotations

import json
import sys
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from lsp_server.protocol_names import *  # noqa: F403  (the method names, re-exported: see protocol_names)
from lsp_server.tokens.counter import TokenEstimator


class WireModel(BaseModel):
    """camelCase on the wire, snake_case in Python; unknown input keys are rejected."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid", frozen=True)

    def wire(self) -> dict[str, Any]:
        return self.model_dump(by_alias=True, exclude_none=True, mode="json")


EstimatorName = TokenEstimator


class TokenCounts(WireModel):
    """A count by Pi's own heuristic (ceil(UTF-16 length / 4)) and by the configured estimator."""

    pi: int = Field(description="Pi's estimate: ceil(UTF-16 length / 4), what Pi uses for its decisions.")
    estimate: int = Field(description="The configured estimator's count (see `estimator` on the parent).")


class EstimatorInfo(WireModel):
    name: EstimatorName
    family: str | None = Field(default=None, description="Model family of the weights or tokenizer, e.g. gpt.")
    exact: bool = Field(description="True when a real tokenizer produced the counts.")
    label: str = Field(description="Human label, e.g. 'weighted estimate (gpt family)'.")
    note: str | None = Field(default=None, description="Why the configured counter could not be used as asked.")


# --- system prompt -------------------------------------------------------------------------


class SectionSource(WireModel):
    path: str
    kind: Literal["context_file", "system_prompt", "append_system_prompt", "skill", "settings", "builtin", "option"]
    uri: str | None = None


class PromptSection(WireModel):
    name: str
    text: str = Field(description="The section as it appears in the prompt (tag-wrapped except the preamble).")
    position: int = Field(description="0-based index in the assembled prompt.")
    tokens: TokenCounts
    sources: list[SectionSource] = Field(default_factory=list)
    pi_prose: bool = Field(
        default=False,
        description="True when the text is pi-context's stand-in for Pi's built-in prose (same role and size).",
    )


class SystemPromptParams(WireModel):
    workspace_folder: str | None = Field(default=None, description="Workspace folder URI; default: the first.")
    cwd: str | None = Field(default=None, description="Directory Pi would run in; default: the folder root.")


class SystemPromptResult(WireModel):
    cwd: str
    agent_dir: str
    project_trusted: bool
    trust_reason: str | None = Field(default=None, description="Why the project is (not) trusted, as Pi decides.")
    sections: list[PromptSection]
    rendered: str
    total: TokenCounts
    estimator: EstimatorInfo
    warnings: list[str] = Field(
        default_factory=list, description="Pi's warnings while loading (unreadable files, skill problems)."
    )


class SectionChange(WireModel):
    name: str
    status: Literal["added", "changed", "removed"]
    tokens_before: TokenCounts | None = None
    tokens_after: TokenCounts | None = None
    delta: TokenCounts


class SaveCacheImpactInfo(WireModel):
    """What the change does to the prompt cache (see docs/cost.md, "What a save costs")."""

    patch_tokens: TokenCounts = Field(
        description="A live session on a model with mid-conversation system messages gets `renderedUpdate` as one "
        "system message at the end: the whole cached prefix survives and only this is new input."
    )
    first_difference: int | None = Field(
        default=None, description="UTF-16 offset in the rendered prompt where old and new first differ (null: equal)."
    )
    kept_tokens: TokenCounts = Field(
        description="The prompt before that point: what a new session, or a live session on a model that resends "
        "the prompt, can still read from the cache."
    )
    resent_tokens: TokenCounts = Field(
        description="The new prompt from that point on (plus, in such a live session, the whole conversation)."
    )


class PromptSectionsChangedParams(WireModel):
    """Sent after a context source changed and the assembled prompt differs from the last one sent."""

    workspace_folder: str
    cwd: str
    patch: dict[str, str | None] = Field(description="Pi's patch: changed sections in order, removed as null.")
    changes: list[SectionChange]
    total_before: TokenCounts
    total_after: TokenCounts
    rendered_update: str = Field(description="The patch as Pi renders a mid-conversation system message.")
    trigger_paths: list[str] = Field(default_factory=list, description="Files whose change caused this.")
    cache: SaveCacheImpactInfo | None = Field(default=None, description="The change in prompt-cache terms.")


# --- sessions ------------------------------------------------------------------------------


class SessionRef(WireModel):
    session: str = Field(description="Path of the session .jsonl file.")
    leaf_id: str | None = Field(default=None, description="Leaf entry id; default: the session's current leaf.")


class SessionSummary(WireModel):
    path: str
    id: str
    cwd: str | None = None
    name: str | None = None
    created: str | None = Field(default=None, description="Header timestamp (ISO 8601).")
    modified: float = Field(description="File modification time, seconds since the epoch.")
    size: int
    entry_count: int | None = None
    title: str = Field(
        default="",
        description="What to call the session: Pi's name for it, else its first user message (one line, at most "
        "80 characters), else its id.",
    )
    first_message: str | None = Field(
        default=None, description="The first user message's text, as Pi's /resume reads it."
    )
    model: str | None = Field(default=None, description="`provider/id` of the last assistant message.")
    cost: float | None = Field(
        default=None, description="The sum of the costs Pi recorded in its replies (dollars); null when none."
    )


class SessionsParams(WireModel):
    workspace_folder: str | None = Field(default=None, description="Workspace folder URI; default: the first.")
    cwd: str | None = Field(default=None, description="Directory whose sessions to list; default: the folder root.")


class SessionsResult(WireModel):
    sessions_dir: str
    sessions: list[SessionSummary] = Field(description="Newest first.")


class SessionRenameParams(WireModel):
    name: str = Field(description="The new name; Pi's sanitizing applies (runs of CR/LF as one space, trimmed).")
    session: str | None = Field(default=None, description="Path of the session .jsonl file.")
    chat_id: str | None = Field(
        default=None, description="The chat whose session to name (also before Pi wrote its file); else `session`."
    )


class SessionRenameResult(WireModel):
    session: str | None = Field(
        default=None, description="The session named (null: a chat's Pi has written no file yet)."
    )
    name: str = Field(description="The name as written.")
    via: Literal["pi", "file"] = Field(
        description="`pi`: the chat's Pi holds the session and wrote it (`set_session_name`); `file`: no Pi holds "
        "it and pi-context appended the `session_info` entry itself."
    )
    chat_id: str | None = Field(default=None, description="The chat whose Pi named it, with `via: pi`.")


class TreeNode(WireModel):
    id: str
    parent_id: str | None = Field(default=None, description="Absent for a root.")
    type: str
    role: str | None = None
    label: str | None = None
    timestamp: str | None = None
    preview: str = ""
    children: list[str] = Field(default_factory=list)
    on_active_path: bool = False


class SessionTreeResult(WireModel):
    session: str
    leaf_id: str | None = Field(default=None, description="Absent for a session without entries.")
    roots: list[str]
    nodes: list[TreeNode]
    problems: list[str] = Field(default_factory=list, description="Skipped lines etc., with line numbers.")


# --- budget and projected request ----------------------------------------------------------


class ModelInfo(WireModel):
    provider: str | None = None
    id: str | None = None
    context_window: int
    source: Literal["session", "settings", "default"]
    window_source: Literal["settings", "models.json", "pi", "table", "default"] | None = Field(
        default=None,
        description="Where the window came from: pi-context settings, the user's models.json, an installed "
        "Pi's model catalog, pi-context's table of common models, or the default (model not known).",
    )
    model_source: Literal["session", "pi-settings", "none"] | None = Field(
        default=None, description="Where the model came from: the session's path, Pi's defaultModel, or nowhere."
    )
    detail: str | None = Field(default=None, description="One sentence naming the model, window and source.")


class BudgetCategory(WireModel):
    id: str = Field(description="Stable id, e.g. system.project_context, messages.toolResult, reserve, free.")
    group: Literal["system", "messages", "other", "reserve", "free"] = Field(
        description="other: other.unattributed, provider usage above the itemized estimates."
    )
    label: str
    tokens: int
    count: int | None = Field(default=None, description="How many items (messages, files) the category holds.")


class Reconciliation(WireModel):
    """How the categories covered by the provider's usage were matched to it."""

    usage_tokens: int = Field(description="The provider's count for the request up to its last usable response.")
    estimated_tokens: int = Field(description="The itemized estimates of the same content.")
    method: Literal["exact", "unattributed", "scaled"] = Field(
        description="unattributed: the excess is category other.unattributed; scaled: the estimates were scaled "
        "down in proportion to add up to the usage."
    )


class Breakdown(WireModel):
    estimator: EstimatorInfo
    categories: list[BudgetCategory] = Field(
        description="Add up to window + overflow: used categories, the reserve still available, free space."
    )
    used: int
    free: int
    overflow: int = Field(description="Tokens beyond the window (0 when it fits).")
    reconciliation: Reconciliation | None = Field(default=None, description="Present when a provider usage is used.")
    notes: list[str] = Field(default_factory=list, description="Sentences explaining how the numbers were made.")


class ContextBudgetParams(WireModel):
    session: str | None = Field(default=None, description="Session file; without it, the prompt alone.")
    leaf_id: str | None = Field(default=None, description="Leaf entry id; default: the session's current leaf.")
    workspace_folder: str | None = Field(
        default=None,
        description="Workspace folder URI whose prompt and Pi settings apply when the session's own cwd does not "
        "exist here (and for the prompt alone); default: the first folder.",
    )


class ContextBudgetResult(WireModel):
    model: ModelInfo
    window: int
    reserve_tokens: int
    threshold: int = Field(description="Pi compacts when context tokens exceed this (window - reserve).")
    compaction_enabled: bool
    context_tokens: int = Field(description="Context tokens as Pi computes them (usage + trailing estimate).")
    context_tokens_source: Literal["usage", "estimate", "none"]
    should_compact: bool
    percent_used: float
    pi: Breakdown = Field(description="Breakdown with Pi's chars/4 estimate.")
    estimated: Breakdown = Field(description="The same breakdown with pi-context's better estimator.")
    keep_recent_tokens: int | None = Field(default=None, description="Pi's keepRecentTokens for this model.")
    footer_tokens: int | None = Field(
        default=None,
        description="What Pi's footer shows; absent when Pi shows it as unknown (after a compaction, until the "
        "next response) or without a session.",
    )
    system_origin: Literal["session", "workspace", "none"] | None = Field(
        default=None,
        description="Where the system prompt categories come from: the session's stored prompt, the workspace's "
        "assembled prompt (the session stores none), or nowhere.",
    )
    problems: list[str] = Field(default_factory=list, description="E.g. a models.json Pi would ignore.")


class ProjectedMessage(WireModel):
    index: int
    role: str
    kind: str = Field(description="user, assistant, toolResult, compactionSummary, branchSummary, custom, ...")
    entry_id: str | None = None
    entry_type: str | None = Field(default=None, description="Type of the session entry it came from.")
    text: str = Field(description="The message as the model receives it (after Pi's conversion), as text.")
    tokens: TokenCounts
    timestamp: int | None = None


class ProjectedRequestResult(WireModel):
    session: str
    leaf_id: str | None = Field(default=None, description="Absent for a session without entries.")
    system: SystemPromptResult
    messages: list[ProjectedMessage]
    thinking_level: str
    model: ModelInfo
    total: TokenCounts
    system_origin: Literal["session", "workspace", "none"] | None = Field(
        default=None, description="session: the stored prompt replayed; workspace: the assembled prompt stands in."
    )


# --- cost ----------------------------------------------------------------------------------


Number = int | float  # token counts stay integers on the wire; a hand-edited file may hold fractions


class CostParts(WireModel):
    """US dollars per bucket, as Pi records them in ``usage.cost``."""

    input: Number
    output: Number
    cache_read: Number
    cache_write: Number
    total: Number


class LedgerRequest(WireModel):
    """One paid request: an assistant reply (``kind: "turn"``) or another request on the branch."""

    entry_id: str | None = Field(default=None, description="The entry that records the request.")
    kind: str = Field(
        description="turn (an assistant reply), cache_warm (Pi keeping the cache alive; a usage entry's kind), "
        "compaction or branchSummary (their summary calls)."
    )
    index: int | None = Field(default=None, description="0-based position among the turns (turns only).")
    provider: str | None = None
    model: str | None = None
    timestamp: int | None = Field(default=None, description="When the request started (Unix ms).")
    input: Number = Field(description="New (uncached) input tokens, as the provider reported them.")
    output: Number
    cache_read: Number
    cache_write: Number
    total_tokens: Number = Field(description="Pi's calculateContextTokens of the usage: the context size after it.")
    cost: Number | None = Field(
        default=None, description="US dollars; null when unknown (no recorded cost and no prices)."
    )
    cost_parts: CostParts | None = None
    cost_source: Literal["recorded", "computed", "unknown"] = Field(
        description="recorded: usage.cost as Pi wrote it; computed: the model's prices applied (see priceSource)."
    )
    price_source: Literal["models.json", "pi", "unknown"] | None = Field(
        default=None, description="For a computed cost: whose prices (models.json, Pi's model catalog)."
    )
    computed_cost: Number | None = Field(
        default=None, description="The usage priced at the model's current prices (a check on the recorded cost)."
    )
    cache_hit_ratio: float | None = Field(
        default=None, description="cacheRead / (input + cacheRead + cacheWrite); null for 0/0."
    )
    since_previous_ms: int | None = Field(
        default=None, description="Time since the previous request of the conversation (turn or cache warm)."
    )
    stop_reason: str | None = None


class LedgerTotals(WireModel):
    requests: int
    input: Number
    output: Number
    cache_read: Number
    cache_write: Number
    cost: Number = Field(description="The sum of the known costs.")
    unknown_cost: int = Field(description="How many requests have no known cost (not in `cost`).")
    cache_hit_ratio: float | None = None


class LedgerModelTotals(LedgerTotals):
    model: str = Field(description="provider/model id.")


class LedgerMarker(WireModel):
    kind: Literal["compaction", "branchSummary", "branchPoint", "modelChange"]
    entry_id: str | None
    after_turn: int = Field(description="How many turns of the branch come before it.")
    tokens_before: Number | None = Field(default=None, description="A compaction's tokensBefore.")


class PriceRates(WireModel):
    input: Number
    output: Number
    cache_read: Number
    cache_write: Number


class PriceTier(PriceRates):
    input_tokens_above: Number


class CacheLifetime(WireModel):
    short: Number | None = Field(default=None, description="Seconds a short-retention cache entry lives.")
    long: Number | None = Field(default=None, description="Seconds a long-retention entry lives.")


class ModelPricesInfo(WireModel):
    provider: str | None
    id: str | None
    rates: PriceRates | None = Field(default=None, description="US dollars per million tokens; null when unknown.")
    tiers: list[PriceTier] = Field(default_factory=list)
    price_source: Literal["models.json", "pi", "unknown"]
    cache_lifetime: CacheLifetime
    cache_source: Literal["models.json", "pi", "unknown"]
    detail: str
    notes: list[str] = Field(default_factory=list)
    mid_conversation_system: bool = Field(
        default=False,
        description="The model takes system messages mid-conversation (compat.supportsMidConvoSystemMessages): a "
        "changed prompt is appended as a patch and the cached prefix survives; otherwise the prompt is resent.",
    )


class PrefixBreak(WireModel):
    kind: str = Field(description="The segment where the requests first differ: system, systemUpdate or a role.")
    entry_id: str | None = None
    offset: int | None = Field(default=None, description="UTF-16 units into that segment where they differ.")


class RequestPrefix(WireModel):
    """The common start of the previous request and the next one, in the provider's order."""

    segments: int = Field(description="Equal leading segments (the system prompt, then one per message).")
    previous_segments: int
    next_segments: int
    chars: int = Field(description="UTF-16 units of the byte-identical prefix.")
    pi_tokens: int = Field(description="The prefix by Pi's chars/4.")
    tokens: int = Field(description="The prefix by the configured estimator.")
    whole_previous: bool = Field(description="The whole previous request is a prefix of the next one.")
    system_kept: bool
    broken_at: PrefixBreak | None = None


class ExpectedPrompt(WireModel):
    cache_read: int = Field(description="Tokens expected as cache reads (provider tokens).")
    new_input: int = Field(description="The rest of the prompt: written to the cache where the model has a write rate.")
    cost: Number | None = Field(
        default=None, description="US dollars for the prompt (output not included); null: prices unknown."
    )


class NextRequestCostInfo(WireModel):
    """The next request priced against the previous one; the client compares ``expiresAt`` with its clock."""

    previous_entry_id: str | None = Field(
        default=None, description="The reply whose request is compared (null: none yet)."
    )
    last_request_at: int | None = Field(default=None, description="The last request that touched the cache (Unix ms).")
    retention: Literal["short", "long", "none"]
    cache_lifetime_s: Number | None = Field(
        default=None, description="The model's promptCache lifetime for the retention."
    )
    cache_source: Literal["models.json", "pi", "unknown"]
    expires_at: int | None = Field(
        default=None, description="When the cache probably expires (Unix ms); null: unknown."
    )
    same_model: bool
    api: str | None = None
    prefix: RequestPrefix | None = None
    next_pi_tokens: int
    next_tokens: int
    scale: Number = Field(description="Provider tokens per estimated token, from the previous request's usage.")
    warm: ExpectedPrompt = Field(description="If the cache still holds the prefix.")
    cold: ExpectedPrompt = Field(description="If it expired: the whole prompt is new input.")
    price_source: Literal["models.json", "pi", "unknown"]
    notes: list[str] = Field(default_factory=list)


class SessionPromptUpdateInfo(WireModel):
    """What Pi sends this session when it next loads the workspace's files (resumed, or after ``/reload``).

    Pi diffs the prompt the session recorded (its system messages) against the sections it builds now and
    records the patch before the next request (docs/cost.md, "What a save costs").
    """

    mode: Literal["patch", "replay"] = Field(
        description="How the session's model receives a changed prompt: `patch` (the model takes system messages "
        "mid-conversation: the patch goes at the end of the next request and the cached prefix survives) or "
        "`replay` (the new prompt is sent at the start: the cache holds only up to its first difference)."
    )
    patch: dict[str, str | None] = Field(
        description="Pi's patch against the recorded sections, in order, removed as null; empty: the session "
        "already has the workspace's prompt."
    )
    rendered_update: str = Field(description="The patch as the model receives it in `patch` mode.")
    cache: SaveCacheImpactInfo = Field(
        description="Against the recorded prompt: the patch's size, and where the replayed prompt first differs."
    )
    next_request: NextRequestCostInfo | None = Field(
        default=None,
        description="The next request with the patch recorded, priced as `nextRequest` is; null: no patch.",
    )
    new_session_cache_read: TokenCounts = Field(
        description="What a new session on this model can read from the cache this session's requests left: the "
        "prompt before the first difference, or nothing on an API that reads only up to a cache breakpoint "
        "(Anthropic's: Pi's first is after the whole system prompt)."
    )


class ChatDriftInfo(WireModel):
    """Where the files on disk differ from what a chat's Pi read, and the action that makes Pi take it up.

    Pi reads its context files, settings and trust decision at start (and on new_session, switch_session,
    fork) and keeps them; docs/chat.md, "What Pi takes up, and when".
    """

    sections: list[str] = Field(description="Prompt sections that differ (the keys of Pi's patch).")
    files: list[str] = Field(description="The files behind those sections (relative to the folder, or ~/...).")
    settings: list[str] = Field(description="Pi's settings that differ, as dotted keys (compaction.keepRecentTokens).")
    trust: bool = Field(description="The project's trust decision differs: only a new Pi takes that up.")
    action: Literal["reload", "restart"] = Field(
        description="`reload` (pi/chat/reload: Pi reads its files again on its own session) or `restart` (a new Pi "
        "on the same session; a changed trust decision)."
    )
    action_label: str = Field(description="The action as a button says it (`Reload Pi`, `Restart Pi`).")
    message: str = Field(description="One sentence for the views.")


class LiveChatInfo(WireModel):
    """The chat whose Pi holds a session: its numbers are computed from what that Pi read, not from the files now."""

    chat_id: str
    held_since: float = Field(description="When its Pi read its files (seconds since the epoch).")
    drift: ChatDriftInfo | None = Field(default=None, description="Where the files now differ from it; null: nowhere.")
    reload: SessionPromptUpdateInfo | None = Field(
        default=None,
        description="What Pi records and sends after the drift's action (the prompt from the files now), priced; "
        "null when no prompt section differs.",
    )


class TurnLedgerParams(WireModel):
    session: str = Field(description="Session file (a path or a file URI).")
    leaf_id: str | None = Field(default=None, description="Leaf entry id; default: the session's current leaf.")
    workspace_folder: str | None = Field(
        default=None,
        description="Workspace folder URI whose models.json and settings apply when the session's own cwd does not "
        "exist here; default: the first folder.",
    )


class TurnLedgerResult(WireModel):
    """Unknown values are explicit ``null`` here (a cost nobody knows is not a missing key)."""

    def wire(self) -> dict[str, Any]:
        return self.model_dump(by_alias=True, mode="json")

    session: str
    leaf_id: str | None = None
    turns: list[LedgerRequest] = Field(description="Every assistant reply on the branch, root first.")
    other_requests: list[LedgerRequest] = Field(
        default_factory=list, description="Cache warms and summary calls on the branch."
    )
    totals: LedgerTotals = Field(description="The branch's turns.")
    branch_totals: LedgerTotals = Field(description="The branch's turns and other requests.")
    session_totals: LedgerTotals = Field(description="Every request in the file, all branches.")
    by_model: list[LedgerModelTotals] = Field(default_factory=list)
    markers: list[LedgerMarker] = Field(default_factory=list)
    prices: list[ModelPricesInfo] = Field(default_factory=list, description="Of every model the branch used.")
    context_window: int | None = Field(default=None, description="The current model's window (the chart's top).")
    threshold: int | None = Field(default=None, description="Pi compacts above this (window - reserve).")
    next_request: NextRequestCostInfo | None = Field(
        default=None, description="The request Pi would send next, priced against the previous one."
    )
    prompt_update: SessionPromptUpdateInfo | None = Field(
        default=None,
        description="If Pi loads the workspace's current files before that request: its patch and what it costs; "
        "null: the session recorded no prompt sections (its next request uses the workspace's prompt as is). On a "
        "session a live chat holds, against the prompt that chat's Pi holds, which the next request already "
        "carries: the patch is empty, and `liveChat.reload` is what taking the files up would do.",
    )
    live_chat: LiveChatInfo | None = Field(
        default=None, description="The live chat whose Pi holds the session; null: none holds it."
    )
    notes: list[str] = Field(default_factory=list)


# --- commands ------------------------------------------------------------------------------


class CompactArgs(WireModel):
    session: str = Field(description="Path of the session .jsonl file (a file URI is accepted).")
    instructions: str | None = Field(default=None, description="Extra focus for the summary (Pi: /compact <text>).")
    leaf_id: str | None = Field(default=None, description="Compact the branch ending here (default: Pi's leaf).")
    preview_only: bool = Field(default=False, description="Summarize and answer the entry, write nothing.")
    expected_size: int | None = Field(
        default=None, description="Apply only if the file still has this size (the previewed state)."
    )


class BranchSummaryArgs(WireModel):
    session: str
    from_id: str = Field(description="The leaf being left.")
    to_id: str = Field(description="The entry to summarize back to (new position).")
    instructions: str | None = None
    replace_instructions: bool = Field(
        default=False, description="Use the instructions instead of the default structure, not after it."
    )
    preview_only: bool = False
    expected_size: int | None = Field(
        default=None, description="Apply only if the file still has this size (the previewed state)."
    )


class CompactionEconomicsInfo(WireModel):
    """What a compaction or branch summary costs and saves, at the session model's prices (docs/cost.md).

    The summary calls of a run with pi-context's HTTP summarizer are priced at that model's prices
    (``summaryModel``), with the usage its provider reported (``summaryTokensSource``).
    """

    requests: int = Field(description="Summary calls (two for a split turn); Pi sends them without caching.")
    summary_input: int = Field(
        description="Tokens sent to the summarizer: the provider's count when it reported one (input, cache reads "
        "and writes), else Pi's chars/4, all new input."
    )
    summary_output: int = Field(
        description="The summary's tokens: the provider's output count when it reported one, else Pi's chars/4."
    )
    summary_cost: Number | None = Field(
        default=None, description="US dollars for the summary calls; null: prices unknown."
    )
    removed_per_request: int = Field(
        description="Tokens every later request no longer carries (negative: a branch summary adds its summary)."
    )
    context_before: int
    context_after: int
    rewrite_cost: Number | None = Field(
        default=None,
        description="The first later request writing the new prefix to the cache, minus reading the old one.",
    )
    saving_per_request: Number | None = Field(default=None, description="The removed tokens at the cache-read rate.")
    break_even_requests: int | None = Field(
        default=None, description="Later requests until the savings cover the summary and the rewrite; null: never."
    )
    price_source: Literal["models.json", "pi", "unknown"]
    model: str
    summary_output_source: Literal["summary", "previous", "assumed"] = Field(
        default="summary",
        description="Where summaryOutput comes from: the summary itself, or (before Pi writes it) the previous "
        "compaction summary's length, or an assumed 1,000 tokens.",
    )
    summary_model: str | None = Field(
        default=None,
        description="The summarizer's model whose prices summaryCost is at (a run with pi-context's HTTP "
        "summarizer); null: the session's model (`model`), which Pi summarizes with.",
    )
    summary_price_source: Literal["models.json", "pi", "unknown"] | None = Field(
        default=None, description="Where summaryModel's prices come from; null with summaryModel."
    )
    summary_tokens_source: Literal["reported", "estimated"] = Field(
        default="estimated",
        description="summaryInput and summaryOutput: the usage the summarizer's provider reported for every call, "
        "or Pi's chars/4 estimates.",
    )


class CommandOutcome(WireModel):
    written: bool
    preview_only: bool
    summary: str
    summary_tokens: TokenCounts | None = Field(
        default=None, description="The summary's size: what the entry adds to every later request."
    )
    entry: dict[str, Any] | None = Field(
        default=None, description="The JSON entry appended (for a preview: the entry that would be appended)."
    )
    first_kept_entry_id: str | None = None
    tokens_before: int | None = None
    summarizer: str = Field(description="Which summarizer produced it, e.g. 'offline (extractive)'.")
    session_size: int | None = Field(default=None, description="File size the result applies to.")
    from_preview: bool = Field(
        default=False,
        description="The summary of the matching preview was written as shown, without asking the summarizer again.",
    )
    economics: CompactionEconomicsInfo | None = Field(
        default=None, description="What the summary calls cost and what the result saves per later request."
    )
    chat_id: str | None = Field(
        default=None,
        description="Set when a chat's Pi holds the session: the compaction is Pi's (its model writes the summary "
        "when applied), and the preview is the plan read from the file (`plan`), with no summary yet.",
    )
    plan: ChatCompactPreview | None = Field(
        default=None, description="For a session a chat holds: what Pi's compaction will summarize and keep."
    )


UsageGroupBy = Literal["day", "week", "month", "project", "model", "session"]


class UsageParams(WireModel):
    by: UsageGroupBy = Field(default="day", description="How `groups` are made.")
    since: str | None = Field(default=None, description="First day counted (YYYY-MM-DD), in `timeZone`.")
    until: str | None = Field(default=None, description="Last day counted (YYYY-MM-DD), in `timeZone`.")
    time_zone: str | None = Field(
        default=None, description="IANA time zone of the days; default: the server machine's."
    )
    folders: list[str] | None = Field(
        default=None,
        description="Session folders or files (paths or file URIs); default: the `sessions/` folder of every "
        "workspace folder's agent dir, and the session folder Pi is told to use ($PI_CODING_AGENT_SESSION_DIR, "
        "sessionDir) if any.",
    )
    workspace_folder: str | None = Field(
        default=None, description="Workspace folder URI whose models.json prices the requests; default: the first."
    )


class UsageTotalsInfo(WireModel):
    sessions: int = Field(description="Sessions with at least one counted request.")
    turns: int = Field(description="Assistant replies.")
    requests: int = Field(description="Every paid request: replies, cache warms, summary calls.")
    input: Number = Field(description="New (uncached) input tokens, Pi's `input`.")
    output: Number
    cache_read: Number
    cache_write: Number
    cost: Number = Field(description="US dollars: the sum of the known costs.")
    unknown_cost: int = Field(description="Requests without a known cost (not in `cost`).")
    cache_share: float | None = Field(description="cacheRead / (input + cacheRead + cacheWrite); null: no prompt.")


class UsageGroup(UsageTotalsInfo):
    key: str = Field(description="The day (YYYY-MM-DD), ISO week (YYYY-Www), month (YYYY-MM), project, model or file.")


class UsageSessionInfo(UsageTotalsInfo):
    path: str
    id: str | None
    cwd: str | None
    parent_session: str | None = Field(description="The header's parentSession: the file it was forked or cloned from.")
    shared_requests: int = Field(description="Requests copied from a parent, counted there and not here.")
    problems: int = Field(description="Lines of the file that were skipped or repaired.")


class UsageSkipped(WireModel):
    path: str
    reason: str


class UsageScanInfo(WireModel):
    files: int
    unchanged: int = Field(description="Files taken from the cache without reading them.")
    appended: int = Field(description="Files read from where the last read stopped.")
    loaded: int = Field(description="Files read whole.")
    unreadable: int
    bytes_read: int


class UsageResult(WireModel):
    """Usage across sessions, as ``pi-context usage --json``; unknown values are explicit ``null``."""

    def wire(self) -> dict[str, Any]:
        return self.model_dump(by_alias=True, mode="json")

    roots: list[str] = Field(description="The folders and files read.")
    by: UsageGroupBy
    time_zone: str
    since: str | None
    until: str | None
    totals: UsageTotalsInfo
    groups: list[UsageGroup]
    days: list[UsageGroup] = Field(description="One group per day whatever `by` is (the chart's bars).")
    sessions: list[UsageSessionInfo]
    skipped: list[UsageSkipped] = Field(description="Files that are not sessions or could not be read.")
    notes: list[str]
    scan: UsageScanInfo


class SessionChangedParams(WireModel):
    """Sent after the server appended to a session, or saw a session it serves change on disk."""

    session: str = Field(description="Path of the session .jsonl file.")
    reason: Literal["compaction", "branchSummary", "name", "disk", "chat"] = Field(
        description="What changed it: a pi-context command (`name`: `pi/sessionRename` on a session no Pi holds), "
        "a change on disk, or Pi in a chat appending to it."
    )
    entry_id: str | None = Field(default=None, description="The entry the server appended (not for disk).")
    size: int | None = Field(default=None, description="File size after the change.")


# --- chat (Pi's RPC mode, driven by the server) ----------------------------------------------------

ThinkingLevelName = Literal["off", "minimal", "low", "medium", "high", "xhigh", "max"]


class ChatLocateResult(WireModel):
    """Whether a Pi that can run the chat is installed (the chat view says so in one sentence when not)."""

    found: bool
    pi_version: str | None = None
    node_version: str | None = None
    command: list[str] = Field(default_factory=list, description="The command line the server starts Pi with.")
    source: str | None = Field(default=None, description='Where it was found: "setting", "PATH" or a folder.')
    message: str | None = Field(default=None, description="Why there is no usable Pi, in one sentence.")
    install_command: str | None = Field(default=None, description="The command that installs Pi.")


class ChatStartParams(WireModel):
    workspace_folder: str | None = Field(default=None, description="Folder URI Pi runs in; default: the first.")
    session: str | None = Field(default=None, description="A session file to resume (Pi's --session); default: new.")
    model: str | None = Field(default=None, description='"provider/modelId"; default: Pi\'s own choice.')


class ChatRef(WireModel):
    chat_id: str


ChatFeatureId = Literal[
    "conversation",
    "stop",
    "fork",
    "models",
    "thinking",
    "compact",
    "slash-commands",
    "session-restore",
    "tool-durations",
]


class ChatFeature(WireModel):
    """One thing the Chat view offers, for the Pi this chat runs (lsp_server/pi_rpc/capabilities.py)."""

    id: ChatFeatureId
    available: bool
    what: str = Field(description='The subject of the view\'s sentence, e.g. "Choosing the model".')
    missing: str | None = Field(
        default=None, description="What this Pi lacks for it (a command, a get_state field, an event field)."
    )
    since: str | None = Field(default=None, description="A Pi version that has it (when `available` is false).")


class ChatCapabilities(WireModel):
    """What the running Pi was found to support: probed once per Pi process, corrected by its answers and events."""

    pi_version: str
    features: list[ChatFeature]
    commands: dict[str, Literal["present", "missing", "assumed"]] = Field(
        description="Each command the chat uses: answered a probe (present), answered `Unknown command` (missing), "
        "or not probed because no probe is free of side effects (assumed)."
    )
    state_fields: list[str] = Field(description="The keys of Pi's first get_state answer.")
    note: str | None = Field(
        default=None,
        description="Said when the Pi is newer or older than every release pi-context knows (docs/pi-versions.md).",
    )


class ChatInfo(WireModel):
    """A chat the server holds: its Pi process and the session file Pi writes."""

    chat_id: str
    session: str | None = Field(description="The session file Pi writes (changes after a fork).")
    cwd: str
    workspace_folder: str | None = None
    pi_version: str
    streaming: bool
    compacting: bool
    state: dict[str, Any] = Field(default_factory=dict, description="Pi's get_state answer, as Pi gave it.")
    stats: dict[str, Any] | None = Field(
        default=None,
        description="Pi's get_session_stats answer (pi/chat/state only): its totals and `contextUsage`, Pi's own count "
        "of the context (`tokens` null after a compaction until a reply brings usage), which pi/contextBudget's "
        "`footerTokens` and `window` equal.",
    )
    kept: bool = Field(
        default=False, description="Pi runs under a keeper: a turn goes on when the server ends (a window reload)."
    )
    reattached: bool = Field(
        default=False,
        description="pi/chat/start took up a Pi that kept running after its server ended, instead of starting one.",
    )
    held_since: float | None = Field(
        default=None,
        description="When Pi read its files (settings, trust, prompt), seconds since the epoch: the chat's numbers "
        "come from what it read then.",
    )
    drift: ChatDriftInfo | None = Field(
        default=None, description="Where the files on disk differ from what Pi read, and the action; null: nowhere."
    )
    project_untrusted: str | None = Field(
        default=None,
        description="Pi does not trust the project and leaves its `.pi/` skills, settings or prompt files out: one "
        "sentence, for the Trust Project action (pi/chat/trust); null: nothing is left out.",
    )
    capabilities: ChatCapabilities | None = Field(
        default=None, description="What this Pi supports; the view turns off what it lacks (docs/chat.md)."
    )


class DetachedChat(WireModel):
    """A Pi that kept running after its server ended, waiting for a window: pi/chat/start {session} takes it up."""

    session: str | None
    cwd: str
    workspace_folder: str | None = None
    busy: bool = Field(description="A turn, a prompt or a compaction is still going on.")
    started_at: float = Field(description="When its Pi started (seconds since the epoch).")
    detached_at: float | None = Field(default=None, description="When its last server let go of it.")
    pi_pid: int
    pi_version: str = ""


class ChatListResult(WireModel):
    chats: list[ChatInfo]
    detached: list[DetachedChat] = Field(
        default_factory=list, description="Chats of this workspace kept running after their window went."
    )


class ChatAttachment(WireModel):
    """A file or a selection attached to a prompt: sent as Pi's `pi @file` sends it (docs/chat.md)."""

    path: str = Field(description="The file: absolute, or relative to the chat's folder (as Pi resolves it).")
    start_line: int | None = Field(default=None, ge=1, description="A selection's first line (1-based).")
    end_line: int | None = Field(default=None, ge=1, description="A selection's last line (1-based, inclusive).")
    text: str | None = Field(
        default=None, description="A selection's text as the editor has it; without it the lines are read from disk."
    )


class ChatAttachmentInfo(WireModel):
    """What one attachment adds to the prompt, or why it is not attached."""

    path: str = Field(description="The file's absolute path (the block's `name`).")
    start_line: int | None = None
    end_line: int | None = None
    tokens: TokenCounts | None = Field(default=None, description="The `<file>` block's tokens; absent when refused.")
    refused: str | None = Field(default=None, description="One sentence naming the file: why it is not attached.")


class ChatPromptParams(WireModel):
    chat_id: str
    text: str
    attachments: list[ChatAttachment] = Field(
        default_factory=list,
        description=(
            "Files and selections put before the text as `<file name=...>` blocks, as Pi's `@file` arguments are; "
            "one that cannot be attached refuses the prompt (nothing is sent)."
        ),
    )
    streaming_behavior: Literal["steer", "followUp"] | None = Field(
        default=None, description="Needed while Pi works: steer (before its next model call) or followUp (after)."
    )


class ChatPromptResult(WireModel):
    disposition: Literal["started", "queued", "handled"] = Field(description="Pi's answer to the prompt.")


class ChatCompactParams(WireModel):
    chat_id: str
    instructions: str | None = Field(default=None, description="Extra focus for Pi's summary (/compact <text>).")


class ChatCompactResult(WireModel):
    """Pi's answer to its compact command (Pi wrote the entry)."""

    summary: str
    first_kept_entry_id: str | None = None
    tokens_before: int | None = None
    estimated_tokens_after: int | None = None
    usage: dict[str, Any] | None = None


class ChatCompactPreview(WireModel):
    """What a compaction of the chat's session will summarize and keep, read from the file (Pi writes the summary)."""

    first_kept_entry_id: str | None
    tokens_before: int = Field(description="Pi's context tokens before compacting.")
    kept_tokens: int = Field(description="Pi's estimate of the messages kept verbatim; the summary comes on top.")
    messages_to_summarize: int
    turn_prefix_messages: int
    is_split_turn: bool
    kept_entries: int
    read_files: list[str]
    modified_files: list[str]
    economics: CompactionEconomicsInfo | None = Field(
        default=None,
        description="What the summary calls will cost and what the compaction saves, with the summary's length "
        "estimated (summaryOutputSource).",
    )


CommandOutcome.model_rebuild()  # its ``plan`` is defined above


class ChatForkParams(WireModel):
    chat_id: str
    entry_id: str = Field(description="A user message entry (see pi/chat/forkPoints).")


class ChatForkResult(WireModel):
    text: str | None = Field(default=None, description="The forked message's text, for the input to edit.")
    cancelled: bool = False
    session: str | None = Field(default=None, description="The session file Pi writes after the fork.")


class ForkPoint(WireModel):
    entry_id: str
    text: str


class ChatForkPointsResult(WireModel):
    messages: list[ForkPoint]


class ChatSetModelParams(WireModel):
    chat_id: str
    model: str = Field(description='"provider/modelId".')


class ChatSetThinkingLevelParams(WireModel):
    chat_id: str
    level: ThinkingLevelName


class ChatItemsResult(WireModel):
    """A list Pi answered (messages, commands or models), each item as Pi gave it."""

    items: list[dict[str, Any]]


class ChatMessagesResult(WireModel):
    """The conversation as Pi holds it, and what is going on right now, both at one point of Pi's output."""

    items: list[dict[str, Any]] = Field(description="Pi's get_messages: the messages that have ended.")
    in_flight: list[dict[str, Any]] = Field(
        default_factory=list,
        description=(
            "Pi's records since the last message ended, as Pi emitted them: the reply being streamed, the tools "
            "running, a retry or compaction under way, a dialog waiting. Fold them after items."
        ),
    )
    seq: int = Field(
        default=0,
        description="The seq of the last pi/chat/event included: apply only events with a greater seq after this.",
    )
    in_flight_truncated: bool = Field(
        default=False, description="The oldest pieces of the reply in progress were dropped (a bound)."
    )


class ChatModelResult(WireModel):
    model: dict[str, Any] = Field(description="Pi's model object.")


class ChatPreflightParams(WireModel):
    chat_id: str
    text: str
    attachments: list[ChatAttachment] = Field(
        default_factory=list, description="What `pi/chat/prompt` would attach: counted with the text."
    )


class ChatPreflightResult(WireModel):
    """Where the prompt puts the session by Pi's count, before it is sent."""

    text_tokens: TokenCounts
    context_tokens: int
    after_prompt: int
    threshold: int
    window: int
    crosses_threshold: bool
    message: str | None = None
    next_request: NextRequestCostInfo | None = Field(
        default=None, description="What sending the prompt now costs, warm and cold (docs/cost.md)."
    )
    attachments: list[ChatAttachmentInfo] = Field(
        default_factory=list, description="Each attachment's tokens (counted in `textTokens`), or why it is refused."
    )


class ChatUiResponseParams(WireModel):
    chat_id: str
    id: str = Field(description="The id of Pi's extension_ui_request.")
    value: Any | None = None
    confirmed: bool | None = None
    cancelled: bool | None = None


class ChatEventParams(WireModel):
    chat_id: str
    event: dict[str, Any] = Field(
        description="The record exactly as Pi emitted it, except that the keys Pi may use read `***`."
    )
    seq: int = Field(default=0, description="1, 2, 3... per chat, in Pi's order (see pi/chat/messages).")


class ChatExitedParams(WireModel):
    chat_id: str
    code: int | None = Field(description="Pi's exit code (negative: the signal that ended it).")
    expected: bool = Field(description="True after pi/chat/stop; False when Pi crashed or was killed.")
    message: str
    stderr_tail: str = ""
    session: str | None = Field(default=None, description="The session Pi wrote, to resume it.")


ChatNoticeKind = Literal[
    "session-deleted",
    "session-replaced",
    "session-restored",
    "session-not-restored",
    "folder-removed",
    "capabilities-changed",
]


class ChatNoticeParams(WireModel):
    """What the server noticed about a chat by itself (its session file, its folder), in one readable message."""

    chat_id: str
    level: Literal["info", "warning", "error"]
    message: str
    kind: ChatNoticeKind | None = Field(default=None, description="What happened, for a client that acts on it.")
    session: str | None = Field(
        default=None,
        description="The session file the chat writes from now on (set when it changed or was written back).",
    )


class ChatDriftParams(WireModel):
    """``pi/chat/drift``: the files on disk now differ from what the chat's Pi read (or agree again)."""

    chat_id: str
    drift: ChatDriftInfo | None = Field(description="Null: the files agree with what Pi read again.")


class ChatQueueResult(WireModel):
    """The messages Pi had queued and no longer sends (pi/chat/clearQueue, pi/chat/abort), for the input box."""

    steering: list[str] = Field(default_factory=list)
    follow_up: list[str] = Field(default_factory=list)


ALL_MODELS: dict[str, type[WireModel]] = {
    "SystemPromptParams": SystemPromptParams,
    "SystemPromptResult": SystemPromptResult,
    "PromptSectionsChangedParams": PromptSectionsChangedParams,
    "SaveCacheImpactInfo": SaveCacheImpactInfo,
    "SessionsParams": SessionsParams,
    "SessionsResult": SessionsResult,
    "SessionRenameParams": SessionRenameParams,
    "SessionRenameResult": SessionRenameResult,
    "SessionRef": SessionRef,
    "SessionTreeResult": SessionTreeResult,
    "ContextBudgetParams": ContextBudgetParams,
    "ContextBudgetResult": ContextBudgetResult,
    "ProjectedRequestResult": ProjectedRequestResult,
    "TurnLedgerParams": TurnLedgerParams,
    "TurnLedgerResult": TurnLedgerResult,
    "UsageParams": UsageParams,
    "UsageResult": UsageResult,
    "CompactArgs": CompactArgs,
    "BranchSummaryArgs": BranchSummaryArgs,
    "CommandOutcome": CommandOutcome,
    "CompactionEconomicsInfo": CompactionEconomicsInfo,
    "SessionChangedParams": SessionChangedParams,
    "ChatLocateResult": ChatLocateResult,
    "ChatStartParams": ChatStartParams,
    "ChatRef": ChatRef,
    "ChatFeature": ChatFeature,
    "ChatCapabilities": ChatCapabilities,
    "ChatInfo": ChatInfo,
    "DetachedChat": DetachedChat,
    "ChatListResult": ChatListResult,
    "ChatAttachment": ChatAttachment,
    "ChatAttachmentInfo": ChatAttachmentInfo,
    "ChatPromptParams": ChatPromptParams,
    "ChatPromptResult": ChatPromptResult,
    "ChatCompactParams": ChatCompactParams,
    "ChatCompactResult": ChatCompactResult,
    "ChatCompactPreview": ChatCompactPreview,
    "ChatForkParams": ChatForkParams,
    "ChatForkResult": ChatForkResult,
    "ChatForkPointsResult": ChatForkPointsResult,
    "ChatSetModelParams": ChatSetModelParams,
    "ChatSetThinkingLevelParams": ChatSetThinkingLevelParams,
    "ChatItemsResult": ChatItemsResult,
    "ChatMessagesResult": ChatMessagesResult,
    "ChatModelResult": ChatModelResult,
    "ChatPreflightParams": ChatPreflightParams,
    "ChatPreflightResult": ChatPreflightResult,
    "ChatUiResponseParams": ChatUiResponseParams,
    "ChatEventParams": ChatEventParams,
    "ChatExitedParams": ChatExitedParams,
    "ChatNoticeParams": ChatNoticeParams,
    "ChatDriftInfo": ChatDriftInfo,
    "LiveChatInfo": LiveChatInfo,
    "ChatDriftParams": ChatDriftParams,
    "ChatQueueResult": ChatQueueResult,
}


def json_schemas() -> dict[str, Any]:
    return {name: model.model_json_schema(by_alias=True) for name, model in ALL_MODELS.items()}


if __name__ == "__main__":
    json.dump(json_schemas(), sys.stdout, indent=2, sort_keys=True)
    sys.stdout.write("\n")
