"""The budget and the projected request as the language server sends them (``lsp_server.protocol``).

The domain values of :mod:`.budget` and :mod:`.projected` map one to one onto the protocol
models; this module is that mapping, so the CLI's ``--json`` and the server's answers are the
same JSON.
"""

from __future__ import annotations

import posixpath
from pathlib import PurePosixPath
from typing import Final, Literal

from lsp_server import protocol
from lsp_server.budget.breakdown import BudgetBreakdown, EstimatorInfo
from lsp_server.budget.budget import ContextBudget
from lsp_server.budget.models import ModelWindow
from lsp_server.budget.projected import ProjectedRequest, RequestSection

SourceKind = Literal["context_file", "system_prompt", "append_system_prompt", "skill", "settings", "builtin", "option"]

_SOURCE_KINDS: Final[dict[str, SourceKind]] = {
    "project_context": "context_file",
    "preamble": "system_prompt",
    "addendum": "append_system_prompt",
    "skills": "skill",
}


def model_info(model: ModelWindow) -> protocol.ModelInfo:
    return protocol.ModelInfo(
        provider=model.provider,
        id=model.model_id,
        context_window=model.context_window,
        source=model.coarse_source,
        window_source=model.window_source,
        model_source=model.model_source,
        detail=model.detail,
    )


def estimator_wire(estimator: EstimatorInfo) -> protocol.EstimatorInfo:
    return protocol.EstimatorInfo(
        name=estimator.name,
        family=estimator.family,
        exact=estimator.exact,
        label=estimator.label,
        note=estimator.note,
    )


def breakdown_wire(breakdown: BudgetBreakdown) -> protocol.Breakdown:
    reconciliation = breakdown.reconciliation
    return protocol.Breakdown(
        estimator=estimator_wire(breakdown.estimator),
        categories=[
            protocol.BudgetCategory(id=c.id, group=c.group, label=c.label, tokens=c.tokens, count=c.count)
            for c in breakdown.categories
        ],
        used=breakdown.used,
        free=breakdown.free,
        overflow=breakdown.overflow,
        reconciliation=(
            protocol.Reconciliation(
                usage_tokens=reconciliation.usage_tokens,
                estimated_tokens=reconciliation.estimated_tokens,
                method=reconciliation.method,
            )
            if reconciliation is not None
            else None
        ),
        notes=list(breakdown.notes),
    )


def budget_result(budget: ContextBudget) -> protocol.ContextBudgetResult:
    """``pi/contextBudget``'s answer."""
    return protocol.ContextBudgetResult(
        model=model_info(budget.model),
        window=budget.window,
        reserve_tokens=budget.reserve_tokens,
        threshold=budget.threshold,
        compaction_enabled=budget.compaction_enabled,
        context_tokens=budget.context_tokens,
        context_tokens_source=budget.context_tokens_source,
        should_compact=budget.should_compact,
        percent_used=budget.percent_used,
        pi=breakdown_wire(budget.pi),
        estimated=breakdown_wire(budget.estimated),
        keep_recent_tokens=budget.keep_recent_tokens,
        footer_tokens=budget.footer_tokens,
        system_origin=budget.system_origin,
        problems=list(budget.problems),
    )


def _source(name: str, path: str) -> protocol.SectionSource:
    uri = PurePosixPath(path).as_uri() if posixpath.isabs(path) else None
    return protocol.SectionSource(path=path, kind=_SOURCE_KINDS.get(name, "option"), uri=uri)


def _section(section: RequestSection, position: int) -> protocol.PromptSection:
    return protocol.PromptSection(
        name=section.name,
        text=section.text,
        position=position,
        tokens=protocol.TokenCounts(pi=section.pi_tokens, estimate=section.tokens),
        sources=[_source(section.name, path) for path in section.sources],
        pi_prose=section.ours,
    )


def projected_result(
    request: ProjectedRequest, *, session: str, cwd: str, agent_dir: str, project_trusted: bool
) -> protocol.ProjectedRequestResult:
    """``pi/projectedRequest``'s answer; ``cwd``/``agent_dir``/``project_trusted`` describe the workspace."""
    system = request.system
    return protocol.ProjectedRequestResult(
        session=session,
        leaf_id=request.leaf_id,
        system=protocol.SystemPromptResult(
            cwd=cwd,
            agent_dir=agent_dir,
            project_trusted=project_trusted,
            sections=[_section(section, i) for i, section in enumerate(system.sections)],
            rendered=system.rendered,
            total=protocol.TokenCounts(pi=system.pi_tokens, estimate=system.tokens),
            estimator=estimator_wire(request.estimator),
        ),
        messages=[
            protocol.ProjectedMessage(
                index=m.index,
                role=m.role,
                kind=m.kind,
                entry_id=m.entry_id,
                entry_type=m.entry_type or None,
                text=m.text,
                tokens=protocol.TokenCounts(pi=m.pi_tokens, estimate=m.tokens),
                timestamp=m.timestamp,
            )
            for m in request.messages
        ],
        thinking_level=request.thinking_level,
        model=model_info(request.model),
        total=protocol.TokenCounts(pi=request.pi_tokens, estimate=request.tokens),
        system_origin=system.origin,
    )
