"""A session analysed in its project: the request Pi would send next and the budget, as both front ends show them.

``pi-context session --json`` and the server's ``pi/projectedRequest`` / ``pi/contextBudget`` are
the same computation: the project the session belongs to (:func:`~.project.session_folder`), its
prompt (standing in for sessions that store none), its budget configuration, and the session at a
leaf. :func:`analyze` is that computation and :func:`request_result` / :func:`budget_wire` its
answers on the wire, so the two can only differ if their inputs do.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Final

from lsp_server import protocol
from lsp_server.budget.budget import prompt_budget
from lsp_server.budget.projected import SessionAnalysis, analyze_projection, analyze_session
from lsp_server.cost.save_cost import SessionPromptUpdate, WorkspaceSection, session_prompt_update
from lsp_server.js.values import js_get
from lsp_server.project.budget_answers import budget_result, projected_result
from lsp_server.project.prompt_state import PromptSnapshot
from lsp_server.session.projection import project_path
from lsp_server.session.tail import SessionFile

PENDING_PROMPT_ENTRY: Final = "(prompt Pi records next)"  # the id of the system message a live Pi records (not written)


def analyze(snapshot: PromptSnapshot, session: SessionFile, leaf_id: str | None = None) -> SessionAnalysis:
    """The session at ``leaf_id`` (default: Pi's leaf) counted with the project's settings and prompt.

    Pi's leaf is the last entry, or nothing when Pi's last entry is a non-object line
    (:attr:`SessionFile.default_leaf`): the request then carries none of the session's messages, as Pi's would.

    When ``snapshot`` is the prompt a running Pi holds (:attr:`PromptSnapshot.pi_holds`, a live chat) and the
    session recorded other sections (Pi read the files again after the session was written: a reload), Pi
    records its patch before its next request; the projected request (and its price) at Pi's leaf includes
    that system message, so it is the request Pi sends next. The budget stays Pi's count now (its
    ``get_session_stats``), which is what Pi compares with the threshold before it records the patch.
    """
    analysis = analyze_session(
        session.entries,
        leaf_id if leaf_id is not None else session.default_leaf,
        by_id=session.index.by_id,
        config=snapshot.project.budget_config,
        workspace_prompt=snapshot.prompt,
    )
    if not snapshot.pi_holds or leaf_id is not None:
        return analysis
    update = pending_prompt_update(snapshot, analysis)
    if update is None or update.message is None:
        return analysis
    leaf = js_get(analysis.branch[-1], "id") if analysis.branch else None
    entry = {"type": "message", "id": PENDING_PROMPT_ENTRY, "parentId": leaf, "message": update.message}
    branch = [*analysis.branch, entry]
    pending = analyze_projection(
        project_path(branch), branch, config=snapshot.project.budget_config, workspace_prompt=snapshot.prompt
    )
    request = replace(pending.request, leaf_id=leaf if isinstance(leaf, str) else None)
    return replace(analysis, projection=pending.projection, request=request)


def pending_prompt_update(snapshot: PromptSnapshot, analysis: SessionAnalysis) -> SessionPromptUpdate | None:
    """The system message Pi records before the session's next request when it holds ``snapshot``'s prompt.

    ``None`` when the session recorded no sections (Pi before 1.6, a forced prompt); a patch of ``{}`` when
    the session already has that prompt.
    """
    model = analysis.request.model
    counter = snapshot.project.budget_config.counter_for(model.model_id).counter
    prices = snapshot.project.prices.prices_for(model.provider, model.model_id)
    workspace = [WorkspaceSection(s.name, s.text, s.origin == "default") for s in snapshot.prompt.sections]
    return session_prompt_update(
        analysis.projection.messages,
        workspace,
        mid_conversation_system=prices.mid_conversation_system,
        count=counter.count,
    )


def request_result(
    snapshot: PromptSnapshot, analysis: SessionAnalysis, session: str
) -> protocol.ProjectedRequestResult:
    """``pi/projectedRequest``'s answer (also the ``request`` of ``pi-context session --json``)."""
    return projected_result(
        analysis.request,
        session=session,
        cwd=snapshot.cwd,
        agent_dir=snapshot.agent_dir,
        project_trusted=snapshot.trust.trusted,
    )


def budget_wire(analysis: SessionAnalysis) -> dict[str, Any]:
    """``pi/contextBudget``'s answer for a session (also the ``budget`` of ``pi-context session --json``)."""
    return budget_result(analysis.budget).wire()


def prompt_budget_wire(snapshot: PromptSnapshot) -> dict[str, Any]:
    """``pi/contextBudget``'s answer with no session: the system prompt alone, the first request's start."""
    return budget_result(prompt_budget(snapshot.prompt, config=snapshot.project.budget_config)).wire()
