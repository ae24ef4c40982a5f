"""A session's costs in its project: the turn ledger as both front ends show it.

``pi-context session FILE --costs --json`` and the server's ``pi/turnLedger`` are this one
computation: the session's branch at a leaf, the project's prices (its agent dir's models.json,
then Pi's catalog), and the budget's window and threshold for the chart.
"""

from __future__ import annotations

from lsp_server import protocol
from lsp_server.budget.projected import SessionAnalysis
from lsp_server.cost.ledger import TurnLedger, build_ledger
from lsp_server.js.values import UNDEFINED
from lsp_server.project.analysis import analyze
from lsp_server.project.prompt_state import PromptSnapshot
from lsp_server.session.entries import Entry
from lsp_server.session.tail import SessionFile
from lsp_server.session.tree import build_path


def session_ledger(
    snapshot: PromptSnapshot, session: SessionFile, leaf_id: str | None = None, *, branch: list[Entry] | None = None
) -> TurnLedger:
    """The ledger of the branch ending at ``leaf_id`` (default: Pi's leaf); ``branch`` if already built."""
    if branch is None:
        branch = build_path(session.entries, leaf_id if leaf_id is not None else UNDEFINED, session.index.by_id)
    index = session.index
    return build_ledger(
        branch,
        snapshot.project.prices.prices_for,
        all_entries=session.entries,
        children_count=lambda entry_id: len(index.get_children(entry_id)),
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
    return ledger_result(ledger, session.path, analysis)
