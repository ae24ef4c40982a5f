"""``pi/sessions`` and ``pi/sessionTree``: a folder's sessions, and one session as a tree.

The list of a folder's sessions is Pi's folder for the cwd (``sessionDir`` setting,
``$PI_CODING_AGENT_SESSION_DIR`` or ``<agentDir>/sessions/--<cwd>--``), newest first. The folder is
then watched (added to the watched roots when it is outside the workspace), so a session Pi starts
there is announced with ``pi/sessionChanged`` (the workspace's followed-session announcements).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from lsp_server import protocol
from lsp_server.base.paths import is_path_within
from lsp_server.project.followed_sessions import session_summary_wire, session_tree_result
from lsp_server.workspace.session_access import read_session, resolve_folder, session_path

if TYPE_CHECKING:
    from lsp_server.workspace.workspace import Workspace


async def sessions(ws: Workspace, params: protocol.SessionsParams) -> protocol.SessionsResult:
    await ws.wait_ready()
    cwd = resolve_folder(ws, protocol.SESSIONS, params.workspace_folder, params.cwd)
    choice = ws.projects.open(cwd).session_dir()
    watched = ws.watch_roots()
    found = await asyncio.get_running_loop().run_in_executor(
        None, ws.session_lists.list, choice.path, cwd if choice.filter_by_cwd else None
    )
    if ws.watcher is not None and not any(is_path_within(root, choice.path) for root in watched):
        ws.start_watcher()  # watch_roots() now has the folder: new sessions there are seen
    await ws.watcher_settled()  # answer once the folder is watched: a session Pi starts next is announced
    return protocol.SessionsResult(sessions_dir=choice.path, sessions=[session_summary_wire(s) for s in found])


async def session_tree(ws: Workspace, params: protocol.SessionRef) -> protocol.SessionTreeResult:
    path = session_path(ws, protocol.SESSION_TREE, params.session)
    return await read_session(
        ws, protocol.SESSION_TREE, path, params.leaf_id, lambda s: session_tree_result(s, params.leaf_id)
    )
