"""``pi/sessions`` and ``pi/sessionTree``, the followed session files, and ``pi/sessionChanged``.

Session files are read through the server's :class:`SessionStore` (``ls.sessions``): each request refreshes the
file it names, which reads only what an agent appended since the last request. The list of a
folder's sessions is Pi's folder for the cwd (``sessionDir`` setting, ``$PI_CODING_AGENT_SESSION_DIR``
or ``<agentDir>/sessions/--<cwd>--``), newest first. When the watcher reports a change to a
session the client has asked about, the server sends ``pi/sessionChanged`` so the sidebar can
ask again; so it does for a session that appears, grows or goes in a folder the client listed
(Pi started a new session), which the watcher covers even when the folder is outside the
workspace (it is added to the watched roots once listed).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from lsp_server import protocol_names as names
from lsp_server.base.fsread import not_regular_message
from lsp_server.base.paths import is_path_within
from lsp_server.server.app import PiLanguageServer
from lsp_server.server.errors import log_failure
from lsp_server.server.features._common import invalid, parse_params, resolve_folder
from lsp_server.server.lazy import lazy_module

if TYPE_CHECKING:
    from lsp_server.project.prompt_state import PromptSnapshot
    from lsp_server.session.tail import SessionFile

T = TypeVar("T")

DEBUG_SESSIONS = "pi.debug.sessions"

if TYPE_CHECKING:
    from lsp_server import protocol
else:
    protocol = lazy_module("lsp_server.protocol")  # pydantic on first use, not at start-up (server/lazy.py)


def session_path(ls: PiLanguageServer, method: str, value: str) -> str:
    """A session param as an absolute path (a file URI is accepted); InvalidParams if no such file."""
    path = ls.uri_to_path(value) if value.startswith("file:") else value
    if not path or not os.path.isabs(path):
        raise invalid(method, f"session must be an absolute path or a file URI (got {value!r})")
    path = os.path.normpath(path)
    if not os.path.isfile(path):
        try:
            mode = os.stat(path).st_mode
        except OSError:
            raise invalid(method, f"no such session file: {path}") from None
        raise invalid(method, not_regular_message(path, mode))
    return path


async def read_session(
    ls: PiLanguageServer, method: str, path: str, leaf_id: str | None, fn: Callable[[SessionFile], T]
) -> T:
    """Run ``fn`` on the refreshed session in a worker thread; InvalidParams if it is not a session."""

    def work() -> T:
        from lsp_server.session.jsonl import NOT_A_SESSION

        with ls.sessions.use(path) as (session, _):
            if not session.is_session:
                raise invalid(method, session.error or NOT_A_SESSION.format(path=path))
            if leaf_id is not None and leaf_id not in session.index.by_id:
                raise invalid(method, f"no entry with id {leaf_id!r} in {path}")
            return fn(session)

    return await asyncio.get_running_loop().run_in_executor(None, work)


async def in_session_project(
    ls: PiLanguageServer,
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
    from lsp_server.project.project import header_cwd, session_folder

    snapshot = live_lens(ls, path) if leaf_id is None else None
    if snapshot is None:
        session_cwd = await read_session(ls, method, path, leaf_id, lambda session: header_cwd(session.header))
        folder = session_folder(session_cwd, fallback=lambda: resolve_folder(ls, method, workspace_folder))
        snapshot = await ls.projects.snapshot(folder.cwd)
    chosen = snapshot
    return await read_session(ls, method, path, leaf_id, lambda session: fn(chosen, session)), chosen


def live_lens(ls: PiLanguageServer, path: str) -> PromptSnapshot | None:
    """What the live chat holding ``path`` read (its settings, trust and prompt), or None when no chat holds it.

    Pi keeps what it read at start until it reads its files again (docs/chat.md, "What Pi takes up, and
    when"), so the numbers of its session come from that, not from the files now (``lsp_server/chat/live.py``).
    """
    chat = ls.chats.holder(path) if len(ls.chats) else None
    if chat is None or chat.held is None:
        return None
    return chat.held.lens(ls.projects.inputs_for(chat.spec.cwd))


def notify_session_changed(ls: PiLanguageServer, params: protocol.SessionChangedParams) -> None:
    ls.protocol.notify(protocol.SESSION_CHANGED, params.wire())


def register(server: PiLanguageServer) -> None:
    @server.feature(names.SESSIONS)
    async def sessions(ls: PiLanguageServer, params: Any) -> dict[str, Any]:
        from lsp_server.project.followed_sessions import session_summary_wire

        request = parse_params(protocol.SessionsParams, params, protocol.SESSIONS)
        await ls.wait_ready()
        cwd = resolve_folder(ls, protocol.SESSIONS, request.workspace_folder, request.cwd)
        choice = ls.projects.open(cwd).session_dir()
        watched = ls.watch_roots()
        found = await asyncio.get_running_loop().run_in_executor(
            None, ls.session_lists.list, choice.path, cwd if choice.filter_by_cwd else None
        )
        if ls.watcher is not None and not any(is_path_within(root, choice.path) for root in watched):
            ls.start_watcher()  # watch_roots() now has the folder: new sessions there are seen
        await ls.watcher_settled()  # answer once the folder is watched: a session Pi starts next is announced
        result = protocol.SessionsResult(sessions_dir=choice.path, sessions=[session_summary_wire(s) for s in found])
        return result.wire()

    @server.feature(names.SESSION_TREE)
    async def session_tree(ls: PiLanguageServer, params: Any) -> dict[str, Any]:
        from lsp_server.project.followed_sessions import session_tree_result

        request = parse_params(protocol.SessionRef, params, protocol.SESSION_TREE)
        path = session_path(ls, protocol.SESSION_TREE, request.session)
        result = await read_session(
            ls, protocol.SESSION_TREE, path, request.leaf_id, lambda s: session_tree_result(s, request.leaf_id)
        )
        return result.wire()

    def listener(reason: str, paths: list[str]) -> None:
        if reason != "disk":
            return
        store, listed = server.sessions, server.session_lists.listed_dirs()
        for path in paths:
            if path.endswith(".jsonl") and (store.cached(path) or os.path.dirname(path) in listed):
                try:
                    size = os.path.getsize(path) if os.path.exists(path) else None
                    notify_session_changed(
                        server, protocol.SessionChangedParams(session=path, reason="disk", size=size)
                    )
                except Exception as exc:
                    log_failure(server, "pi/sessionChanged", exc)

    server.listeners.append(listener)

    if server.debug:

        @server.command(DEBUG_SESSIONS)
        def debug_sessions(ls: PiLanguageServer, *args: Any) -> dict[str, str]:
            """How each followed session was last read: loaded, appended, unchanged, reloaded, ..."""
            store = ls.sessions
            return {path: result.kind for path, result in store.last_refresh.items() if store.cached(path)}
