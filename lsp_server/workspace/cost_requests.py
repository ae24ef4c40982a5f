"""``pi/turnLedger`` and ``pi/usage``: what a session's requests cost, and usage across every session.

The turn ledger is :func:`lsp_server.project.costs.turn_ledger` in the project the session belongs to
(the same folder rule as ``pi/contextBudget``), as ``pi-context session --costs --json`` shows it; a
session a live chat holds carries that chat's state (``liveChat``). Usage is
:func:`lsp_server.usage.collect.collect` through the workspace's
:class:`~lsp_server.project.usage.UsageStore` over the asked folders (default: the ``sessions/`` folder
of every workspace folder's agent dir), priced with the project of ``workspaceFolder``, as
``pi-context usage --json`` shows it; it runs in a worker thread, and later runs read only what Pi
appended.
"""

from __future__ import annotations

import asyncio
import os
from typing import TYPE_CHECKING

from lsp_server import protocol
from lsp_server.project.analysis import analyze
from lsp_server.project.costs import prompt_update, turn_ledger
from lsp_server.project.usage import default_roots, usage_query, usage_result
from lsp_server.workspace.chat_supervisor import drift_wire
from lsp_server.workspace.errors import InvalidParams
from lsp_server.workspace.session_access import in_session_project, resolve_folder, session_path

if TYPE_CHECKING:
    from lsp_server.project.prompt_state import PromptSnapshot
    from lsp_server.session.tail import SessionFile
    from lsp_server.workspace.workspace import Workspace


async def ledger(ws: Workspace, params: protocol.TurnLedgerParams) -> protocol.TurnLedgerResult:
    method = protocol.TURN_LEDGER
    await ws.wait_ready()
    path = session_path(ws, method, params.session)
    chat = ws.chats.holder(path) if params.leaf_id is None and len(ws.chats) else None
    held = chat.held if chat is not None else None
    drift = chat.drift if chat is not None else None
    # What Pi would record after the drift's action: the prompt the files make now, as that Pi would read them.
    disk = await ws.projects.disk_snapshot(chat.spec.cwd) if chat is not None and drift and drift.sections else None

    def run(snapshot: PromptSnapshot, session: SessionFile) -> protocol.TurnLedgerResult:
        analysis = analyze(snapshot, session, params.leaf_id)
        result = turn_ledger(snapshot, session, params.leaf_id, analysis)
        if chat is None or held is None:
            return result
        live = protocol.LiveChatInfo(
            chat_id=chat.chat_id,
            held_since=held.read_at,
            drift=drift_wire(drift),
            reload=prompt_update(disk, analysis) if disk is not None else None,
        )
        return result.model_copy(update={"live_chat": live})

    result, _ = await in_session_project(ws, method, path, params.leaf_id, params.workspace_folder, run)
    return result


async def usage(ws: Workspace, params: protocol.UsageParams) -> protocol.UsageResult:
    method = protocol.USAGE
    await ws.wait_ready()
    folders = ws.roots or [os.getcwd()]
    roots = _roots(ws, method, params) if params.folders else default_roots([ws.projects.open(f) for f in folders])
    query = usage_query(params, roots)
    if isinstance(query, str):
        raise InvalidParams(method, query)
    cwd = resolve_folder(ws, method, params.workspace_folder) if ws.roots else os.getcwd()
    prices_for = ws.projects.open(cwd).prices.prices_for
    limits = ws.session_limits()
    report = await asyncio.get_running_loop().run_in_executor(None, ws.usage.report, query, prices_for, limits)
    return usage_result(report, roots)


def _roots(ws: Workspace, method: str, params: protocol.UsageParams) -> tuple[str, ...]:
    roots: list[str] = []
    for folder in params.folders or ():
        path = ws.client.path_of(folder) if folder.startswith("file:") else folder
        if path is None or not os.path.isabs(path):
            raise InvalidParams(method, f"folders: {folder!r} is not an absolute path or a file URI")
        roots.append(os.path.normpath(path))
    return tuple(roots)
