"""Prompt snapshots and changes as the protocol models the server sends (``lsp_server.protocol``).

One mapping, so ``pi/systemPrompt``, ``pi/promptSectionsChanged`` and the docs' examples agree. The
numbers are the ones ``pi-context prompt --json`` prints: per section Pi's ``ceil(chars/4)`` of
the section and the configured counter; the total is Pi's estimate of the whole system message
and the counter on the rendered text.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable
from pathlib import PurePosixPath
from typing import Final, Literal

from lsp_server import protocol
from lsp_server.budget.breakdown import estimator_info
from lsp_server.cost.save_cost import SaveCacheImpact
from lsp_server.project.budget_answers import estimator_wire
from lsp_server.project.prompt_state import PromptSnapshot, SectionsChange
from lsp_server.prompt.assembly import AssembledSection
from lsp_server.tokens.pair import TokenPair

SourceKind = Literal["context_file", "system_prompt", "append_system_prompt", "skill", "settings", "builtin", "option"]
UriFor = Callable[[str], str]

_SOURCE_KINDS: Final[dict[str, SourceKind]] = {
    "project_context": "context_file",
    "preamble": "system_prompt",
    "addendum": "append_system_prompt",
    "skills": "skill",
}


def file_uri(path: str) -> str:
    return PurePosixPath(path).as_uri() if posixpath.isabs(path) else path


def token_counts(pair: TokenPair) -> protocol.TokenCounts:
    return protocol.TokenCounts(pi=pair.pi, estimate=pair.estimate)


def _section(section: AssembledSection, position: int, uri_for: UriFor) -> protocol.PromptSection:
    kind = _SOURCE_KINDS.get(section.name, "option")
    return protocol.PromptSection(
        name=section.name,
        text=section.text,
        position=position,
        tokens=protocol.TokenCounts(pi=section.pi_tokens, estimate=section.tokens),
        sources=[protocol.SectionSource(path=path, kind=kind, uri=uri_for(path)) for path in section.sources],
        pi_prose=section.origin == "default",
    )


def system_prompt_result(snapshot: PromptSnapshot, uri_for: UriFor = file_uri) -> protocol.SystemPromptResult:
    """``pi/systemPrompt``'s answer for one build."""
    prompt = snapshot.prompt
    return protocol.SystemPromptResult(
        cwd=snapshot.cwd,
        agent_dir=snapshot.agent_dir,
        project_trusted=snapshot.trust.trusted,
        trust_reason=snapshot.trust.reason,
        sections=[_section(section, index, uri_for) for index, section in enumerate(prompt.sections)],
        rendered=prompt.text,
        total=token_counts(snapshot.total),
        estimator=estimator_wire(estimator_info(snapshot.counter)),
        warnings=list(prompt.warnings),
    )


def sections_changed_params(folder_uri: str, cwd: str, change: SectionsChange) -> protocol.PromptSectionsChangedParams:
    """``pi/promptSectionsChanged``'s params for a change of the folder at ``folder_uri``."""
    return protocol.PromptSectionsChangedParams(
        workspace_folder=folder_uri,
        cwd=cwd,
        patch=dict(change.patch),
        changes=[
            protocol.SectionChange(
                name=delta.name,
                status=delta.status,
                tokens_before=token_counts(delta.before) if delta.before is not None else None,
                tokens_after=token_counts(delta.after) if delta.after is not None else None,
                delta=token_counts(delta.delta),
            )
            for delta in change.deltas
        ],
        total_before=token_counts(change.total_before),
        total_after=token_counts(change.total_after),
        rendered_update=change.rendered_update,
        trigger_paths=list(change.trigger_paths),
        cache=cache_impact_wire(change.cache) if change.cache is not None else None,
    )


def cache_impact_wire(impact: SaveCacheImpact) -> protocol.SaveCacheImpactInfo:
    return protocol.SaveCacheImpactInfo(
        patch_tokens=token_counts(impact.patch),
        first_difference=impact.first_difference,
        kept_tokens=token_counts(impact.kept),
        resent_tokens=token_counts(impact.resent),
    )
