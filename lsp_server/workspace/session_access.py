"""How a request reaches its folder and its session file: the params checked, the file read, its project chosen.

Session files are read through the workspace's :class:`~lsp_server.project.followed_sessions.SessionStore`
(``ws.sessions``): each request refreshes the file it names, which reads only what an agent appended
since the last request. The project of a session follows the one rule of
:func:`lsp_server.project.project.session_folder`: the session header's cwd when that folder exists
here (that is where Pi ran), else the named workspace folder, else the first one. A session a live
chat holds is counted with what that chat's Pi read (:func:`live_lens`).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from lsp_server.base.fsread import not_regular_message
from lsp_server.project.project import header_cwd, session_folder
from lsp_server.session.jsonl import NOT_A_SESSION
from lsp_server.workspace.errors import InvalidParams

if TYPE_CHECKING:
    from lsp_server.project.prompt_state import PromptSnapshot
    from lsp_server.session.tail import SessionFile
    from lsp_server.workspace.workspace import Workspace

T = TypeVar("T")


def resolve_folder(ws: Workspace, method: str, workspace_folder: str | None, cwd: str | None = None) -> str:
    """The cwd a request is about: ``cwd``, else the named folder, else the first folder."""
    if cwd is not None:
        if not os.path.isabs(cwd):
            raise InvalidParams(method, f"cwd must be an absolute path (got {cwd!r})")
        return os.path.normpath(cwd)
    if workspace_folder is not None:
        path = ws.client.path_of(workspace_folder)
        if path is None:
            raise InvalidParams(method, f"workspaceFolder must be a file URI (got {workspace_folder!r})")
        if path not in ws.roots:
            raise InvalidParams(method, f"{workspace_folder} is not a workspace folder of this server")
        return path
    if not ws.roots:
        raise InvalidParams(method, "no workspace folder is open: pass cwd")
    return ws.roots[0]


def session_path(ws: Workspace, method: str, value: str) -> str:
    """A session param as an absolute path (a file URI is accepted); InvalidParams if no such file."""
    path = ws.client.path_of(value) if value.startswith("file:") else value
    if not path or not os.path.isabs(path):
        raise InvalidParams(method, f"session must be an absolute path or a file URI (got {value!r})")
    path = os.path.normpath(path)
    if not os.path.isfile(path):
        try:
            mode = os.stat(path).st_mode
        except OSError:
            raise InvalidParams(method, f"no such session file: {path}") from None
        raise InvalidParams(method, not_regular_message(path, mode))
    return path


async def read_session(ws: Workspace, method: str, path: str, leaf_id: str | None, fn: Callable[[SessionFile], T]) -> T:
    """Run ``fn`` on the refreshed session in a worker thread; InvalidParams if it is not a session."""

    def work() -> T:
        with ws.sessions.use(path) as (session, _):
            if not session.is_session:
                raise InvalidParams(method, session.error or NOT_A_SESSION.format(path=path))
            if leaf_id is not None and leaf_id not in session.index.by_id:
                raise InvalidParams(method, f"no entry with id {leaf_id!r} in {path}")
            return fn(session)

    return await asyncio.get_running_loop().run_in_executor(None, work)


async def in_session_project(
    ws: Workspace,
    method: str,
    path: str,
    leaf_id: str | None,
    workspace_folder: str | None,
    fn: Callable[[PromptSnapshot, SessionFile], T],
) -> tuple[T, PromptSnapshot]:
    """``fn`` on the session at ``path`` with the prompt of the project it belongs to, and that prompt.

    The folder follows :func:`lsp_server.project.project.session_folder` (the header's cwd when it
    exists here, else ``workspace_folder``, else the first folder), as the CLI's does. A session a live
    chat holds, at its leaf, is counted with what that chat's Pi read (:func:`live_lens`): the request
    and the budget are those of the request that Pi sends next.
    """
    snapshot = live_lens(ws, path) if leaf_id is None else None
    if snapshot is None:
        session_cwd = await read_session(ws, method, path, leaf_id, lambda session: header_cwd(session.header))
        folder = session_folder(session_cwd, fallback=lambda: resolve_folder(ws, method, workspace_folder))
        snapshot = await ws.projects.snapshot(folder.cwd)
    chosen = snapshot
    return await read_session(ws, method, path, leaf_id, lambda session: fn(chosen, session)), chosen


def live_lens(ws: Workspace, path: str) -> PromptSnapshot | None:
    """What the live chat holding ``path`` read (its settings, trust and prompt), or None when no chat holds it.

    Pi keeps what it read at start until it reads its files again (docs/chat.md, "What Pi takes up, and
    when"), so the numbers of its session come from that, not from the files now (``lsp_server/chat/live.py``).
    """
    chat = ws.chats.holder(path) if len(ws.chats) else None
    if chat is None or chat.held is None:
        return None
    return chat.held.lens(ws.projects.inputs_for(chat.spec.cwd))
