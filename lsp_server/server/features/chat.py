"""``pi/chat/*``: chats with Pi itself, one Pi process in RPC mode per chat, owned by the server.

The server starts Pi in the workspace folder (``pi/chat/start``), forwards the client's commands as
Pi's RPC commands and every record Pi emits as ``pi/chat/event``, unchanged. It never writes a
session a chat holds: Pi does (``pi.compact`` on such a session previews from the file and then
runs Pi's ``compact`` through the chat, :func:`compact_in_chat`; ``pi.branchSummary`` refuses it,
as Pi's RPC mode cannot move in the tree), and a second chat on the same session is refused. When Pi
appends to its session (a message ended, a compaction ended, the run settled) the client gets
``pi/sessionChanged`` with reason ``chat``, so the budget, the projected request and the tree,
which read the file, follow the chat. When Pi exits the client gets ``pi/chat/exited`` (with the
exit code and Pi's last stderr lines); the server's own observations (the session file deleted
under the chat, the workspace folder removed) come as ``pi/chat/notice``.

Pi keeps its own credentials: the process gets the server's environment (plus ``PI_CODING_AGENT_DIR``
when pi-context's ``agentDir`` setting names one) and pi-context gives it no key. It does collect the
keys Pi may use (``chat/redaction.py``), only to replace them with ``***`` in everything it relays
from Pi (events, answers, refusals, the exit message and stderr): a model server that echoes a key in
an error would otherwise put it in the Chat view.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from pygls.exceptions import JsonRpcException

from lsp_server import protocol_names as names
from lsp_server.server.app import PiLanguageServer
from lsp_server.server.errors import log_failure
from lsp_server.server.features._common import REQUEST_FAILED, parse_params, request_failed, resolve_folder
from lsp_server.server.features.chat_live import (
    check_drift,
    drift_wire,
    held_after_take_up,
    keep_held,
    reload_in_place,
    restart_spec,
    take_held,
    watch_drift,
)
from lsp_server.server.features.sessions import live_lens, notify_session_changed, read_session, session_path
from lsp_server.server.lazy import lazy_module
from lsp_server.vocabulary.pi_files import AGENT_DIR_ENV

if TYPE_CHECKING:
    from lsp_server.chat.chat import Chat, ChatSpec
    from lsp_server.chat.recovery import Loss, SessionGuard
    from lsp_server.pi_rpc import PiExit, PiInstallation
    from lsp_server.project.project import Project
    from lsp_server.redaction import Redactor, Secret
    from lsp_server.session.tail import SessionFile
    from lsp_server.vocabulary.pi_releases import PiRules

if TYPE_CHECKING:
    from lsp_server import protocol
else:
    protocol = lazy_module("lsp_server.protocol")  # pydantic on first use, not at start-up (server/lazy.py)

T = TypeVar("T")
NoticeLevel = Literal["info", "warning", "error"]
M = TypeVar("M", bound="protocol.WireModel")

SESSION_CHANGED_DELAY_S = 0.05  # Pi writes a few lines per event burst: tell the client once


def pi_env(ls: PiLanguageServer, cwd: str | None = None) -> dict[str, str]:
    """Pi's environment: the server's own, with pi-context's agent dir when the user chose one.

    The agent dir is the one of the project at ``cwd`` (a relative setting resolves against the
    folder Pi runs in); without a cwd, the first workspace folder's.
    """
    env = dict(ls.env)
    if ls.settings.agent_dir:
        env[AGENT_DIR_ENV] = ls.projects.inputs_for(cwd).agent_dir if cwd is not None else ls.agent_dir
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


def pi_secrets(ls: PiLanguageServer, env: dict[str, str], cwd: str) -> tuple[Secret, ...]:
    """The keys a chat's Pi at ``cwd`` may send (its environment, models.json, auth.json) and the summarizer's."""
    from lsp_server.chat.redaction import pi_secrets as collect

    summarizer_env = ls.settings.summarizer.api_key_env
    agent_dir = env.get(AGENT_DIR_ENV) or ls.projects.inputs_for(cwd).agent_dir
    return collect(env, agent_dir, [env.get(summarizer_env) if summarizer_env else None])


def clean(chat: Chat, value: T) -> T:
    """``value`` from Pi with the chat's keys (in any form) replaced by ``***``."""
    cleaned: T = chat.spec.redactor.value(value)
    return cleaned


def chat_info(ls: PiLanguageServer, chat: Chat, state: dict[str, Any] | None = None) -> protocol.ChatInfo:
    from lsp_server.chat.live import untrusted_sentence

    cwd = chat.spec.cwd
    return protocol.ChatInfo(
        chat_id=chat.chat_id,
        session=chat.session,
        cwd=cwd,
        workspace_folder=ls.folder_uri(cwd) if cwd in ls.roots else None,
        pi_version=chat.installation.pi_version,
        streaming=chat.streaming,
        compacting=chat.compacting,
        state=clean(chat, state) if state is not None else {},
        kept=chat.kept,
        reattached=chat.reattached,
        held_since=chat.held.read_at if chat.held is not None else None,
        drift=drift_wire(chat.drift),
        project_untrusted=untrusted_sentence(chat.held.project) if chat.held is not None else None,
        capabilities=capabilities_wire(chat),
    )


def chat_rules(chat: Chat) -> PiRules:
    """The rules of the Pi release the chat runs: its lens (a compaction's plan and price) follows them."""
    from lsp_server.vocabulary.pi_releases import rules_for

    return rules_for(chat.installation.pi_version)


def capabilities_wire(chat: Chat) -> protocol.ChatCapabilities:
    """What the chat's Pi supports, as the view reads it (lsp_server/pi_rpc/capabilities.py)."""
    from lsp_server.vocabulary.pi_releases import rules_for

    return protocol.ChatCapabilities.model_validate(
        {**chat.capabilities.to_json(), "note": rules_for(chat.installation.pi_version).note}
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
    for record in ls.chats.detached(ls.chats.keeping.folder(ls.env)):
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


async def _pi(call: Callable[[], Awaitable[T]], redactor: Redactor) -> T:
    """Run a chat command; Pi's refusals and exits become readable request failures.

    The chat's keys (``redactor``) are kept out of the answer and of the failure's message."""
    from lsp_server.chat.registry import ChatError
    from lsp_server.pi_rpc import PiRpcError

    try:
        answer = await call()
    except ChatError as exc:
        raise request_failed(redactor.text(str(exc))) from None
    except PiRpcError as exc:
        raise request_failed(redactor.text(f"Pi: {exc}")) from None
    except ValueError as exc:  # a malformed model name and the like
        raise request_failed(str(exc)) from None
    cleaned: T = redactor.value(answer)
    return cleaned


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
    """Pi's records to the client, the session-changed signal (coalesced per session), and each chat's file.

    Each live chat's session file is followed (:class:`~lsp_server.chat.recovery.SessionGuard`)
    after the events after which Pi writes and on every change on disk; a file deleted or replaced
    under the chat is said at once (``pi/chat/notice``) and written back from what Pi holds as soon
    as Pi is idle, the chat's commands waiting meanwhile (:meth:`Chat.hold`).
    """

    def __init__(self, ls: PiLanguageServer) -> None:
        self.ls = ls
        self._pending: dict[str, asyncio.TimerHandle] = {}
        self._tasks: set[asyncio.Task[None]] = set()  # chats being stopped in the background
        self._guards: dict[str, SessionGuard] = {}  # by chat id
        self._checks: dict[str, asyncio.TimerHandle] = {}  # by chat id
        self._restoring: dict[str, asyncio.Task[None]] = {}  # by chat id
        self._first_event: dict[str, list[tuple[NoticeLevel, str]]] = {}  # by chat id: notices waiting

    def stop_later(self, chat: Chat) -> None:
        self._background(self.ls.chats.stop(chat.chat_id))

    def _background(self, work: Awaitable[None]) -> asyncio.Task[None]:
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    def event(self, chat: Chat, event: dict[str, Any]) -> None:
        for level, message in self._first_event.pop(chat.chat_id, ()):
            self.notice(chat, level, message)
        self.ls.protocol.notify(
            protocol.CHAT_EVENT, {"chatId": chat.chat_id, "event": clean(chat, event), "seq": chat.events}
        )

    def notice_with_first_event(self, chat: Chat, level: NoticeLevel, message: str) -> None:
        """A notice about how the chat was started, sent just before its first event: a client knows the
        chat by then (one sent with the start's answer would come before the client has the chat's id)."""
        self._first_event.setdefault(chat.chat_id, []).append((level, message))

    def written(self, chat: Chat, session: str) -> None:
        guard = self._guards.get(chat.chat_id)
        if guard is not None and guard.lost is None and (guard.mark is None or not (chat.streaming or chat.compacting)):
            # Pi's first write (its header is read before anything can take the file's place), or the end of
            # a run: looked at now, before the client hears of it, so what is done to the file after that is
            # compared with everything Pi wrote.
            self.check(chat)
        if chat.chat_id not in self._checks:
            self._checks[chat.chat_id] = asyncio.get_running_loop().call_later(
                SESSION_CHANGED_DELAY_S, self._check_soon, chat
            )
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
        self._first_event.pop(chat.chat_id, None)
        self.ls.chats.forget(chat.chat_id)
        self._guards.pop(chat.chat_id, None)
        check = self._checks.pop(chat.chat_id, None)
        if check is not None:
            check.cancel()
        if chat.replaced:  # stopped to start a new Pi on its session (pi/chat/reload, pi/chat/trust)
            return
        params = protocol.ChatExitedParams(
            chat_id=chat.chat_id,
            code=exit.returncode,
            expected=exit.expected,
            message=clean(chat, exit.message),
            stderr_tail=clean(chat, exit.stderr_tail)[-4000:],
            session=chat.session,
        )
        self.ls.protocol.notify(protocol.CHAT_EXITED, params.wire())
        if chat.session is not None:
            self.written(chat, chat.session)

    def capabilities_changed(self, chat: Chat, reason: str) -> None:
        """Pi answered or emitted something that turns a feature of the view on or off: the view asks again."""
        self.notice(chat, "info", f"{reason}; the chat adapts to it.", kind="capabilities-changed")

    def notice(
        self,
        chat: Chat,
        level: NoticeLevel,
        message: str,
        kind: protocol.ChatNoticeKind | None = None,
        session: str | None = None,
    ) -> None:
        params = protocol.ChatNoticeParams(
            chat_id=chat.chat_id, level=level, message=clean(chat, message), kind=kind, session=session
        )
        self.ls.protocol.notify(protocol.CHAT_NOTICE, params.wire())

    # --- the chat's session file ----------------------------------------------------------------

    def follow(self, chat: Chat) -> None:
        """Start following the chat's session file (after a start, or when Pi moved to another file)."""
        from lsp_server.chat.recovery import SessionGuard

        guard = self._guards.get(chat.chat_id)
        if guard is None:
            self._guards[chat.chat_id] = SessionGuard(chat.session, chat.session_id)
        elif guard.path != chat.session and chat.chat_id not in self._restoring:
            guard.follow(chat.session, chat.session_id)

    def _check_soon(self, chat: Chat) -> None:
        self._checks.pop(chat.chat_id, None)
        self.check(chat)

    def check(self, chat: Chat) -> None:
        """Compare the chat's file with what was seen last; say a loss, and write back when Pi is idle."""
        guard = self._guards.get(chat.chat_id)
        if guard is None or not chat.alive:
            return
        if guard.path != chat.session and chat.chat_id not in self._restoring:
            guard.follow(chat.session, chat.session_id)  # Pi moved to another file (a fork)
        try:
            loss = guard.check()
        except Exception as exc:
            log_failure(self.ls, "chat session check", exc)
            return
        if loss is not None:
            busy = chat.streaming or chat.compacting
            kind: protocol.ChatNoticeKind = "session-deleted" if loss.change == "deleted" else "session-replaced"
            self.notice(chat, "warning", lost_message(loss, busy), kind=kind)
        if guard.lost is not None and not (chat.streaming or chat.compacting) and chat.chat_id not in self._restoring:
            task = self._background(self._write_back(chat, guard))
            chat.hold(task)  # the commands after which Pi writes wait for the write-back
            self._restoring[chat.chat_id] = task
            task.add_done_callback(lambda _: self._restoring.pop(chat.chat_id, None))

    async def _write_back(self, chat: Chat, guard: SessionGuard) -> None:
        from lsp_server.chat.recovery import fallback_header, write_back

        loss = guard.lost
        assert loss is not None
        try:
            state = await chat.refresh_state()
            if state.get("isStreaming") or state.get("isCompacting"):
                return  # a run started meanwhile: written back after it
            held = await chat.entries()
            entries = [e for e in held.get("entries", []) if isinstance(e, dict)]
            header = guard.header or fallback_header(state.get("sessionId"), chat.spec.cwd)
            restored = await asyncio.get_running_loop().run_in_executor(None, write_back, loss.path, header, entries)
            if isinstance(restored, str):
                guard.follow(None)
                self.notice(chat, "error", not_restored_message(loss, restored), kind="session-not-restored")
                return
            read = await take_held(self.ls, chat.spec.cwd)  # switch_session: Pi reads its files again
            await chat.switch_session(restored.path)
            keep_held(self.ls, chat, read)
            guard.follow(chat.session)
        except Exception as exc:
            from lsp_server.chat.registry import ChatError
            from lsp_server.pi_rpc import PiRpcError

            if not isinstance(exc, PiRpcError | ChatError | OSError):
                log_failure(self.ls, "chat session write-back", exc)
            if chat.alive:
                guard.follow(None)
                self.notice(chat, "error", not_restored_message(loss, str(exc)), kind="session-not-restored")
            return
        self.notice(
            chat,
            "info",
            f"Session saved: {restored.sentence(loss.path)}. Pi continues in it; nothing of the conversation was lost.",
            kind="session-restored",
            session=chat.session,
        )
        for path in {loss.path, restored.path}:
            self._session_changed(path)


def lost_message(loss: Loss, busy: bool) -> str:
    """The notice when a chat's file goes: what happened, and what Pi and pi-context will do."""
    when = "when Pi's current reply ends" if busy else "now"
    if loss.change == "deleted":
        return (
            f"The session file {loss.path} was deleted while this chat was open. Pi still holds the whole session "
            f"in memory, but its next entry would start a new file without the lines before it; {when}, pi-context "
            "writes the session Pi holds back to that path and Pi continues there."
        )
    return (
        f"The session file {loss.path} was replaced while this chat was open ({loss.reason}). Pi would append its "
        f"next entries to a file it never read; {when}, pi-context saves the session Pi holds (over that file if all "
        "of it belongs to this session, else to a new file beside it) and Pi continues there."
    )


def not_restored_message(loss: Loss, error: str) -> str:
    return (
        f"pi-context could not write back the session of {loss.path}: {error}. Pi still holds the conversation, but "
        "its next entries go to that path without the lines before them; stop the chat and resume a copy of the "
        "session if you have one."
    )


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
        keep = ls.chats.keeping.options(ls.settings.pi, ls.env)
        session = _start_session(ls, params.session, keep.folder if keep is not None else None)
        env = pi_env(ls, cwd)
        spec = ChatSpec(cwd=cwd, session=session, model=params.model, env=env, secrets=pi_secrets(ls, env, cwd))
        ls.keys.add(spec.secrets)  # the server's log lines are redacted with them too
        taken = await _pi(  # its Pi kept running under a keeper: no Pi to find or start
            lambda: ls.chats.take_up(
                spec, keep, on_event=events.event, on_exit=events.exited, on_session_written=events.written
            ),
            spec.redactor,
        )
        if taken is not None:
            taken.on_capabilities_changed = events.capabilities_changed
            events.follow(taken)
            keep_held(ls, taken, await held_after_take_up(ls, taken))
            await check_drift(ls, taken, notify=False)  # the answer carries it
            return chat_info(ls, taken, taken.process.initial_state if taken.process else None).wire()
        installation = await _installation(ls)
        chat = await start_pi(ls, spec, installation)
        return chat_info(ls, chat, chat.process.initial_state if chat.process else None).wire()

    async def start_pi(ls: PiLanguageServer, spec: ChatSpec, installation: PiInstallation) -> Chat:
        """A new Pi on ``spec``, with what it reads at start taken from the same files (chat_live.take_held)."""
        keep = ls.chats.keeping.options(ls.settings.pi, ls.env)
        held = await take_held(ls, spec.cwd)
        chat = await _pi(
            lambda: ls.chats.start(
                spec,
                installation,
                on_event=events.event,
                on_exit=events.exited,
                on_session_written=events.written,
                keep=keep,
            ),
            spec.redactor,
        )
        chat.on_capabilities_changed = events.capabilities_changed
        events.follow(chat)
        keep_held(ls, chat, held)
        problem = chat.keep_problem or (ls.chats.keeping.problem(ls.env) if keep is None else None)
        if problem:
            ls.log(f"chat {chat.chat_id}: Pi runs without a keeper, so a turn ends with the server ({problem})")
        fallback = ls.chats.keeping.fallback(ls.env) if chat.kept else None
        if fallback:  # the shared folder was taken: said in the log and to the chat, never silently
            ls.log(f"chat {chat.chat_id}: {fallback}")
            events.notice_with_first_event(chat, "warning", f"Pi is kept across window reloads, but {fallback}.")
        return chat

    async def restart(ls: PiLanguageServer, chat: Chat) -> Chat:
        """A new Pi on the chat's session (what only a new Pi takes up: a changed trust decision)."""
        if chat.streaming or chat.compacting:
            raise request_failed("Pi is working on a reply: restart it once the reply has ended (Stop ends it now)")
        state = await _pi(chat.refresh_state, chat.spec.redactor)
        spec = restart_spec(chat, state)
        installation = await _installation(ls)
        chat.replaced = True
        await ls.chats.stop(chat.chat_id)
        return await start_pi(ls, spec, installation)

    @request(names.CHAT_RELOAD, lambda: protocol.ChatRef)
    async def reload(ls: PiLanguageServer, params: protocol.ChatRef) -> dict[str, Any]:
        chat = _chat(ls, params.chat_id)
        drift = await check_drift(ls, chat, notify=False)
        if drift is not None and drift.action == "restart":
            chat = await restart(ls, chat)
            return chat_info(ls, chat, chat.process.initial_state if chat.process else None).wire()
        await _pi(lambda: reload_in_place(ls, chat), chat.spec.redactor)
        await check_drift(ls, chat, notify=False)
        state = await _pi(chat.refresh_state, chat.spec.redactor)
        return chat_info(ls, chat, state).wire()

    @request(names.CHAT_TRUST, lambda: protocol.ChatRef)
    async def trust(ls: PiLanguageServer, params: protocol.ChatRef) -> dict[str, Any]:
        from lsp_server.context.trust_record import record_trust

        chat = _chat(ls, params.chat_id)
        if chat.streaming or chat.compacting:
            raise request_failed("Pi is working on a reply: trust the project once the reply has ended")
        agent_dir = pi_env(ls, chat.spec.cwd).get(AGENT_DIR_ENV) or ls.projects.inputs_for(chat.spec.cwd).agent_dir
        recorded = await asyncio.get_running_loop().run_in_executor(None, record_trust, agent_dir, chat.spec.cwd)
        if isinstance(recorded, str):
            raise request_failed(recorded)
        ls.log(f"chat {chat.chat_id}: {recorded.key} is trusted in {recorded.store_path}, as Pi's /trust saves it")
        ls.notify_listeners("disk", [recorded.store_path])  # the prompt, the views and other chats follow now
        chat = await restart(ls, chat)
        return chat_info(ls, chat, chat.process.initial_state if chat.process else None).wire()

    @request(names.CHAT_CLEAR_QUEUE, lambda: protocol.ChatRef)
    async def clear_queue(ls: PiLanguageServer, params: protocol.ChatRef) -> dict[str, Any]:
        chat = _chat(ls, params.chat_id)
        return queue_result(await _pi(chat.clear_queue, chat.spec.redactor)).wire()

    @server.feature(names.CHAT_LIST)
    async def list_chats(ls: PiLanguageServer, params: Any) -> dict[str, Any]:
        await ls.wait_ready()  # the workspace folders decide which kept chats are this window's
        chats = [chat_info(ls, chat) for chat in ls.chats if chat.alive]
        return protocol.ChatListResult(chats=chats, detached=detached_chats(ls)).wire()

    @request(names.CHAT_STATE, lambda: protocol.ChatRef)
    async def state(ls: PiLanguageServer, params: protocol.ChatRef) -> dict[str, Any]:
        chat = _chat(ls, params.chat_id)
        pi_state = await _pi(chat.refresh_state, chat.spec.redactor)
        stats = await _pi(chat.session_stats, chat.spec.redactor)
        return chat_info(ls, chat, pi_state).model_copy(update={"stats": stats}).wire()

    @request(names.CHAT_PROMPT, lambda: protocol.ChatPromptParams)
    async def prompt(ls: PiLanguageServer, params: protocol.ChatPromptParams) -> dict[str, Any]:
        chat = _chat(ls, params.chat_id)
        disposition = await _pi(lambda: chat.prompt(params.text, params.streaming_behavior), chat.spec.redactor)
        return protocol.ChatPromptResult(disposition=disposition).wire()

    @request(names.CHAT_ABORT, lambda: protocol.ChatRef)
    async def abort(ls: PiLanguageServer, params: protocol.ChatRef) -> dict[str, Any]:
        # Pi's own Esc: the queue is cleared first (abort alone keeps it, and Pi sends it with the next prompt),
        # and its texts go back to the client's input.
        chat = _chat(ls, params.chat_id)
        queued = await _pi(chat.clear_queue, chat.spec.redactor)
        await _pi(chat.abort, chat.spec.redactor)
        return queue_result(queued).wire()

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
        result = await _pi(lambda: chat.compact(params.instructions), chat.spec.redactor)
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
        project = await _chat_project(ls, protocol.CHAT_COMPACT_PREVIEW, chat, session)
        preview = await asyncio.get_running_loop().run_in_executor(
            None, compaction_preview, project, session, params.instructions, chat_rules(chat)
        )
        if isinstance(preview, str):
            raise request_failed(preview)
        return protocol.ChatCompactPreview.model_validate(preview.to_json()).wire()

    @request(names.CHAT_FORK, lambda: protocol.ChatForkParams)
    async def fork(ls: PiLanguageServer, params: protocol.ChatForkParams) -> dict[str, Any]:
        chat = _chat(ls, params.chat_id)
        held = await take_held(ls, chat.spec.cwd)  # a fork builds a new runtime: Pi reads its files again
        result = await _pi(lambda: chat.fork(params.entry_id), chat.spec.redactor)
        if not result.get("cancelled"):
            keep_held(ls, chat, held)
        return protocol.ChatForkResult(
            text=_str_or_none(result.get("text")), cancelled=bool(result.get("cancelled")), session=chat.session
        ).wire()

    @request(names.CHAT_FORK_POINTS, lambda: protocol.ChatRef)
    async def fork_points(ls: PiLanguageServer, params: protocol.ChatRef) -> dict[str, Any]:
        chat = _chat(ls, params.chat_id)
        messages = await _pi(chat.fork_points, chat.spec.redactor)
        points = [
            protocol.ForkPoint(entry_id=str(m.get("entryId")), text=str(m.get("text", "")))
            for m in messages
            if isinstance(m.get("entryId"), str)
        ]
        return protocol.ChatForkPointsResult(messages=points).wire()

    @request(names.CHAT_SET_MODEL, lambda: protocol.ChatSetModelParams)
    async def set_model(ls: PiLanguageServer, params: protocol.ChatSetModelParams) -> dict[str, Any]:
        chat = _chat(ls, params.chat_id)
        model = await _pi(lambda: chat.set_model(params.model), chat.spec.redactor)
        return protocol.ChatModelResult(model=model).wire()

    @request(names.CHAT_SET_THINKING_LEVEL, lambda: protocol.ChatSetThinkingLevelParams)
    async def set_thinking_level(ls: PiLanguageServer, params: protocol.ChatSetThinkingLevelParams) -> dict[str, Any]:
        chat = _chat(ls, params.chat_id)
        await _pi(lambda: chat.set_thinking_level(params.level), chat.spec.redactor)
        return {}

    @request(names.CHAT_MESSAGES, lambda: protocol.ChatRef)
    async def messages(ls: PiLanguageServer, params: protocol.ChatRef) -> dict[str, Any]:
        chat = _chat(ls, params.chat_id)
        snapshot = await _pi(chat.messages_snapshot, chat.spec.redactor)
        return protocol.ChatMessagesResult(
            items=clean(chat, snapshot.messages),
            in_flight=clean(chat, snapshot.in_flight),
            seq=snapshot.seq,
            in_flight_truncated=snapshot.truncated,
        ).wire()

    @request(names.CHAT_COMMANDS, lambda: protocol.ChatRef)
    async def commands(ls: PiLanguageServer, params: protocol.ChatRef) -> dict[str, Any]:
        chat = _chat(ls, params.chat_id)
        return protocol.ChatItemsResult(items=await _pi(chat.commands, chat.spec.redactor)).wire()

    @request(names.CHAT_MODELS, lambda: protocol.ChatRef)
    async def models(ls: PiLanguageServer, params: protocol.ChatRef) -> dict[str, Any]:
        chat = _chat(ls, params.chat_id)
        return protocol.ChatItemsResult(items=await _pi(chat.models, chat.spec.redactor)).wire()

    @request(names.CHAT_PREFLIGHT, lambda: protocol.ChatPreflightParams)
    async def preflight_prompt(ls: PiLanguageServer, params: protocol.ChatPreflightParams) -> dict[str, Any]:
        from lsp_server.chat.lens import preflight_result

        chat = _chat(ls, params.chat_id)
        session = chat.session
        if session is not None and os.path.isfile(session):
            snapshot = live_lens(ls, session) or await ls.projects.snapshot(
                await _session_cwd(ls, protocol.CHAT_PREFLIGHT, chat, session)
            )

            def run(loaded: SessionFile) -> protocol.ChatPreflightResult:
                return preflight_result(snapshot, loaded, params.text)

            result: protocol.ChatPreflightResult = await read_session(ls, protocol.CHAT_PREFLIGHT, session, None, run)
        else:  # a new chat: Pi writes the file with the first message
            held = chat.held.lens(ls.projects.inputs_for(chat.spec.cwd)) if chat.held is not None else None
            result = preflight_result(held or await ls.projects.snapshot(chat.spec.cwd), None, params.text)
        return result.wire()

    @request(names.CHAT_UI_RESPONSE, lambda: protocol.ChatUiResponseParams)
    async def ui_response(ls: PiLanguageServer, params: protocol.ChatUiResponseParams) -> dict[str, Any]:
        chat = _chat(ls, params.chat_id)
        answer = params.model_dump(by_alias=True, exclude_none=True, include={"value", "confirmed", "cancelled"})
        await _pi(lambda: chat.ui_response(params.id, answer), chat.spec.redactor)
        return {}

    def listener(reason: str, paths: list[str]) -> None:
        """Folders removed and session files changed under a live chat: say so, and act."""
        try:
            if reason == "folders":
                for chat in server.chats:
                    if chat.alive and chat.spec.cwd not in server.roots:
                        events.notice(chat, "warning", folder_removed_message(chat), kind="folder-removed")
                        events.stop_later(chat)
            elif reason == "disk":
                changed = set(paths)
                for chat in server.chats:
                    if chat.alive and chat.session in changed:
                        events.check(chat)
        except Exception as exc:
            log_failure(server, f"chat ({reason})", exc)

    server.listeners.append(listener)
    server.listeners.append(lambda reason, paths: watch_drift(server, reason, paths))


async def compact_in_chat(ls: PiLanguageServer, chat: Chat, request: protocol.CompactArgs) -> dict[str, Any]:
    """``pi.compact`` on a session a chat holds: the plan from the file as a preview, then Pi's ``compact``.

    Pi writes the summary with the chat's model (one writer per session); what pi-context shows first is
    where Pi will cut and what it keeps, read from the file with Pi's rules (the lens), as the chat's
    own ``/compact`` does.
    """
    from lsp_server.chat.lens import compaction_preview

    method = protocol.CMD_COMPACT
    path = request.session
    if request.leaf_id is not None:
        raise request_failed(
            f"{path} is open in chat {chat.chat_id}: Pi compacts the branch it is on, and its RPC mode cannot move "
            "to another entry; compact without choosing an entry, or stop the chat first"
        )
    state = await _pi(chat.refresh_state, chat.spec.redactor)
    model = state.get("model") if isinstance(state.get("model"), dict) else {}
    name = f"{model.get('provider')}/{model.get('id')}" if model else "its model"
    summarizer = f"Pi in chat {chat.chat_id} ({name})"
    if request.preview_only:
        project = await _chat_project(ls, method, chat, path)
        plan = await asyncio.get_running_loop().run_in_executor(
            None, compaction_preview, project, path, None, chat_rules(chat)
        )
        if isinstance(plan, str):
            raise request_failed(plan)
        return protocol.CommandOutcome(
            written=False,
            preview_only=True,
            summary="",
            first_kept_entry_id=plan.first_kept_entry_id,
            tokens_before=plan.tokens_before,
            summarizer=summarizer,
            session_size=os.path.getsize(path),
            chat_id=chat.chat_id,
            plan=protocol.ChatCompactPreview.model_validate(plan.to_json()),
        ).wire()
    if request.expected_size is not None and os.path.getsize(path) != request.expected_size:
        raise request_failed(
            f"{path} changed since the preview (Pi appended to it in chat {chat.chat_id}); preview the compaction again"
        )
    result = await _pi(lambda: chat.compact(request.instructions), chat.spec.redactor)
    session = chat.session or path
    entry = await read_session(
        ls,
        method,
        session,
        None,
        lambda s: next((e for e in reversed(s.entries) if e.get("type") == "compaction"), None),
    )
    return protocol.CommandOutcome(
        written=True,
        preview_only=False,
        summary=str(result.get("summary", "")),
        entry=dict(entry) if isinstance(entry, dict) else None,
        first_kept_entry_id=_str_or_none(result.get("firstKeptEntryId")),
        tokens_before=_int_or_none(result.get("tokensBefore")),
        summarizer=summarizer,
        session_size=os.path.getsize(session),
        chat_id=chat.chat_id,
    ).wire()


def folder_removed_message(chat: Chat) -> str:
    cut = ""
    if chat.streaming:
        kept = chat_rules(chat).has("stop-keeps-reply")  # Pi 1.5.1 and later write it; before, it is lost
        cut = (
            " (the reply in progress is cut off and kept as aborted)"
            if kept
            else f" (the reply in progress is lost: Pi {chat.installation.pi_version} does not write a reply it is "
            "stopped in; Pi 1.5.1 and later keep it)"
        )
    where = f"; its session stays in {chat.session}, which a chat can resume" if chat.session else ""
    return (
        f"The workspace folder {chat.spec.cwd} was removed from the workspace, so its chat ended: Pi was "
        f"stopped{cut}{where}."
    )


async def _chat_project(ls: PiLanguageServer, method: str, chat: Chat, session: str) -> Project:
    """The project a chat's compaction is planned in: Pi's settings as its Pi read them (chat_live)."""
    held = live_lens(ls, session)
    return held.project if held is not None else ls.projects.open(await _session_cwd(ls, method, chat, session))


def queue_result(queued: dict[str, Any]) -> protocol.ChatQueueResult:
    def texts(value: Any) -> list[str]:
        return [text for text in value if isinstance(text, str)] if isinstance(value, list) else []

    return protocol.ChatQueueResult(steering=texts(queued.get("steering")), follow_up=texts(queued.get("followUp")))


async def _session_cwd(ls: PiLanguageServer, method: str, chat: Chat, session: str) -> str:
    """The project a chat's session is analysed in (the rule of ``session_folder``)."""
    from lsp_server.project.project import header_cwd, session_folder

    session_cwd = await read_session(ls, method, session, None, lambda s: header_cwd(s.header))
    return session_folder(session_cwd, fallback=lambda: chat.spec.cwd).cwd


def _str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _int_or_none(value: Any) -> int | None:
    return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None
