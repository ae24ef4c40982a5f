"""The context budget of a session (or of the prompt alone): Pi's numbers and two breakdowns.

What Pi decides with is reproduced exactly: the model along the path, its per-model compaction
settings, the context tokens (``estimateProjectedContextTokens``: the last usable assistant usage
plus estimates after it, or a full estimate after a context edit or compaction), the threshold
``window - reserveTokens`` and ``shouldCompact``. Around those numbers two breakdowns say where
the tokens go, one counted with Pi's ``chars/4`` (``pi``) and one with the configured estimator
(``estimated``); both add up to the window (see :mod:`.breakdown`).

The ``pi`` breakdown's ``used`` is always Pi's context tokens. The ``estimated`` one is our best
account of the next request: provider usage where Pi trusts it, the estimator elsewhere, and the
workspace's system prompt when the session stores none (Pi's estimate then leaves the prompt out).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from lsp_server.budget.breakdown import (
    PI_ESTIMATOR,
    BudgetBreakdown,
    EstimatorInfo,
    Reconciliation,
    Tally,
    estimator_info,
    finish,
    reconcile,
)
from lsp_server.budget.models import ModelSource, ModelWindow, ModelWindows, model_of
from lsp_server.budget.parts import (
    SYSTEM_PATCH,
    CountedMessage,
    SystemPart,
    apportion,
    count_messages,
    prompt_parts,
    system_message_parts,
)
from lsp_server.context.pi_settings import PiSettings
from lsp_server.js.numbers import MAX_SAFE_INTEGER
from lsp_server.js.values import js_get
from lsp_server.prompt.assembly import AssembledPrompt
from lsp_server.prompt.system_messages import current_system_message
from lsp_server.session.estimates import (
    ContextEstimate,
    assistant_usage,
    estimate_projected_context_tokens,
    estimate_tokens,
    exceeds_compaction_threshold,
)
from lsp_server.session.projection import SessionProjection
from lsp_server.session.raw import Entry
from lsp_server.tokens.counter import CounterChoice, TokenCounter, choose_counter
from lsp_server.vocabulary.compaction import CompactionSettings

ContextSource = Literal["usage", "estimate", "none"]
SystemOrigin = Literal["session", "workspace", "none"]


@dataclass(frozen=True)
class BudgetConfig:
    """Everything a budget depends on besides the session: windows, Pi's settings, the estimator."""

    windows: ModelWindows = field(default_factory=ModelWindows)
    pi_settings: PiSettings = field(default_factory=PiSettings)
    estimator: str = "weighted"
    family: str = "auto"

    def counter_for(self, model_id: str | None) -> CounterChoice:
        return choose_counter(self.estimator, self.family, model_id)


@dataclass(frozen=True)
class ContextBudget:
    model: ModelWindow
    reserve_tokens: int
    keep_recent_tokens: int
    compaction_enabled: bool
    compaction_override: str | None  # the "provider/modelId" key of a per-model override that applied
    context_tokens: int
    context_tokens_source: ContextSource
    footer_tokens: int | None  # what Pi's footer shows; None when Pi shows it as unknown (or no session)
    should_compact: bool
    system_origin: SystemOrigin
    pi: BudgetBreakdown
    estimated: BudgetBreakdown
    problems: tuple[str, ...] = ()

    @property
    def window(self) -> int:
        return self.model.context_window

    @property
    def threshold(self) -> int:
        return self.window - self.reserve_tokens

    @property
    def percent_used(self) -> float:
        return round(self.context_tokens / self.window * 100, 2) if self.window > 0 else 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "model": self.model.to_json(),
            "window": self.window,
            "reserveTokens": self.reserve_tokens,
            "keepRecentTokens": self.keep_recent_tokens,
            "threshold": self.threshold,
            "compactionEnabled": self.compaction_enabled,
            "compactionOverride": self.compaction_override,
            "contextTokens": self.context_tokens,
            "contextTokensSource": self.context_tokens_source,
            "footerTokens": self.footer_tokens,
            "shouldCompact": self.should_compact,
            "percentUsed": self.percent_used,
            "systemOrigin": self.system_origin,
            "pi": self.pi.to_json(),
            "estimated": self.estimated.to_json(),
            "problems": list(self.problems),
        }


def whole_tokens(value: float) -> int:
    """A token count as an integer (provider usage is whole; a fraction is rounded up).

    A recorded usage of ``1e999`` is Infinity in Pi (which then compacts at once); as a count it is
    shown as the largest exact JavaScript integer, and NaN as 0, so the budget stays printable JSON.
    """
    if math.isnan(value):
        return 0
    if math.isinf(value):
        return MAX_SAFE_INTEGER if value > 0 else 0
    return int(value) if float(value).is_integer() else math.ceil(value)


@dataclass(frozen=True)
class BudgetSetup:
    model: ModelWindow
    compaction: CompactionSettings
    counter: TokenCounter
    estimator: EstimatorInfo


def budget_setup(config: BudgetConfig, provider: Any, model_id: Any) -> BudgetSetup:
    """The model (the session's, else Pi's default model), its window, compaction settings, counter."""
    session_provider, session_model = model_of(provider, model_id)
    if session_model is not None:
        model = config.windows.resolve(session_provider, session_model, "session")
    else:
        default_provider, default_model = model_of(
            config.pi_settings.default_provider, config.pi_settings.default_model
        )
        source: ModelSource = "pi-settings" if default_model is not None else "none"
        model = config.windows.resolve(default_provider, default_model, source)
    compaction = config.pi_settings.compaction_for(model.provider, model.model_id)
    choice = config.counter_for(model.model_id)
    return BudgetSetup(model, compaction, choice.counter, estimator_info(choice))


def _pi_system_tally(parts: Sequence[SystemPart], pi_total: int) -> Tally:
    """Pi's one estimate for a system message, apportioned over its parts by characters."""
    tally = Tally()
    for part, tokens in zip(parts, apportion(pi_total, [p.chars for p in parts]), strict=True):
        tally.add(part.category, tokens, part.count)
    return tally


def _counted_system_tally(parts: Sequence[SystemPart], counter: TokenCounter) -> Tally:
    tally = Tally()
    for part in parts:
        tally.add(part.category, part.counted(counter), part.count)
    return tally


def _system_parts_of(message: dict[str, Any] | None) -> tuple[list[SystemPart], int]:
    if message is None:
        return [], 0
    return system_message_parts(message), estimate_tokens(message)


def _message_tallies(counted: Sequence[CountedMessage], *, include_system: bool) -> tuple[Tally, Tally]:
    pi, estimated = Tally(), Tally()
    for item in counted:
        if item.category is None or (item.category == SYSTEM_PATCH and not include_system):
            continue
        pi.add(item.category, item.pi_tokens)
        estimated.add(item.category, item.tokens)
    return pi, estimated


def footer_tokens(projection: SessionProjection, branch: Sequence[Entry], estimate: ContextEstimate) -> int | None:
    """Pi's footer (``getContextUsage``): unknown after a compaction until an assistant answers again.

    Known means: some projected entry after the latest compaction on the branch holds an assistant
    message with a usable usage. Otherwise Pi shows the count as unknown (``None`` here).
    """
    latest = next((i for i in range(len(branch) - 1, -1, -1) if js_get(branch[i], "type") == "compaction"), None)
    if latest is not None:
        with_usage = {
            js_get(projected.source_entry, "id")
            for projected in projection.entries
            if any(assistant_usage(message) is not None for message in projected.messages)
        }
        if not any(js_get(entry, "id") in with_usage for entry in branch[latest + 1 :]):
            return None
    return whole_tokens(estimate.tokens)


def session_budget(
    projection: SessionProjection,
    branch: Sequence[Entry],
    *,
    config: BudgetConfig | None = None,
    workspace_prompt: AssembledPrompt | None = None,
    counted: Sequence[CountedMessage] | None = None,
) -> ContextBudget:
    """The budget of the request Pi would send next from ``projection`` (``branch``: the path to the leaf).

    ``workspace_prompt`` stands in for the system prompt when the session stores none (sessions
    written before Pi 1.6.0). ``counted`` lets a caller that already counted the messages (the
    projected request) share that work; it must come from the same projection and counter.
    """
    cfg = config or BudgetConfig()
    model = projection.model
    setup = budget_setup(cfg, model.provider if model else None, model.model_id if model else None)
    window, reserve = setup.model.context_window, setup.compaction.reserve_tokens
    items = list(counted) if counted is not None else count_messages(projection, setup.counter.count)
    estimate = estimate_projected_context_tokens(projection, branch)
    context_tokens = whole_tokens(estimate.tokens)
    notes_pi: list[str | None] = []
    notes_est: list[str | None] = []

    if estimate.last_usage_index is not None:
        source: ContextSource = "usage"
        cut = estimate.last_usage_index + 1
        covered, trailing = items[:cut], items[cut:]
        system = current_system_message([item.message for item in covered])
        if system is not None:
            system_origin: SystemOrigin = "session"
            parts, pi_system = _system_parts_of(system)
        elif workspace_prompt is not None:
            system_origin = "workspace"
            parts, pi_system = prompt_parts(workspace_prompt), workspace_prompt.pi_tokens
            notes_pi.append(_WORKSPACE_NOTE)
            notes_est.append(_WORKSPACE_NOTE)
        else:
            system_origin, parts, pi_system = "none", [], 0
        covered_pi = _pi_system_tally(parts, pi_system)
        covered_est = _counted_system_tally(parts, setup.counter)
        messages_pi, messages_est = _message_tallies(covered, include_system=False)
        covered_pi.merge(messages_pi)
        covered_est.merge(messages_est)
        usage = whole_tokens(estimate.usage_tokens)
        pi_tally, pi_reconciled, pi_note = reconcile(covered_pi, usage)
        est_tally, est_reconciled, est_note = reconcile(covered_est, usage)
        notes_pi.append(pi_note)
        notes_est.append(est_note)
        trailing_pi, trailing_est = _message_tallies(trailing, include_system=True)
        pi_tally.merge(trailing_pi)
        est_tally.merge(trailing_est)
        reconciled: tuple[Reconciliation | None, Reconciliation | None] = (pi_reconciled, est_reconciled)
    else:
        system = current_system_message([item.message for item in items])
        parts, pi_system = _system_parts_of(system)
        pi_tally = _pi_system_tally(parts, pi_system)
        est_tally = _counted_system_tally(parts, setup.counter)
        messages_pi, messages_est = _message_tallies(items, include_system=False)
        pi_tally.merge(messages_pi)
        est_tally.merge(messages_est)
        system_origin = "session" if system is not None else "none"
        if system is None and workspace_prompt is not None:
            system_origin = "workspace"
            est_tally = _merged(_counted_system_tally(prompt_parts(workspace_prompt), setup.counter), est_tally)
            notes_pi.append(_PI_SKIPS_PROMPT_NOTE)
            notes_est.append(_WORKSPACE_NOTE)
        source = "estimate" if pi_tally.total() > 0 or items else "none"
        reconciled = (None, None)

    pi_breakdown = finish(
        pi_tally,
        estimator=PI_ESTIMATOR,
        window=window,
        reserve_tokens=reserve,
        reconciliation=reconciled[0],
        notes=notes_pi,
    )
    est_breakdown = finish(
        est_tally,
        estimator=setup.estimator,
        window=window,
        reserve_tokens=reserve,
        reconciliation=reconciled[1],
        notes=notes_est,
    )
    should = _should_compact(context_tokens, window, setup.compaction)
    warning = _estimate_warning(est_breakdown.used, context_tokens, window, window - reserve, should, setup.compaction)
    if warning is not None:
        est_breakdown = replace(est_breakdown, notes=(*est_breakdown.notes, warning))
    return ContextBudget(
        model=setup.model,
        reserve_tokens=reserve,
        keep_recent_tokens=setup.compaction.keep_recent_tokens,
        compaction_enabled=setup.compaction.enabled,
        compaction_override=setup.compaction.override_key,
        context_tokens=context_tokens,
        context_tokens_source=source,
        footer_tokens=footer_tokens(projection, branch, estimate),
        should_compact=should,
        system_origin=system_origin,
        pi=pi_breakdown,
        estimated=est_breakdown,
        problems=cfg.windows.problems,
    )


def prompt_budget(prompt: AssembledPrompt, *, config: BudgetConfig | None = None) -> ContextBudget:
    """The budget of the system prompt alone (no session): what the first request starts from.

    The model is Pi's default model from settings (else unknown, with the default window). Pi's
    count is its estimate of the system message it would record (``ceil(section chars / 4)``).
    Tool declarations are not included: Pi's tool schemas are not in the workspace.
    """
    cfg = config or BudgetConfig()
    setup = budget_setup(cfg, None, None)
    window, reserve = setup.model.context_window, setup.compaction.reserve_tokens
    parts = prompt_parts(prompt)
    note = "The system prompt alone, as the workspace builds it; tool definitions are not included."
    pi_breakdown = finish(
        _pi_system_tally(parts, prompt.pi_tokens),
        estimator=PI_ESTIMATOR,
        window=window,
        reserve_tokens=reserve,
        notes=[note],
    )
    est_breakdown = finish(
        _counted_system_tally(parts, setup.counter),
        estimator=setup.estimator,
        window=window,
        reserve_tokens=reserve,
        notes=[note],
    )
    return ContextBudget(
        model=setup.model,
        reserve_tokens=reserve,
        keep_recent_tokens=setup.compaction.keep_recent_tokens,
        compaction_enabled=setup.compaction.enabled,
        compaction_override=setup.compaction.override_key,
        context_tokens=prompt.pi_tokens,
        context_tokens_source="none",
        footer_tokens=None,
        should_compact=_should_compact(prompt.pi_tokens, window, setup.compaction),
        system_origin="workspace",
        pi=pi_breakdown,
        estimated=est_breakdown,
        problems=cfg.windows.problems,
    )


_WORKSPACE_NOTE = (
    "The session stores no system prompt (written before Pi 1.6.0); the workspace's assembled prompt stands in for it."
)
_PI_SKIPS_PROMPT_NOTE = (
    "The session stores no system prompt, so Pi's own estimate leaves it out; the other breakdown includes "
    "the workspace's prompt."
)


def _merged(first: Tally, second: Tally) -> Tally:
    out = Tally({k: list(v) for k, v in first.rows.items()})
    out.merge(second)
    return out


def _estimate_warning(
    estimated: int, pi_tokens: int, window: int, threshold: int, should: bool, compaction: CompactionSettings
) -> str | None:
    """When the better estimate crosses a line that Pi's own count does not: say what it means."""
    if estimated > window >= pi_tokens:
        return (
            f"By this estimate the next request holds {estimated:,} tokens, more than the {window:,}-token window, "
            f"while Pi counts {pi_tokens:,}: the provider may reject it before Pi compacts."
        )
    if compaction.enabled and not should and estimated > threshold:
        return (
            f"By this estimate the next request holds {estimated:,} tokens, above the compaction threshold "
            f"({threshold:,}), but Pi counts {pi_tokens:,} and will not compact before sending it."
        )
    return None


def _should_compact(tokens: int, window: int, compaction: CompactionSettings) -> bool:
    return exceeds_compaction_threshold(tokens, window, compaction)
