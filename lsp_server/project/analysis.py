"""A session analysed in its project: the request Pi would send next and the budget, as both front ends show them.

``pi-context session --json`` and the server's ``pi/projectedRequest`` / ``pi/contextBudget`` are
the same computation: the project the session belongs to (:func:`~.project.session_folder`), its
prompt (standing in for sessions that store none), its budget configuration, and the session at a
leaf. :func:`analyze` is that computation and :func:`request_result` / :func:`budget_wire` its
answers on the wire, so the two can only differ if their inputs do.
"""

from __future__ import annotations

from typing import Any

from lsp_server import protocol
from lsp_server.budget.budget import prompt_budget
from lsp_server.budget.projected import SessionAnalysis, analyze_session
from lsp_server.budget.wire import budget_result, projected_result
from lsp_server.project.prompt_state import PromptSnapshot
from lsp_server.session.tail import SessionFile


def analyze(snapshot: PromptSnapshot, session: SessionFile, leaf_id: str | None = None) -> SessionAnalysis:
    """The session at ``leaf_id`` (default: Pi's leaf) counted with the project's settings and prompt.

    Pi's leaf is the last entry, or nothing when Pi's last entry is a non-object line
    (:attr:`SessionFile.default_leaf`): the request then carries none of the session's messages, as Pi's would.
    """
    return analyze_session(
        session.entries,
        leaf_id if leaf_id is not None else session.default_leaf,
        by_id=session.index.by_id,
        config=snapshot.project.budget_config,
        workspace_prompt=snapshot.prompt,
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
