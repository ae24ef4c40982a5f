"""``pi/sessions``, ``pi/sessionTree`` and ``pi/sessionRename``: a folder's sessions, one as a tree, a name.

The list of a folder's sessions is Pi's folder for the cwd (``sessionDir`` setting,
``$PI_CODING_AGENT_SESSION_DIR`` or ``<agentDir>/sessions/--<cwd>--``), newest first. The folder is
then watched (added to the watched roots when it is outside the workspace), so a session Pi starts
there is announced with ``pi/sessionChanged`` (the workspace's followed-session announcements).
"""

from __future__ import annotations

import asyncio
import functools
from typing import TYPE_CHECKING

from lsp_server import protocol
from lsp_server.base.paths import is_path_within
from lsp_server.chat.registry import ChatError
from lsp_server.project.followed_sessions import session_summary_wire, session_tree_result
from lsp_server.session.writer import AppendFailure, append_session_name, sanitize_session_name
from lsp_server.workspace.chat_supervisor import pi_call
from lsp_server.workspace.errors import InvalidParams, RequestFailed
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


async def rename(ws: Workspace, params: protocol.SessionRenameParams) -> protocol.SessionRenameResult:
    """Name a session: through the chat's Pi when one holds it (only Pi writes a session it holds), else the
    ``session_info`` entry Pi would write, appended under the one-writer checks; refused for a keeper's."""
    name = sanitize_session_name(params.name)
    if not name:
        raise InvalidParams(protocol.SESSION_RENAME, "Session name cannot be empty")
    chat = None
    path: str | None = None
    if params.chat_id is not None:
        try:
            chat = ws.chats.get(params.chat_id)
        except ChatError as exc:
            raise RequestFailed(str(exc)) from None
        path = chat.session
    elif params.session is not None:
        path = session_path(ws, protocol.SESSION_RENAME, params.session)
        chat = ws.chats.holder(path)
    else:
        raise InvalidParams(protocol.SESSION_RENAME, "give the session or the chat to name")
    if chat is not None:
        if not chat.alive:
            raise RequestFailed(f"chat {chat.chat_id}'s Pi has exited; start the chat again to name its session")
        await pi_call(functools.partial(chat.set_session_name, name), chat.spec.redactor)
        return protocol.SessionRenameResult(session=chat.session, name=name, via="pi", chat_id=chat.chat_id)
    assert path is not None
    holder = ws.chats.describe_holder(path, ws.chats.keeping.folder(ws.env))
    if holder is not None:
        raise RequestFailed(f"{path} is open in {holder} and only Pi writes it: name it from that chat")
    with ws.chats.writing(path, "a name"):
        written = await asyncio.get_running_loop().run_in_executor(
            None, append_session_name, path, name, ws.sessions.read_limits
        )
    if isinstance(written, AppendFailure):
        raise RequestFailed(written.message)
    changed = protocol.SessionChangedParams(
        session=path, reason="name", entry_id=written.entry.get("id"), size=written.offset + len(written.line)
    )
    ws.client.notify(protocol.SESSION_CHANGED, changed.wire())
    return protocol.SessionRenameResult(session=path, name=name, via="file")
