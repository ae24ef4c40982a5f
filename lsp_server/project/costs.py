"""A session's costs in its project: the turn ledger as both front ends show it.

``pi-context session FILE --costs --json`` and the server's ``pi/turnLedger`` are this one
computation: the session's branch at a leaf, the project's prices (its agent dir's models.json,
then Pi's catalog), and the budget's window and threshold for the chart.
"""

from __future__ import annotations

from lsp_server import protocol
from lsp_server.budget.projected import SessionAnalysis
from lsp_server.cost.ledger import TurnLedger, build_ledger
from lsp_server.cost.next_request import BREAKPOINT_APIS, NextRequestCost, price_next_request, with_prompt
from lsp_server.cost.prices import default_retention
from lsp_server.js.values import js_get
from lsp_server.project.analysis import analyze, pending_prompt_update
from lsp_server.project.prompt_answers import cache_impact_wire, token_counts
from lsp_server.project.prompt_state import PromptSnapshot
from lsp_server.session.projection import project_path
from lsp_server.session.raw import Entry
from lsp_server.session.tail import SessionFile
from lsp_server.session.tree import build_path
from lsp_server.tokens.pair import TokenPair
from lsp_server.tokens.pi import pi_text_tokens


def session_ledger(
    snapshot: PromptSnapshot, session: SessionFile, leaf_id: str | None = None, *, branch: list[Entry] | None = None
) -> TurnLedger:
    """The ledger of the branch ending at ``leaf_id`` (default: Pi's leaf); ``branch`` if already built."""
    if branch is None:
        leaf = leaf_id if leaf_id is not None else session.default_leaf
        branch = build_path(session.entries, leaf, session.index.by_id)
    children = session.index.children  # read, not copied: one lookup per entry of the branch

    def children_count(entry_id: object) -> int:
        return len(children.get(entry_id, ())) if isinstance(entry_id, str) else 0

    return build_ledger(
        branch, snapshot.project.prices.prices_for, all_entries=session.entries, children_count=children_count
    )


def ledger_result(
    ledger: TurnLedger, session: str, analysis: SessionAnalysis | None = None
) -> protocol.TurnLedgerResult:
    """``pi/turnLedger``'s answer (also ``pi-context session --costs --json``).

    ``analysis`` (the budget at the same leaf) adds the window and the compaction threshold.
    """
    data = {"session": session, **ledger.to_json()}
    if analysis is not None:
        data["contextWindow"] = analysis.budget.window
        data["threshold"] = analysis.budget.threshold
    return protocol.TurnLedgerResult.model_validate(data)


def turn_ledger(
    snapshot: PromptSnapshot, session: SessionFile, leaf_id: str | None = None, analysis: SessionAnalysis | None = None
) -> protocol.TurnLedgerResult:
    """The whole answer: the session analysed at ``leaf_id`` (unless given) and its ledger."""
    if analysis is None:
        analysis = analyze(snapshot, session, leaf_id)
    ledger = session_ledger(snapshot, session, leaf_id, branch=analysis.branch)
    result = ledger_result(ledger, session.path, analysis)
    upcoming = next_request_cost(snapshot, analysis)
    return result.model_copy(
        update={
            "next_request": protocol.NextRequestCostInfo.model_validate(upcoming.to_json()),
            "prompt_update": prompt_update(snapshot, analysis),
        }
    )


WORKSPACE_PROMPT_ENTRY = "(workspace prompt)"  # the id of the system message Pi would record (not written)


def prompt_update(snapshot: PromptSnapshot, analysis: SessionAnalysis) -> protocol.SessionPromptUpdateInfo | None:
    """What Pi records and sends when the session next loads the workspace's files (see :mod:`~.cost.save_cost`).

    With the prompt a live chat's Pi holds (:attr:`PromptSnapshot.pi_holds`), the analysis already carries
    what Pi records next, so the patch is empty: the session's next request is ``nextRequest``.

    The next request is priced with Pi's patch recorded at the leaf, exactly as ``nextRequest`` is priced
    without it, so the two answers side by side say what the change costs this session.
    """
    model = analysis.request.model
    prices_for = snapshot.project.prices.prices_for
    counter = snapshot.project.budget_config.counter_for(model.model_id).counter
    update = pending_prompt_update(snapshot, analysis)
    if update is None:
        return None
    upcoming = None
    api: str | None = None
    if update.message is not None:
        leaf = js_get(analysis.branch[-1], "id") if analysis.branch else None
        entry = {"type": "message", "id": WORKSPACE_PROMPT_ENTRY, "parentId": leaf, "message": update.message}
        with_patch = project_path([*analysis.branch, entry])
        priced = price_next_request(
            analysis.branch, with_patch, prices_for, counter.count, retention=default_retention(snapshot.project.env)
        )
        upcoming = protocol.NextRequestCostInfo.model_validate(priced.to_json())
        api = priced.api
    impact = update.impact
    readable = impact.first_difference is None or api not in BREAKPOINT_APIS
    return protocol.SessionPromptUpdateInfo(
        mode=update.mode,
        patch=dict(update.patch),
        rendered_update=update.rendered_update,
        cache=cache_impact_wire(update.impact),
        next_request=upcoming,
        new_session_cache_read=token_counts(impact.kept if readable else TokenPair(0, 0)),
    )


def next_request_cost(snapshot: PromptSnapshot, analysis: SessionAnalysis) -> NextRequestCost:
    """The request Pi would send next from this leaf, priced against the one before (see :mod:`~.cost.next_request`)."""
    request = analysis.request
    counter = snapshot.project.budget_config.counter_for(request.model.model_id).counter
    workspace = request.system.rendered if request.system.origin == "workspace" else None
    return price_next_request(
        analysis.branch,
        analysis.projection,
        snapshot.project.prices.prices_for,
        counter.count,
        retention=default_retention(snapshot.project.env),
        workspace_system=workspace,
    )


def next_request_with_prompt(
    snapshot: PromptSnapshot, analysis: SessionAnalysis, text: str
) -> protocol.NextRequestCostInfo:
    """The next request if ``text`` is sent now (the chat's preflight): the prompt is new input."""
    upcoming = next_request_cost(snapshot, analysis)
    model = analysis.request.model
    prices = snapshot.project.prices.prices_for(model.provider, model.model_id)
    counted = with_prompt(upcoming, pi_text_tokens(text), prices)
    return protocol.NextRequestCostInfo.model_validate(counted.to_json())
