"""``pi/contextBudget`` and ``pi/projectedRequest``: a session analysed in its project, or the prompt alone.

Both answers come from :mod:`lsp_server.project.analysis`, the computation ``pi-context session
--json`` prints, so the sidebar and the CLI show the same numbers. The project around a session
follows the one rule of :func:`lsp_server.project.project.session_folder` (:mod:`.session_access`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lsp_server import protocol
from lsp_server.project.analysis import analyze, budget_wire, prompt_budget_wire, request_result
from lsp_server.workspace.session_access import in_session_project, resolve_folder, session_path

if TYPE_CHECKING:
    from lsp_server.budget.projected import SessionAnalysis
    from lsp_server.project.prompt_state import PromptSnapshot
    from lsp_server.session.tail import SessionFile
    from lsp_server.workspace.workspace import Workspace


async def analyze_in_project(
    ws: Workspace, method: str, path: str, leaf_id: str | None, workspace_folder: str | None = None
) -> tuple[SessionAnalysis, PromptSnapshot]:
    """The session at ``path`` analysed in the project it belongs to."""

    def run(snapshot: PromptSnapshot, session: SessionFile) -> SessionAnalysis:
        return analyze(snapshot, session, leaf_id)

    return await in_session_project(ws, method, path, leaf_id, workspace_folder, run)


async def context_budget(ws: Workspace, params: protocol.ContextBudgetParams) -> dict[str, Any]:
    method = protocol.CONTEXT_BUDGET
    await ws.wait_ready()
    if params.session is None:
        snapshot = await ws.projects.snapshot(resolve_folder(ws, method, params.workspace_folder))
        return prompt_budget_wire(snapshot)
    path = session_path(ws, method, params.session)
    analysis, _ = await analyze_in_project(ws, method, path, params.leaf_id, params.workspace_folder)
    return budget_wire(analysis)


async def projected_request(ws: Workspace, params: protocol.SessionRef) -> protocol.ProjectedRequestResult:
    method = protocol.PROJECTED_REQUEST
    await ws.wait_ready()
    path = session_path(ws, method, params.session)
    analysis, snapshot = await analyze_in_project(ws, method, path, params.leaf_id)
    return request_result(snapshot, analysis, path)
