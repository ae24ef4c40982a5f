"""``pi/contextBudget`` and ``pi/projectedRequest``: the budget domain over a session, or the prompt alone.

Both answers are the budget domain's (:mod:`lsp_server.budget`), serialized as ``pi-context
session --json`` prints them, so the sidebar and the CLI show the same numbers. The workspace
around a session is its header's cwd when that folder exists here (that is where Pi ran), else
the named workspace folder, else the first one; its assembled prompt stands in for sessions that
store none, and its Pi settings give the compaction reserve and the default model.
"""

from __future__ import annotations

import os
from typing import Any

from lsp_server import protocol
from lsp_server.budget.budget import BudgetConfig, prompt_budget
from lsp_server.budget.models import ModelWindows, WindowOverrides
from lsp_server.budget.projected import SessionAnalysis, analyze_session
from lsp_server.budget.wire import budget_result, projected_result
from lsp_server.server.app import PiLanguageServer
from lsp_server.server.features._common import parse_params, resolve_folder
from lsp_server.server.features.prompt_sections import prompt_states
from lsp_server.server.features.sessions import read_session, session_path
from lsp_server.session.jsvalues import UNDEFINED
from lsp_server.session.tail import SessionFile
from lsp_server.workspace.prompt_state import PromptSnapshot


def budget_config(ls: PiLanguageServer, snapshot: PromptSnapshot) -> BudgetConfig:
    """Windows (with pi-context's overrides), Pi's settings for the cwd, the configured estimator."""
    return BudgetConfig(
        windows=ModelWindows.for_agent_dir(
            snapshot.agent_dir, overrides=WindowOverrides.from_settings(ls.settings.budget)
        ),
        pi_settings=snapshot.resources.settings.effective,
        estimator=ls.settings.tokens.estimator,
        family=ls.settings.tokens.model_family,
    )


def _header_cwd(session: SessionFile) -> str | None:
    cwd = (session.header or {}).get("cwd")
    return cwd if isinstance(cwd, str) and cwd and os.path.isdir(cwd) else None


async def _session_workspace(
    ls: PiLanguageServer, method: str, path: str, leaf_id: str | None, workspace_folder: str | None
) -> PromptSnapshot:
    session_cwd = await read_session(ls, method, path, leaf_id, _header_cwd)
    cwd = os.path.normpath(session_cwd) if session_cwd is not None else resolve_folder(ls, method, workspace_folder)
    return await prompt_states(ls).snapshot(cwd)


async def analyze(
    ls: PiLanguageServer, method: str, path: str, leaf_id: str | None, workspace_folder: str | None = None
) -> tuple[SessionAnalysis, PromptSnapshot]:
    snapshot = await _session_workspace(ls, method, path, leaf_id, workspace_folder)
    config = budget_config(ls, snapshot)

    def run(session: SessionFile) -> SessionAnalysis:
        return analyze_session(
            session.entries,
            leaf_id if leaf_id is not None else UNDEFINED,
            by_id=session.index.by_id,
            config=config,
            workspace_prompt=snapshot.prompt,
        )

    analysis = await read_session(ls, method, path, leaf_id, run)
    return analysis, snapshot


def register(server: PiLanguageServer) -> None:
    @server.feature(protocol.CONTEXT_BUDGET)
    async def context_budget(ls: PiLanguageServer, params: Any) -> dict[str, Any]:
        method = protocol.CONTEXT_BUDGET
        request = parse_params(protocol.ContextBudgetParams, params, method)
        await ls.wait_ready()
        if request.session is None:
            cwd = resolve_folder(ls, method, request.workspace_folder)
            snapshot = await prompt_states(ls).snapshot(cwd)
            return budget_result(prompt_budget(snapshot.prompt, config=budget_config(ls, snapshot))).wire()
        path = session_path(ls, method, request.session)
        analysis, _ = await analyze(ls, method, path, request.leaf_id, request.workspace_folder)
        return budget_result(analysis.budget).wire()

    @server.feature(protocol.PROJECTED_REQUEST)
    async def projected_request(ls: PiLanguageServer, params: Any) -> dict[str, Any]:
        method = protocol.PROJECTED_REQUEST
        request = parse_params(protocol.SessionRef, params, method)
        await ls.wait_ready()
        path = session_path(ls, method, request.session)
        analysis, snapshot = await analyze(ls, method, path, request.leaf_id)
        return projected_result(
            analysis.request,
            session=path,
            cwd=snapshot.cwd,
            agent_dir=snapshot.agent_dir,
            project_trusted=snapshot.trust.trusted,
        ).wire()
