"""``pi/chat/*``: chats with Pi itself, one Pi process in RPC mode per chat, owned by the server.

The server starts Pi in the workspace folder (``pi/chat/start``), forwards the client's commands as
Pi's RPC commands and every record Pi emits as ``pi/chat/event``, unchanged. It never writes a
session a chat holds: Pi does (``pi.compact`` / ``pi.branchSummary`` refuse such a session, the
chat's compaction is Pi's ``compact``), and a second chat on the same session is refused. When Pi
appends to its session (a message ended, a compaction ended, the run settled) the client gets
``pi/sessionChanged`` with reason ``chat``, so the budget, the projected request and the tree,
which read the file, follow the chat. When Pi exits the client gets ``pi/chat/exited`` (with the
exit code and Pi's last stderr lines); the server's own observations (the session file deleted
under the chat, the workspace folder removed) come as ``pi/chat/notice``.

Pi keeps its own credentials: the process gets the server's environment (plus ``PI_CODING_AGENT_DIR``
when pi-context's ``agentDir`` setting names one) and pi-context reads no key for it.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from pygls.exceptions import JsonRpcException

from lsp_server import protocol_names as names
from lsp_server.context.names import AGENT_DIR_ENV
from lsp_server.server.app import PiLanguageServer
from lsp_server.server.errors import log_failure
from lsp_server.server.features._common import REQUEST_FAILED, parse_params, request_failed, resolve_folder
from lsp_server.server.features.sessions import notify_session_changed, read_session, session_path
from lsp_server.server.lazy import lazy_module

if TYPE_CHECKING:
    from lsp_server.chat.chat import Chat
    from lsp_server.pi_rpc import PiExit, PiInstallation
    from lsp_server.session.tail import SessionFile

if TYPE_CHECKING:
    from lsp_server import protocol
else:
    protocol = lazy_module("lsp_server.protocol")

T = TypeVar("T")
NoticeLevel = Literal["info", "warning", "error"]
M = TypeVar("M", bound="protocol.WireModel")

SESSION_CHANGED_DELAY_S = 0.05  # Pi writes a few lines per event burst: tell the client once


def pi_env(ls: PiLanguageServer) -> dict[str, str]:
    """Pi's environment: the server's own, with pi-context's agent dir when the user chose one."""
    env = dict(os.environ)
    if ls.settings.agent_dir:
        env[AGENT_DIR_ENV] = ls.agent_dir
    return env


async def _installation(ls: PiLanguageServer) -> PiInstallation:
    from lsp_server.pi_rpc import PiUnavailable

    location = await ls.chats.locate(ls.settings.pi.command, pi_env(ls))
    if isinstance(location, PiUnavailable):
        raise JsonRpcException(
            code=REQUEST_FAILED,
            message=location.message,
            data={"installCommand": location.install_command, "kind": location.kind},
        )
    return location


def chat_info(ls: PiLanguageServer, chat: Chat, state: dict[str, Any] | None = None) -> protocol.ChatInfo:
    cwd = chat.spec.cwd
    return protocol.ChatInfo(
        chat_id=chat.chat_id,
        session=chat.session,
        cwd=cwd,
        workspace_folder=ls.folder_uri(cwd) if cwd in ls.roots else None,
        pi_version=chat.installation.pi_version,
        streaming=chat.streaming,
        compacting=chat.compacting,
        state=state if state is not None else {},
        kept=chat.kept,
        reattached=chat.reattached,
    )


def _start_session(ls: PiLanguageServer, value: str | None, folder: Path | None) -> str | None:
    """pi/chat/start's session: an existing file, or one a kept Pi holds and has not written yet (a new chat)."""
    if value is None:
        return None
    try:
        return session_path(ls, protocol.CHAT_START, value)
    except JsonRpcException:
        path = ls.uri_to_path(value) if value.startswith("file:") else value
        if path and os.path.isabs(path) and ls.chats.kept_elsewhere(folder, os.path.normpath(path)) is not None:
            return os.path.normpath(path)
        raise


def detached_chats(ls: PiLanguageServer) -> list[protocol.DetachedChat]:
    """The chats of this workspace whose Pi kept running after their server ended, oldest first."""
    found = []
    for record in ls.chats.detached(ls.chats.keeping.folder()):
        if record.cwd not in ls.roots:
            continue
        found.append(
            protocol.DetachedChat(
                session=record.session,
                cwd=record.cwd,
                workspace_folder=ls.folder_uri(record.cwd),
                busy=record.busy,
                started_at=record.started_at,
                detached_at=record.detached_at,
                pi_pid=record.pi_pid,
                pi_version=record.pi_version,
            )
        )
    return found


async def _pi(call: Callable[[], Awaitable[T]]) -> T:
    """Run a chat command; Pi's refusals and exits become readable request failures."""
    from lsp_server.chat.registry import ChatError
    from lsp_server.pi_rpc import PiRpcError

    try:
        return await call()
    except ChatError as exc:
        raise request_failed(str(exc)) from None
    except PiRpcError as exc:
        raise request_failed(f"Pi: {exc}") from None
    except ValueError as exc:  # a malformed model name and the like
        raise request_failed(str(exc)) from None


def _chat(ls: PiLanguageServer, chat_id: str) -> Chat:
    from lsp_server.chat.registry import ChatError

    try:
        chat = ls.chats.get(chat_id)
    except ChatError as exc:
        raise request_failed(str(exc)) from None
    if not chat.alive:
        raise request_failed(f"chat {chat_id}'s Pi has exited; start the chat again to resume its session")
    return chat


class ChatEvents:
    """Pi's records to the client, and the session-changed signal, coalesced per session."""

    def __init__(self, ls: PiLanguageServer) -> None:
        self.ls = ls
        self._pending: dict[str, asyncio.TimerHandle] = {}
        self._tasks: set[asyncio.Task[None]] = set()  # chats being stopped in the background

    def stop_later(self, chat: Chat) -> None:
        task = asyncio.get_running_loop().create_task(self.ls.chats.stop(chat.chat_id))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def event(self, chat: Chat, event: dict[str, Any]) -> None:
        self.ls.protocol.notify(protocol.CHAT_EVENT, {"chatId": chat.chat_id, "event": event, "seq": chat.events})

    def written(self, chat: Chat, session: str) -> None:
        if session in self._pending:
            return
        loop = asyncio.get_running_loop()
        self._pending[session] = loop.call_later(SESSION_CHANGED_DELAY_S, self._session_changed, session)

    def _session_changed(self, session: str) -> None:
        self._pending.pop(session, None)
        try:
            size = os.path.getsize(session) if os.path.exists(session) else None
            notify_session_changed(self.ls, protocol.SessionChangedParams(session=session, reason="chat", size=size))
        except Exception as exc:
            log_failure(self.ls, "pi/sessionChanged (chat)", exc)

    def exited(self, chat: Chat, exit: PiExit) -> None:
        self.ls.chats.forget(chat.chat_id)
        params = protocol.ChatExitedParams(
            chat_id=chat.chat_id,
            code=exit.returncode,
            expected=exit.expected,
            message=exit.message,
            stderr_tail=exit.stderr_tail[-4000:],
            session=chat.session,
        )
        self.ls.protocol.notify(protocol.CHAT_EXITED, params.wire())
        if chat.session is not None:
            self.written(chat, chat.session)

    def notice(self, chat: Chat, level: NoticeLevel, message: str) -> None:
        params = protocol.ChatNoticeParams(chat_id=chat.chat_id, level=level, message=message)
        self.ls.protocol.notify(protocol.CHAT_NOTICE, params.wire())


def register(server: PiLanguageServer) -> None:
    events = ChatEvents(server)

    def request(
        method: str, model: Callable[[], type[M]]
    ) -> Callable[[Callable[[PiLanguageServer, M], Awaitable[Any]]], None]:
        """Register ``handler(ls, params)`` for ``method``, params validated with ``model()``.

        ``model`` is a function returning the model class, so the models are imported when the
        first request comes, not when the server starts."""

        def decorate(handler: Callable[[PiLanguageServer, M], Awaitable[Any]]) -> None:
            @server.feature(method)
            async def run(ls: PiLanguageServer, params: Any) -> Any:
                return await handler(ls, parse_params(model(), params, method))

        return decorate

    @server.feature(names.CHAT_LOCATE)
    async def locate(ls: PiLanguageServer, params: Any) -> dict[str, Any]:
        from lsp_server.pi_rpc import PiUnavailable

        await ls.wait_ready()
        location = await ls.chats.locate(ls.settings.pi.command, pi_env(ls))
        if isinstance(location, PiUnavailable):
            return protocol.ChatLocateResult(
                found=False, message=location.message, install_command=location.install_command
            ).wire()
        return protocol.ChatLocateResult(
            found=True,
            pi_version=location.pi_version,
            node_version=location.node_version,
            command=list(location.argv),
            source=location.source,
        ).wire()

    @request(names.CHAT_START, lambda: protocol.ChatStartParams)
    async def start(ls: PiLanguageServer, params: protocol.ChatStartParams) -> dict[str, Any]:
        from lsp_server.chat.chat import ChatSpec

        await ls.wait_ready()
        cwd = resolve_folder(ls, protocol.CHAT_START, params.workspace_folder)
        keep = ls.chats.keeping.options(ls.settings.pi)
        session = _start_session(ls, params.session, keep.folder if keep is not None else None)
        spec = ChatSpec(cwd=cwd, session=session, model=params.model, env=pi_env(ls))
        taken = await _pi(  # its Pi kept running under a keeper: no Pi to find or start
            lambda: ls.chats.take_up(
                spec, keep, on_event=events.event, on_exit=events.exited, on_session_written=events.written
            )
        )
        if taken is not None:
            return chat_info(ls, taken, taken.process.initial_state if taken.process else None).wire()
        installation = await _installation(ls)
        chat = await _pi(
            lambda: ls.chats.start(
                spec,
                installation,
                on_event=events.event,
                on_exit=events.exited,
                on_session_written=events.written,
                keep=keep,
            )
        )
        problem = chat.keep_problem or (ls.chats.keeping.problem() if keep is None else None)
        if problem:
            ls.log(f"chat {chat.chat_id}: Pi runs without a keeper, so a turn ends with the server ({problem})")
        return chat_info(ls, chat, chat.process.initial_state if chat.process else None).wire()

    @server.feature(names.CHAT_LIST)
    async def list_chats(ls: PiLanguageServer, params: Any) -> dict[str, Any]:
        await ls.wait_ready()  # the workspace folders decide which kept chats are this window's
        chats = [chat_info(ls, chat) for chat in ls.chats if chat.alive]
        return protocol.ChatListResult(chats=chats, detached=detached_chats(ls)).wire()

    @request(names.CHAT_STATE, lambda: protocol.ChatRef)
    async def state(ls: PiLanguageServer, params: protocol.ChatRef) -> dict[str, Any]:
        chat = _chat(ls, params.chat_id)
        pi_state = await _pi(chat.refresh_state)
        return chat_info(ls, chat, pi_state).wire()

    @request(names.CHAT_PROMPT, lambda: protocol.ChatPromptParams)
    async def prompt(ls: PiLanguageServer, params: protocol.ChatPromptParams) -> dict[str, Any]:
        chat = _chat(ls, params.chat_id)
        disposition = await _pi(lambda: chat.prompt(params.text, params.streaming_behavior))
        return protocol.ChatPromptResult(disposition=disposition).wire()

    @request(names.CHAT_ABORT, lambda: protocol.ChatRef)
    async def abort(ls: PiLanguageServer, params: protocol.ChatRef) -> dict[str, Any]:
        chat = _chat(ls, params.chat_id)
        await _pi(chat.abort)
        return {}

    @request(names.CHAT_STOP, lambda: protocol.ChatRef)
    async def stop(ls: PiLanguageServer, params: protocol.ChatRef) -> dict[str, Any]:
        from lsp_server.chat.registry import ChatError

        try:
            ls.chats.get(params.chat_id)
        except ChatError as exc:
            raise request_failed(str(exc)) from None
        await ls.chats.stop(params.chat_id)
        return {}

    @request(names.CHAT_COMPACT, lambda: protocol.ChatCompactParams)
    async def compact(ls: PiLanguageServer, params: protocol.ChatCompactParams) -> dict[str, Any]:
        chat = _chat(ls, params.chat_id)
        result = await _pi(lambda: chat.compact(params.instructions))
        return protocol.ChatCompactResult(
            summary=str(result.get("summary", "")),
            first_kept_entry_id=_str_or_none(result.get("firstKeptEntryId")),
            tokens_before=_int_or_none(result.get("tokensBefore")),
            estimated_tokens_after=_int_or_none(result.get("estimatedTokensAfter")),
            usage=result.get("usage") if isinstance(result.get("usage"), dict) else None,
        ).wire()

    @request(names.CHAT_COMPACT_PREVIEW, lambda: protocol.ChatCompactParams)
    async def compact_preview(ls: PiLanguageServer, params: protocol.ChatCompactParams) -> dict[str, Any]:
        from lsp_server.chat.lens import compaction_preview

        chat = _chat(ls, params.chat_id)
        session = chat.session
        if session is None or not os.path.isfile(session):
            raise request_failed("nothing to compact yet: Pi has not written the session")
        project = ls.projects.open(await _session_cwd(ls, protocol.CHAT_COMPACT_PREVIEW, chat, session))
        preview = await asyncio.get_running_loop().run_in_executor(None, compaction_preview, project, session)
        if isinstance(preview, str):
            raise request_failed(preview)
        return protocol.ChatCompactPreview.model_validate(preview.to_json()).wire()

    @request(names.CHAT_FORK, lambda: protocol.ChatForkParams)
    async def fork(ls: PiLanguageServer, params: protocol.ChatForkParams) -> dict[str, Any]:
        chat = _chat(ls, params.chat_id)
        result = await _pi(lambda: chat.fork(params.entry_id))
        return protocol.ChatForkResult(
            text=_str_or_none(result.get("text")), cancelled=bool(result.get("cancelled")), session=chat.session
        ).wire()

    @request(names.CHAT_FORK_POINTS, lambda: protocol.ChatRef)
    async def fork_points(ls: PiLanguageServer, params: protocol.ChatRef) -> dict[str, Any]:
        chat = _chat(ls, params.chat_id)
        messages = await _pi(chat.fork_points)
        points = [
            protocol.ForkPoint(entry_id=str(m.get("entryId")), text=str(m.get("text", "")))
            for m in messages
            if isinstance(m.get("entryId"), str)
        ]
        return protocol.ChatForkPointsResult(messages=points).wire()

    @request(names.CHAT_SET_MODEL, lambda: protocol.ChatSetModelParams)
    async def set_model(ls: PiLanguageServer, params: protocol.ChatSetModelParams) -> dict[str, Any]:
        chat = _chat(ls, params.chat_id)
        model = await _pi(lambda: chat.set_model(params.model))
        return protocol.ChatModelResult(model=model).wire()

    @request(names.CHAT_SET_THINKING_LEVEL, lambda: protocol.ChatSetThinkingLevelParams)
    async def set_thinking_level(ls: PiLanguageServer, params: protocol.ChatSetThinkingLevelParams) -> dict[str, Any]:
        chat = _chat(ls, params.chat_id)
        await _pi(lambda: chat.set_thinking_level(params.level))
        return {}

    @request(names.CHAT_MESSAGES, lambda: protocol.ChatRef)
    async def messages(ls: PiLanguageServer, params: protocol.ChatRef) -> dict[str, Any]:
        chat = _chat(ls, params.chat_id)
        snapshot = await _pi(chat.messages_snapshot)
        return protocol.ChatMessagesResult(
            items=snapshot.messages,
            in_flight=snapshot.in_flight,
            seq=snapshot.seq,
            in_flight_truncated=snapshot.truncated,
        ).wire()

    @request(names.CHAT_COMMANDS, lambda: protocol.ChatRef)
    async def commands(ls: PiLanguageServer, params: protocol.ChatRef) -> dict[str, Any]:
        chat = _chat(ls, params.chat_id)
        return protocol.ChatItemsResult(items=await _pi(chat.commands)).wire()

    @request(names.CHAT_MODELS, lambda: protocol.ChatRef)
    async def models(ls: PiLanguageServer, params: protocol.ChatRef) -> dict[str, Any]:
        chat = _chat(ls, params.chat_id)
        return protocol.ChatItemsResult(items=await _pi(chat.models)).wire()

    @request(names.CHAT_PREFLIGHT, lambda: protocol.ChatPreflightParams)
    async def preflight_prompt(ls: PiLanguageServer, params: protocol.ChatPreflightParams) -> dict[str, Any]:
        from lsp_server.chat.lens import preflight

        chat = _chat(ls, params.chat_id)
        session = chat.session
        if session is not None and os.path.isfile(session):
            snapshot = await ls.projects.snapshot(await _session_cwd(ls, protocol.CHAT_PREFLIGHT, chat, session))

            def run(loaded: SessionFile) -> Any:
                from lsp_server.project.analysis import analyze
                from lsp_server.project.costs import next_request_with_prompt

                analysis = analyze(snapshot, loaded)
                return analysis.budget, next_request_with_prompt(snapshot, analysis, params.text)

            budget, upcoming = await read_session(ls, protocol.CHAT_PREFLIGHT, session, None, run)
        else:  # a new chat: Pi writes the file with the first message
            from lsp_server.budget.budget import prompt_budget

            snapshot = await ls.projects.snapshot(chat.spec.cwd)
            budget = prompt_budget(snapshot.prompt, config=snapshot.project.budget_config)
            upcoming = None
        found = preflight(budget, params.text, snapshot.counter.counter)
        return protocol.ChatPreflightResult(
            text_tokens=protocol.TokenCounts(pi=found.text_tokens.pi, estimate=found.text_tokens.estimate),
            context_tokens=found.context_tokens,
            after_prompt=found.after_prompt,
            threshold=found.threshold,
            window=found.window,
            crosses_threshold=found.crosses_threshold,
            message=found.message,
            next_request=upcoming,
        ).wire()

    @request(names.CHAT_UI_RESPONSE, lambda: protocol.ChatUiResponseParams)
    async def ui_response(ls: PiLanguageServer, params: protocol.ChatUiResponseParams) -> dict[str, Any]:
        chat = _chat(ls, params.chat_id)
        answer = params.model_dump(by_alias=True, exclude_none=True, include={"value", "confirmed", "cancelled"})
        await _pi(lambda: chat.ui_response(params.id, answer))
        return {}

    def listener(reason: str, paths: list[str]) -> None:
        """Folders removed and session files gone under a live chat: say so, and stop what lost its folder."""
        try:
            if reason == "folders":
                for chat in server.chats:
                    if chat.alive and chat.spec.cwd not in server.roots:
                        events.notice(chat, "warning", f"the workspace folder {chat.spec.cwd} was removed: chat ended")
                        events.stop_later(chat)
            elif reason == "disk":
                for chat in server.chats:
                    if chat.alive and chat.session in paths and not os.path.exists(chat.session):
                        events.notice(
                            chat,
                            "warning",
                            f"{chat.session} was deleted while Pi holds it; Pi keeps the conversation in memory and "
                            "writes the file again with its next entry",
                        )
        except Exception as exc:
            log_failure(server, f"chat ({reason})", exc)

    server.listeners.append(listener)


async def _session_cwd(ls: PiLanguageServer, method: str, chat: Chat, session: str) -> str:
    """The project a chat's session is analysed in (the rule of ``session_folder``)."""
    from lsp_server.project.project import header_cwd, session_folder

    session_cwd = await read_session(ls, method, session, None, lambda s: header_cwd(s.header))
    return session_folder(session_cwd, fallback=lambda: chat.spec.cwd).cwd


def _str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _int_or_none(value: Any) -> int | None:
    return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None
