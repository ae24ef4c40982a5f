"""What the chat shows about the context before Pi acts: the next prompt's cost and a compaction's plan.

Both are computed from the session file Pi writes, with the rules Pi applies (its ``chars/4``
estimate, its threshold ``window - reserveTokens``, its cut point), so the chat can warn and
preview without asking Pi, which would answer only by doing it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lsp_server import protocol
from lsp_server.budget.budget import ContextBudget, prompt_budget
from lsp_server.compaction.operations import plan_compaction
from lsp_server.compaction.prompts import SUMMARIZATION_SYSTEM_PROMPT
from lsp_server.compaction.summarize import summary_prompts
from lsp_server.cost.compaction_cost import (
    CompactionEconomics,
    call_input_tokens,
    compaction_economics,
    expected_summary_tokens,
)
from lsp_server.js.values import js_get
from lsp_server.llm.types import CompletionRequest
from lsp_server.project.analysis import analyze
from lsp_server.project.costs import next_request_with_prompt
from lsp_server.project.project import Project
from lsp_server.project.prompt_state import PromptSnapshot
from lsp_server.session.attachments import BuiltPrompt
from lsp_server.session.estimates import estimate_tokens
from lsp_server.session.tail import SessionFile
from lsp_server.session.writer import load_for_append
from lsp_server.tokens.counter import TokenCounter
from lsp_server.tokens.pair import TokenPair
from lsp_server.tokens.pi import pi_text_tokens
from lsp_server.vocabulary.pi_releases import PiRules


@dataclass(frozen=True)
class Preflight:
    """Where a prompt of this size puts the session, by Pi's count."""

    text_tokens: TokenPair
    context_tokens: int  # Pi's context tokens now
    after_prompt: int  # ... plus the prompt
    threshold: int
    window: int
    compaction_enabled: bool

    @property
    def crosses_threshold(self) -> bool:
        return self.compaction_enabled and self.after_prompt > self.threshold

    @property
    def message(self) -> str | None:
        if self.after_prompt > self.window:
            return (
                f"This prompt brings the context to about {self.after_prompt:,} tokens, more than the "
                f"{self.window:,}-token window: Pi will have to compact first, or the provider will refuse it."
            )
        if self.crosses_threshold:
            return (
                f"This prompt brings the context to about {self.after_prompt:,} tokens, past the compaction "
                f"threshold ({self.threshold:,} = window - reserve): Pi will compact after the reply."
            )
        return None


def preflight(budget: ContextBudget, text: str, counter: TokenCounter) -> Preflight:
    """The session's budget with ``text`` added as the next user message."""
    pi = pi_text_tokens(text)
    return Preflight(
        text_tokens=TokenPair(pi, counter.count(text)),
        context_tokens=budget.context_tokens,
        after_prompt=budget.context_tokens + pi,
        threshold=budget.threshold,
        window=budget.window,
        compaction_enabled=budget.compaction_enabled,
    )


def preflight_result(
    snapshot: PromptSnapshot, session: SessionFile | None, text: str, built: BuiltPrompt | None = None
) -> protocol.ChatPreflightResult:
    """``pi/chat/preflight``'s answer: the session (``None``: not written yet, the prompt alone) with ``text``
    added, and the next request priced with it. With ``built`` (the text with its attachments, Pi's ``@file``
    blocks first), that whole text is what is counted and priced, and each attachment's tokens are said."""
    counter = snapshot.counter.counter
    infos: list[protocol.ChatAttachmentInfo] = []
    if built is not None:
        text = built.text
        for a in built.attached:
            infos.append(
                protocol.ChatAttachmentInfo(
                    path=a.path,
                    start_line=a.lines[0] if a.lines else None,
                    end_line=a.lines[1] if a.lines else None,
                    tokens=protocol.TokenCounts(pi=a.tokens, estimate=counter.count(a.block)),
                )
            )
        for r in built.refused:
            infos.append(
                protocol.ChatAttachmentInfo(
                    path=r.path,
                    start_line=r.lines[0] if r.lines else None,
                    end_line=r.lines[1] if r.lines else None,
                    refused=r.reason,
                )
            )
    upcoming = None
    if session is not None:
        analysis = analyze(snapshot, session)
        budget = analysis.budget
        upcoming = next_request_with_prompt(snapshot, analysis, text)
    else:
        budget = prompt_budget(snapshot.prompt, config=snapshot.project.budget_config)
    found = preflight(budget, text, counter)
    return protocol.ChatPreflightResult(
        text_tokens=protocol.TokenCounts(pi=found.text_tokens.pi, estimate=found.text_tokens.estimate),
        context_tokens=found.context_tokens,
        after_prompt=found.after_prompt,
        threshold=found.threshold,
        window=found.window,
        crosses_threshold=found.crosses_threshold,
        message=found.message,
        next_request=upcoming,
        attachments=infos,
    )


@dataclass(frozen=True)
class CompactionPreview:
    """What a compaction of the session would summarize and keep (Pi writes the summary)."""

    first_kept_entry_id: str | None
    tokens_before: int
    kept_tokens: int  # Pi's estimate of the messages kept verbatim (the summary comes on top)
    messages_to_summarize: int
    turn_prefix_messages: int
    is_split_turn: bool
    kept_entries: int
    read_files: tuple[str, ...]
    modified_files: tuple[str, ...]
    economics: CompactionEconomics | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "firstKeptEntryId": self.first_kept_entry_id,
            "tokensBefore": self.tokens_before,
            "keptTokens": self.kept_tokens,
            "messagesToSummarize": self.messages_to_summarize,
            "turnPrefixMessages": self.turn_prefix_messages,
            "isSplitTurn": self.is_split_turn,
            "keptEntries": self.kept_entries,
            "readFiles": list(self.read_files),
            "modifiedFiles": list(self.modified_files),
            "economics": self.economics.to_json() if self.economics is not None else None,
        }


def compaction_preview(
    project: Project, session_path: str, instructions: str | None = None, rules: PiRules | None = None
) -> CompactionPreview | str:
    """Pi's preparation for compacting the session at its leaf, or Pi's reason why there is nothing to do.

    With what it will cost: the summary calls Pi will make (their prompts as pi-context words them, with
    the focus ``instructions``, as the release of ``rules`` makes them: the chat's Pi, else the installed
    one) at the session model's prices, and the summary's length estimated.
    """
    session = load_for_append(session_path)
    plan = plan_compaction(session, project.compaction_settings_for)
    if isinstance(plan, str):
        return plan
    prep = plan.preparation
    model = plan.model
    prices = project.prices.prices_for(
        model.provider if model is not None and isinstance(model.provider, str) else None,
        model.model_id if model is not None and isinstance(model.model_id, str) else None,
    )
    summary_tokens, source = expected_summary_tokens(prep.previous_summary)
    economics = compaction_economics(
        [
            call_input_tokens(SUMMARIZATION_SYSTEM_PROMPT, [_user(p)])
            for p in summary_prompts(prep, instructions, rules or project.pi_rules)
        ],
        summary_tokens,
        sum(estimate_tokens(m) for m in [*prep.messages_to_summarize, *prep.turn_prefix_messages]),
        int(prep.tokens_before),
        prices,
        source,
    )
    kept = set(prep.kept_entry_ids)
    kept_tokens = sum(
        estimate_tokens(message)
        for item in prep.projection.entries
        if js_get(item.source_entry, "id") in kept
        for message in item.messages
        if js_get(message, "role") != "system"
    )
    lists = prep.file_lists
    first = prep.first_kept_entry_id
    return CompactionPreview(
        first_kept_entry_id=first if isinstance(first, str) else None,
        tokens_before=int(prep.tokens_before),
        kept_tokens=int(kept_tokens),
        messages_to_summarize=len(prep.messages_to_summarize),
        turn_prefix_messages=len(prep.turn_prefix_messages),
        is_split_turn=prep.is_split_turn,
        kept_entries=len(prep.kept_entry_ids),
        read_files=tuple(lists.read_files),
        modified_files=tuple(lists.modified_files),
        economics=economics,
    )


def _user(prompt: str) -> dict[str, Any]:
    """A summary call's one message, as :meth:`CompletionRequest.single_prompt` builds it."""
    return dict(CompletionRequest.single_prompt("", prompt).messages[0])
