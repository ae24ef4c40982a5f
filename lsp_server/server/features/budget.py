"""``pi/contextBudget`` and ``pi/projectedRequest``: a session analysed in its project, or the prompt alone.

Both answers come from :mod:`lsp_server.project.analysis`, the computation ``pi-context session
--json`` prints, so the sidebar and the CLI show the same numbers. The project around a session
follows the one rule of :func:`lsp_server.project.project.session_folder`: the session header's cwd
when that folder exists here (that is where Pi ran), else the named workspace folder, else the
first one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lsp_server import protocol_names as names
from lsp_server.server.app import PiLanguageServer
from lsp_server.server.features._common import parse_params, resolve_folder
from lsp_server.server.features.sessions import in_session_project, session_path
from lsp_server.server.lazy import lazy_module

if TYPE_CHECKING:
    from lsp_server.budget.projected import SessionAnalysis
    from lsp_server.project.prompt_state import PromptSnapshot
    from lsp_server.session.tail import SessionFile

if TYPE_CHECKING:
    from lsp_server import protocol
else:
    protocol = lazy_module("lsp_server.protocol")  # pydantic on first use, not at start-up (server/lazy.py)


async def analyze_in_project(
    ls: PiLanguageServer, method: str, path: str, leaf_id: str | None, workspace_folder: str | None = None
) -> tuple[SessionAnalysis, PromptSnapshot]:
    """The session at ``path`` analysed in the project it belongs to."""
    from lsp_server.project.analysis import analyze

    def run(snapshot: PromptSnapshot, session: SessionFile) -> SessionAnalysis:
        return analyze(snapshot, session, leaf_id)

    return await in_session_project(ls, method, path, leaf_id, workspace_folder, run)


def register(server: PiLanguageServer) -> None:
    @server.feature(names.CONTEXT_BUDGET)
    async def context_budget(ls: PiLanguageServer, params: Any) -> dict[str, Any]:
        from lsp_server.project.analysis import budget_wire, prompt_budget_wire

        method = protocol.CONTEXT_BUDGET
        request = parse_params(protocol.ContextBudgetParams, params, method)
        await ls.wait_ready()
        if request.session is None:
            snapshot = await ls.projects.snapshot(resolve_folder(ls, method, request.workspace_folder))
            return prompt_budget_wire(snapshot)
        path = session_path(ls, method, request.session)
        analysis, _ = await analyze_in_project(ls, method, path, request.leaf_id, request.workspace_folder)
        return budget_wire(analysis)

    @server.feature(names.PROJECTED_REQUEST)
    async def projected_request(ls: PiLanguageServer, params: Any) -> dict[str, Any]:
        from lsp_server.project.analysis import request_result

        method = protocol.PROJECTED_REQUEST
        request = parse_params(protocol.SessionRef, params, method)
        await ls.wait_ready()
        path = session_path(ls, method, request.session)
        analysis, snapshot = await analyze_in_project(ls, method, path, request.leaf_id)
        return request_result(snapshot, analysis, path).wire()
