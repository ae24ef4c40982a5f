"""The request Pi would send next, as the model receives it: system prompt, messages, counts.

The system part is the replay of the session's stored system messages (``getCurrentSystemMessage``,
what a provider without mid-conversation system messages receives as its system prompt), or the
workspace's assembled prompt when the session stores none. Messages are the projection after
``convertToLlm`` and pi-ai's last rewrite (aborted replies left out, synthetic results for unanswered
tool calls), in order, without the system messages (folded into the system part); each keeps
its agent kind (a compaction summary arrives as a user message but is marked as one), the entry it
came from, Pi's estimate of the agent message and the configured counter's count of what is sent.

:func:`analyze_session` builds the projected request and the budget from one pass over the
messages, which is what the CLI and the language server want.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from lsp_server.budget.breakdown import EstimatorInfo
from lsp_server.budget.budget import BudgetConfig, ContextBudget, SystemOrigin, budget_setup, session_budget
from lsp_server.budget.models import ModelWindow, model_of
from lsp_server.budget.parts import (
    IMAGE_TOKENS,
    CountedMessage,
    SystemPart,
    apportion,
    count_messages,
    llm_message_text,
    prompt_parts,
    system_message_parts,
)
from lsp_server.js.dates import js_date_ms
from lsp_server.js.values import UNDEFINED, js_get, js_to_string
from lsp_server.prompt.assembly import AssembledPrompt
from lsp_server.prompt.system_messages import current_system_message, system_message_text
from lsp_server.session.estimates import estimate_tokens, estimate_tokens_with
from lsp_server.session.projection import ModelRef, SessionProjection, build_session_projection
from lsp_server.session.raw import Entry
from lsp_server.session.transform import transform_messages
from lsp_server.session.tree import EntryIndex, build_path
from lsp_server.tokens.counter import TokenCounter


@dataclass(frozen=True)
class RequestSection:
    """A part of the system prompt (a section, ``#content`` text or ``#tools`` declarations)."""

    name: str
    category: str
    text: str
    pi_tokens: int
    tokens: int
    sources: tuple[str, ...] = ()
    count: int | None = None
    ours: bool = False  # pi-context's wording standing in for Pi's built-in prose

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "name": self.name,
            "category": self.category,
            "piTokens": self.pi_tokens,
            "tokens": self.tokens,
            "sources": list(self.sources),
            "ours": self.ours,
            "text": self.text,
        }
        if self.count is not None:
            out["count"] = self.count
        return out


@dataclass(frozen=True)
class ProjectedSystem:
    origin: SystemOrigin
    sections: tuple[RequestSection, ...]
    rendered: str

    @property
    def pi_tokens(self) -> int:
        return sum(section.pi_tokens for section in self.sections)

    @property
    def tokens(self) -> int:
        return sum(section.tokens for section in self.sections)

    def to_json(self) -> dict[str, Any]:
        return {
            "origin": self.origin,
            "sections": [section.to_json() for section in self.sections],
            "piTokens": self.pi_tokens,
            "tokens": self.tokens,
            "rendered": self.rendered,
        }


@dataclass(frozen=True)
class RequestMessage:
    index: int  # position among the messages sent (0-based)
    role: str  # as the model receives it (after convertToLlm)
    kind: str  # the agent message's role: compactionSummary, branchSummary, custom, bashExecution, ...
    entry_id: str | None
    entry_type: str
    text: str
    pi_tokens: int
    tokens: int
    timestamp: int | None

    def to_json(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "role": self.role,
            "kind": self.kind,
            "entryId": self.entry_id,
            "entryType": self.entry_type,
            "piTokens": self.pi_tokens,
            "tokens": self.tokens,
            "timestamp": self.timestamp,
            "text": self.text,
        }


@dataclass(frozen=True)
class ProjectedRequest:
    leaf_id: str | None
    system: ProjectedSystem
    messages: tuple[RequestMessage, ...]
    thinking_level: str
    model: ModelWindow
    estimator: EstimatorInfo

    @property
    def pi_tokens(self) -> int:
        """Pi's estimate of everything sent: system parts plus each message's agent estimate."""
        return self.system.pi_tokens + sum(message.pi_tokens for message in self.messages)

    @property
    def tokens(self) -> int:
        return self.system.tokens + sum(message.tokens for message in self.messages)

    def to_json(self) -> dict[str, Any]:
        return {
            "leafId": self.leaf_id,
            "thinkingLevel": self.thinking_level,
            "model": self.model.to_json(),
            "estimator": self.estimator.to_json(),
            "system": self.system.to_json(),
            "messages": [message.to_json() for message in self.messages],
            "total": {"piTokens": self.pi_tokens, "tokens": self.tokens},
        }


def message_time_ms(message: Any) -> int | None:
    """A message's own timestamp in ms (Pi stores numbers; an ISO string is converted)."""
    stamp = js_get(message, "timestamp")
    if isinstance(stamp, bool):
        return None
    if isinstance(stamp, (int, float)):
        # JSON's 1e999 parses as Infinity in Pi: no time anyone can show.
        return int(stamp) if math.isfinite(stamp) else None
    value = js_date_ms(stamp) if isinstance(stamp, str) else None
    return int(value) if value is not None else None


def _sections(
    parts: Sequence[SystemPart],
    pi_total: int,
    counter: TokenCounter,
    known: Mapping[tuple[str, str], tuple[str, ...]],
) -> tuple[RequestSection, ...]:
    """Parts as request sections: Pi's one estimate apportioned, the counter per part, sources by (name, text)."""
    shares = apportion(pi_total, [part.chars for part in parts])
    return tuple(
        RequestSection(
            name=part.name,
            category=part.category,
            text=part.text,
            pi_tokens=share,
            tokens=part.counted(counter),
            sources=part.sources or known.get((part.name, part.text), ()),
            count=part.count,
            ours=part.ours,
        )
        for part, share in zip(parts, shares, strict=True)
    )


def projected_system(
    messages: Sequence[Any], counter: TokenCounter, workspace_prompt: AssembledPrompt | None = None
) -> ProjectedSystem:
    """The system part of the request: the stored prompt state replayed, else the workspace's prompt.

    A stored section whose text equals the workspace's section of the same name gets that
    section's source files (the session itself records none).
    """
    known: dict[tuple[str, str], tuple[str, ...]] = {}
    if workspace_prompt is not None:
        known = {(section.name, section.text): section.sources for section in workspace_prompt.sections}
    system = current_system_message(messages)
    if system is not None:
        parts = system_message_parts(system)
        return ProjectedSystem(
            "session", _sections(parts, estimate_tokens(system), counter, known), system_message_text(system)
        )
    if workspace_prompt is not None:
        parts = prompt_parts(workspace_prompt)
        return ProjectedSystem(
            "workspace", _sections(parts, workspace_prompt.pi_tokens, counter, {}), workspace_prompt.text
        )
    return ProjectedSystem("none", (), "")


def request_messages(
    counted: Sequence[CountedMessage], counter: TokenCounter, model: ModelRef | None = None
) -> tuple[RequestMessage, ...]:
    """The messages sent after the system prompt, as the provider receives them, with provenance and counts.

    pi-ai's last rewrite applies (:mod:`lsp_server.session.transform`): aborted and failed replies
    are left out, a tool call without a result gets Pi's synthetic one (no entry: ``entryId`` is
    absent), another model's thinking is dropped.
    """
    sendable = [item for item in counted if item.llm is not None]
    provider, model_id = model_of(model.provider, model.model_id) if model is not None else (None, None)
    sent = transform_messages(
        [item.llm for item in sendable if item.llm is not None], provider=provider, model_id=model_id
    )
    out: list[RequestMessage] = []
    for piece in sent:
        message = piece.message
        llm_role = js_get(message, "role")
        if llm_role == "system":
            continue
        item = sendable[piece.source] if piece.source is not None else None
        if item is None:  # Pi's synthetic result for an unanswered tool call
            out.append(
                RequestMessage(
                    index=len(out),
                    role="toolResult",
                    kind="toolResult",
                    entry_id=None,
                    entry_type="",
                    text=llm_message_text(message),
                    pi_tokens=estimate_tokens(message),
                    tokens=estimate_tokens_with(message, counter.count, IMAGE_TOKENS),
                    timestamp=None,
                )
            )
            continue
        entry_id = js_get(item.entry, "id")
        entry_type = js_get(item.entry, "type")
        changed = message is not item.llm and message.get("content") != (item.llm or {}).get("content")
        out.append(
            RequestMessage(
                index=len(out),
                role=llm_role if isinstance(llm_role, str) else "",
                kind=item.role,
                entry_id=entry_id if isinstance(entry_id, str) else None,
                entry_type=entry_type if isinstance(entry_type, str) else "",
                text=llm_message_text(message),
                pi_tokens=item.pi_tokens,
                tokens=estimate_tokens_with(message, counter.count, IMAGE_TOKENS) if changed else item.tokens,
                timestamp=message_time_ms(message),
            )
        )
    return tuple(out)


@dataclass(frozen=True)
class SessionAnalysis:
    """A session at one leaf: its branch, projection, the request Pi would send, and the budget."""

    branch: list[Entry]
    projection: SessionProjection
    request: ProjectedRequest
    budget: ContextBudget


def analyze_projection(
    projection: SessionProjection,
    branch: list[Entry],
    *,
    config: BudgetConfig | None = None,
    workspace_prompt: AssembledPrompt | None = None,
) -> SessionAnalysis:
    cfg = config or BudgetConfig()
    model = projection.model
    setup = budget_setup(cfg, model.provider if model else None, model.model_id if model else None)
    counted = count_messages(projection, setup.counter.count)
    budget = session_budget(projection, branch, config=cfg, workspace_prompt=workspace_prompt, counted=counted)
    thinking = projection.thinking_level
    leaf = js_get(branch[-1], "id") if branch else None
    request = ProjectedRequest(
        leaf_id=leaf if isinstance(leaf, str) else None,
        system=projected_system(projection.messages, setup.counter, workspace_prompt),
        messages=request_messages(counted, setup.counter, projection.model),
        thinking_level=thinking if isinstance(thinking, str) else js_to_string(thinking),
        model=setup.model,
        estimator=setup.estimator,
    )
    return SessionAnalysis(branch, projection, request, budget)


def analyze_session(
    entries: Sequence[Entry],
    leaf_id: Any = UNDEFINED,
    *,
    by_id: EntryIndex | None = None,
    config: BudgetConfig | None = None,
    workspace_prompt: AssembledPrompt | None = None,
) -> SessionAnalysis:
    """Project ``entries`` at ``leaf_id`` (default: Pi's leaf, the last entry) and count it all."""
    branch = build_path(entries, leaf_id, by_id)
    projection = build_session_projection(entries, leaf_id, by_id)
    return analyze_projection(projection, branch, config=config, workspace_prompt=workspace_prompt)
