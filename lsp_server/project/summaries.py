"""``pi.compact`` and ``pi.branchSummary`` without the LSP: plan, summarize, write, and reuse a preview.

Each command has two steps, so the server can run the first in a worker thread and report the
second's progress:

1. ``plan_*_job`` reads the session once (the snapshot the write will check), refuses when the
   file no longer has the size the caller previewed (``expectedSize``), and prepares exactly
   what Pi would summarize (:mod:`lsp_server.compaction.operations`);
2. ``run_job`` calls the summarizer and, unless it is a preview, appends one entry. Every
   failure, a cancellation included, writes nothing (the operations module guarantees it).

**Previews are reused.** The editor shows a preview, the user confirms, and the editor asks again
without ``previewOnly``. Asking the model again would write a summary the user never saw (and pay
for it twice), so the model's replies to a preview are kept (:class:`PreviewCache`, keyed by the
file's snapshot and the arguments) and replayed for the confirming call, as long as the file is
unchanged and the requests are the same. Anything else asks the summarizer again.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any

from lsp_server import protocol
from lsp_server.compaction.branch import branch_token_budget
from lsp_server.compaction.operations import (
    BranchOutcome,
    BranchPlan,
    CompactionOutcome,
    CompactionPlan,
    plan_branch_summary,
    plan_compaction,
    run_branch_summary,
    run_compaction,
)
from lsp_server.compaction.summarize import ProgressCallback, SummaryOptions
from lsp_server.cost.compaction_cost import (
    CompactionEconomics,
    SummarizerCalls,
    call_input_tokens,
    compaction_economics,
)
from lsp_server.cost.prices import ModelPrices, UsageCounts
from lsp_server.llm.client import CancelToken, LlmClient
from lsp_server.llm.summarizer_config import SummarizerConfig
from lsp_server.llm.types import AssistantReply, CompletionRequest, RetryCallback, TextProgress
from lsp_server.project.project import Project
from lsp_server.session.bounds import DEFAULT_LIMITS, SessionReadLimits
from lsp_server.session.entries import Entry, entry_json
from lsp_server.session.estimates import estimate_tokens
from lsp_server.session.projection import ModelRef, session_settings
from lsp_server.session.tree import build_path
from lsp_server.session.writer import SessionForAppend, load_for_append
from lsp_server.tokens.counter import TokenCounter
from lsp_server.tokens.pi import pi_text_tokens
from lsp_server.vocabulary.providers import OFFLINE

ProjectFor = Callable[[SessionForAppend], Project]  # the project a session belongs to (``session_folder``)


def summarizer_key(config: SummarizerConfig) -> Hashable:
    return (config.kind, config.model, config.base_url, config.api_key_env, config.reasoning)


# --- remembering a preview's replies -------------------------------------------------------------


def _request_key(request: CompletionRequest) -> str:
    """What must be equal for a recorded reply to answer a request (the routing id is fresh per call)."""
    return json.dumps(
        [
            request.system,
            list(request.messages),
            request.model,
            request.max_tokens,
            request.reasoning,
            request.temperature,
        ],
        sort_keys=True,
        default=str,
    )


@dataclass
class RecordingClient:
    """Forwards to ``client`` and keeps each request's key with its reply."""

    client: LlmClient
    calls: list[tuple[str, AssistantReply]] = field(default_factory=list)

    @property
    def provider(self) -> str:
        return self.client.provider

    async def complete(
        self,
        request: CompletionRequest,
        *,
        cancel: CancelToken | None = None,
        on_text_delta: TextProgress | None = None,
        on_retry: RetryCallback | None = None,
    ) -> AssistantReply:
        reply = await self.client.complete(request, cancel=cancel, on_text_delta=on_text_delta, on_retry=on_retry)
        self.calls.append((_request_key(request), reply))
        return reply

    async def aclose(self) -> None:
        await self.client.aclose()


@dataclass
class ReplayClient:
    """Answers with recorded replies while the requests match them, then asks ``client``."""

    calls: Sequence[tuple[str, AssistantReply]]
    client: LlmClient
    replayed: int = 0
    asked: int = 0

    @property
    def provider(self) -> str:
        return self.client.provider

    async def complete(
        self,
        request: CompletionRequest,
        *,
        cancel: CancelToken | None = None,
        on_text_delta: TextProgress | None = None,
        on_retry: RetryCallback | None = None,
    ) -> AssistantReply:
        index = self.replayed + self.asked
        if self.asked == 0 and index < len(self.calls) and self.calls[index][0] == _request_key(request):
            self.replayed += 1
            reply = self.calls[index][1]
            if on_text_delta is not None:
                on_text_delta(len(reply.text))
            return reply
        self.asked += 1
        return await self.client.complete(request, cancel=cancel, on_text_delta=on_text_delta, on_retry=on_retry)

    async def aclose(self) -> None:
        await self.client.aclose()


class PreviewCache:
    """The replies of the latest successful preview per session file, taken by the confirming call."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._entries: dict[str, tuple[Hashable, list[tuple[str, AssistantReply]]]] = {}

    def remember(self, path: str, key: Hashable, calls: list[tuple[str, AssistantReply]]) -> None:
        with self._lock:
            self._entries[path] = (key, calls)

    def take(self, path: str, key: Hashable) -> list[tuple[str, AssistantReply]] | None:
        with self._lock:
            found = self._entries.get(path)
            if found is None or found[0] != key:
                return None
            del self._entries[path]
            return found[1]

    def forget(self, path: str) -> None:
        with self._lock:
            self._entries.pop(path, None)


# --- jobs ------------------------------------------------------------------------------------------


class JobRefused(Exception):
    """A command that cannot run (bad session, nothing to do, the file changed); nothing was written."""


@dataclass(frozen=True)
class Job:
    """A planned command: what to summarize, the options, and the preview key."""

    kind: str  # "compaction" | "branchSummary"
    session: SessionForAppend
    preview_only: bool
    options: SummaryOptions
    key: Hashable
    compaction: CompactionPlan | None = None
    branch: BranchPlan | None = None
    context_window: int | None = None
    reserve_tokens: float = 0
    replace_instructions: bool = False
    counter: TokenCounter | None = None  # the project's estimator for the session's model (the summary's size)
    prices: ModelPrices | None = None  # the session model's prices: what Pi would pay for the summary calls
    summarizer_prices: ModelPrices | None = None  # an HTTP summarizer's model: what the calls made here cost

    def describe(self) -> str:
        """One line for the progress UI: what will be summarized."""
        if self.compaction is not None:
            prep = self.compaction.preparation
            count = len(prep.messages_to_summarize) + len(prep.turn_prefix_messages)
            return f"{count} messages to summarize, keeping from {prep.first_kept_entry_id}"
        assert self.branch is not None
        return f"{len(self.branch.collection.entries)} entries on the branch left"


@dataclass(frozen=True)
class JobResult:
    outcome: protocol.CommandOutcome | None
    detail: CompactionOutcome | BranchOutcome  # the domain's answer, for front ends that show more
    failure: str | None = None
    cancelled: bool = False
    changed_under_us: bool = False
    entry_id: str | None = None
    size: int | None = None


def _check_expected_size(session: SessionForAppend, expected: int | None) -> None:
    if session.error is not None:
        raise JobRefused(session.error)
    size = session.snapshot.size if session.snapshot is not None else None
    if expected is not None and size != expected:
        raise JobRefused(
            f"{session.path} changed since the preview (size {size:,} bytes, expected {expected:,}): "
            "nothing was written; preview again"
        )


def _options(
    instructions: str | None, thinking_level: Any, config: SummarizerConfig, project: Project
) -> SummaryOptions:
    """The summary requests as the installed Pi's release makes them (``project.pi_rules``: docs/pi-versions.md)."""
    return SummaryOptions(
        custom_instructions=instructions or None,
        thinking_level=thinking_level if isinstance(thinking_level, str) else None,
        model_reasoning=config.reasoning,
        rules=project.pi_rules,
    )


def plan_compaction_job(
    args: protocol.CompactArgs,
    project_for: ProjectFor,
    config: SummarizerConfig,
    limits: SessionReadLimits = DEFAULT_LIMITS,
) -> Job:
    """Read and plan a compaction at the leaf (``leafId``, else Pi's); raises :class:`JobRefused` with Pi's reason."""
    session = load_for_append(args.session, limits)
    _check_expected_size(session, args.expected_size)
    project = project_for(session)
    plan = plan_compaction(session, project.compaction_settings_for, args.leaf_id)
    if isinstance(plan, str):
        raise JobRefused(plan)
    key = ("compaction", session.snapshot, plan.leaf_id, args.instructions or None, summarizer_key(config))
    return Job(
        "compaction",
        session,
        args.preview_only,
        _options(args.instructions, plan.thinking_level, config, project),
        key,
        compaction=plan,
        counter=_counter(project, plan.model),
        prices=_prices(project, plan.model),
        summarizer_prices=_summarizer_prices(project, config),
    )


def plan_branch_job(
    args: protocol.BranchSummaryArgs,
    project_for: ProjectFor,
    config: SummarizerConfig,
    limits: SessionReadLimits = DEFAULT_LIMITS,
) -> Job:
    """Read and plan a branch summary from ``fromId`` to ``toId``; raises :class:`JobRefused`."""
    session = load_for_append(args.session, limits)
    _check_expected_size(session, args.expected_size)
    plan = plan_branch_summary(session, args.from_id, args.to_id)
    if isinstance(plan, str):
        raise JobRefused(plan)
    project = project_for(session)
    model = session_settings(build_path(session.entries, args.from_id, session.index)).model
    key = (
        "branchSummary",
        session.snapshot,
        args.from_id,
        args.to_id,
        args.instructions or None,
        args.replace_instructions,
        summarizer_key(config),
    )
    return Job(
        "branchSummary",
        session,
        args.preview_only,
        _options(args.instructions, plan.thinking_level, config, project),
        key,
        branch=plan,
        context_window=project.context_window_for(model),
        reserve_tokens=project.branch_summary_reserve_tokens,
        replace_instructions=args.replace_instructions,
        counter=_counter(project, model),
        prices=_prices(project, model),
        summarizer_prices=_summarizer_prices(project, config),
    )


def _prices(project: Project, model: ModelRef | None) -> ModelPrices:
    provider = model.provider if model is not None and isinstance(model.provider, str) else None
    model_id = model.model_id if model is not None and isinstance(model.model_id, str) else None
    return project.prices.prices_for(provider, model_id)


def _summarizer_prices(project: Project, config: SummarizerConfig) -> ModelPrices | None:
    """The summarizer model's prices (its wire format as Pi's provider: ``anthropic``, ``openai``); None offline."""
    if config.kind == OFFLINE or config.model is None:
        return None
    return project.prices.prices_for(config.kind, config.model)


def _economics(job: Job, calls: Sequence[tuple[str, AssistantReply]], summary: str) -> CompactionEconomics | None:
    """The summary calls' cost and, for a compaction, what it saves (see :mod:`lsp_server.cost.compaction_cost`).

    An HTTP summarizer's calls are priced at its model's prices with the usage its provider reported
    (when it reported some for every call); the offline summarizer's, as Pi would make them with the
    session's model.
    """
    if job.prices is None or not calls:
        return None
    inputs = []
    usage: list[UsageCounts] = []
    for key, reply in calls:
        system, messages = json.loads(key)[:2]
        inputs.append(call_input_tokens(str(system), messages))
        if reply.usage.total_tokens > 0:
            got = reply.usage
            usage.append(UsageCounts(got.input, got.output, got.cache_read, got.cache_write))
    summarizer = SummarizerCalls(job.summarizer_prices, tuple(usage)) if job.summarizer_prices is not None else None
    summarized = context_before = 0
    if job.compaction is not None:
        prep = job.compaction.preparation
        summarized = sum(estimate_tokens(m) for m in [*prep.messages_to_summarize, *prep.turn_prefix_messages])
        context_before = int(prep.tokens_before)
    return compaction_economics(
        inputs, pi_text_tokens(summary), summarized, context_before, job.prices, summarizer=summarizer
    )


def _counter(project: Project, model: ModelRef | None) -> TokenCounter:
    model_id = model.model_id if model is not None and isinstance(model.model_id, str) else None
    return project.budget_config.counter_for(model_id).counter


def branch_budget(job: Job) -> float:
    """The token budget of a branch summary's input (Pi: window - reserve)."""
    return branch_token_budget(job.context_window, job.reserve_tokens)


def _entry_json(entry: Entry | None) -> dict[str, Any] | None:
    if entry is None:
        return None
    value: dict[str, Any] = json.loads(entry_json(entry))
    return value


async def run_job(
    job: Job,
    client: LlmClient,
    *,
    label: str,
    previews: PreviewCache,
    cancel: CancelToken | None = None,
    on_progress: ProgressCallback | None = None,
) -> JobResult:
    """Summarize and (unless a preview) append; a failure is a value and nothing is written."""
    path = job.session.path
    recorded = None if job.preview_only else previews.take(path, job.key)
    replay = ReplayClient(recorded, client) if recorded is not None else None
    recording = RecordingClient(client)
    used: LlmClient = replay if replay is not None else recording
    outcome: CompactionOutcome | BranchOutcome
    if job.compaction is not None:
        outcome = await run_compaction(
            job.compaction, used, options=job.options, dry_run=job.preview_only, cancel=cancel, on_progress=on_progress
        )
    else:
        assert job.branch is not None
        outcome = await run_branch_summary(
            job.branch,
            used,
            options=job.options,
            replace_instructions=job.replace_instructions,
            reserve_tokens=job.reserve_tokens,
            context_window=job.context_window,
            dry_run=job.preview_only,
            cancel=cancel,
            on_progress=on_progress,
        )
    if outcome.failure is not None:
        return JobResult(
            None, outcome, outcome.failure, cancelled=outcome.cancelled, changed_under_us=outcome.changed_under_us
        )
    if job.preview_only:
        previews.remember(path, job.key, recording.calls)
    else:
        previews.forget(path)
    entry = _entry_json(outcome.entry)
    written = outcome.written
    size = (
        written.offset + len(written.line)
        if written is not None
        else (job.session.snapshot.size if job.session.snapshot is not None else None)
    )
    first_kept = tokens_before = None
    if isinstance(outcome, CompactionOutcome) and outcome.result is not None:
        first_kept = outcome.result.first_kept_entry_id
        tokens_before = outcome.result.tokens_before
    summary = str(entry.get("summary", "")) if entry is not None else ""
    result = protocol.CommandOutcome(
        written=written is not None,
        preview_only=job.preview_only,
        summary=summary,
        summary_tokens=protocol.TokenCounts(
            pi=pi_text_tokens(summary), estimate=job.counter.count(summary) if job.counter else pi_text_tokens(summary)
        ),
        entry=entry,
        first_kept_entry_id=first_kept if isinstance(first_kept, str) else None,
        tokens_before=int(tokens_before) if isinstance(tokens_before, (int, float)) else None,
        summarizer=label,
        session_size=size,
        from_preview=replay is not None and replay.asked == 0 and replay.replayed > 0,
    )
    economics = _economics(job, recording.calls or list(recorded or ()), summary)
    if economics is not None:
        result = result.model_copy(
            update={"economics": protocol.CompactionEconomicsInfo.model_validate(economics.to_json())}
        )
    entry_id = entry.get("id") if entry is not None and written is not None else None
    return JobResult(result, outcome, entry_id=entry_id if isinstance(entry_id, str) else None, size=size)
