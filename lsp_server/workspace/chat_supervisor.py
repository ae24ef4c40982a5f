"""The chats' supervisor: what the workspace does around each chat's Pi, beside relaying its requests.

It relays Pi's records to the client (``pi/chat/event``, numbered), tells the views when Pi wrote its
session (``pi/sessionChanged`` with reason ``chat``, coalesced per session), says when Pi exited
(``pi/chat/exited``) and what pi-context noticed (``pi/chat/notice``). It follows each live chat's
session file (:class:`~lsp_server.chat.recovery.SessionGuard`) after the events after which Pi
writes and on every change on disk: a file deleted or replaced under the chat is said at once and
written back from what Pi holds as soon as Pi is idle, the chat's commands waiting meanwhile
(:meth:`Chat.hold`). It keeps what each chat's Pi read (:func:`take_held`, ``chat.held``: every number
of the chat's session comes from it) and compares it with the files after a change (``pi/chat/drift``),
and it starts and restarts Pi (a reload that only a new Pi takes up, a trust decision).

What it needs of the workspace is :class:`ChatHost`; the requests of ``pi/chat/*`` are
:mod:`lsp_server.workspace.chat_requests`, which call it.

Pi keeps its own credentials: the process gets the server's environment (plus ``PI_CODING_AGENT_DIR``
when pi-context's ``agentDir`` setting names one) and pi-context gives it no key. It does collect the
keys Pi may use (``chat/redaction.py``), only to replace them with ``***`` in everything it relays
from Pi (events, answers, refusals, the exit message and stderr): a model server that echoes a key in
an error would otherwise put it in the Chat view.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeVar

from lsp_server import protocol
from lsp_server.chat.chat import Chat, ChatSpec
from lsp_server.chat.live import Drift, HeldContext, find_drift, read_held, write_held
from lsp_server.chat.recovery import Loss, SessionGuard, fallback_header, write_back
from lsp_server.chat.redaction import pi_secrets as collect_secrets
from lsp_server.chat.registry import ChatError, ChatRegistry
from lsp_server.pi_rpc import PiExit, PiInstallation, PiRpcError, PiUnavailable
from lsp_server.project.prompt_state import build_prompt
from lsp_server.redaction import Redactor, Secret
from lsp_server.redaction.keyring import KeyRing
from lsp_server.vocabulary.pi_files import AGENT_DIR_ENV
from lsp_server.vocabulary.pi_releases import PiRules, rules_for
from lsp_server.workspace.errors import RequestFailed
from lsp_server.workspace.events import BufferClosed, BufferSaved, DiskChanged, Event, FoldersChanged, Reloaded
from lsp_server.workspace.events import SettingsChanged as SettingsChangedEvent
from lsp_server.workspace.projects import OpenProjects

if TYPE_CHECKING:
    from lsp_server.settings.editor import ServerSettings
    from lsp_server.workspace.client import Client

T = TypeVar("T")
NoticeLevel = Literal["info", "warning", "error"]

SESSION_CHANGED_DELAY_S = 0.05  # Pi writes a few lines per event burst: tell the client once
DRIFT_DELAY_S = 0.2  # a save often comes as a burst of events: compare once they pause
_DRIFT_EVENTS = (BufferSaved, DiskChanged, BufferClosed, SettingsChangedEvent, Reloaded, FoldersChanged)
_FILE_EVENTS = (DiskChanged, BufferSaved, BufferClosed)


class ChatHost(Protocol):
    """What the chats' supervisor needs of the workspace around it."""

    env: Mapping[str, str]
    roots: list[str]
    keys: KeyRing
    client: Client
    chats: ChatRegistry
    projects: OpenProjects

    @property
    def settings(self) -> ServerSettings: ...

    @property
    def agent_dir(self) -> str: ...

    def schedule(self, key: str, work: Callable[[], Awaitable[None]], *, delay_s: float | None = None) -> None: ...


def clean(chat: Chat, value: T) -> T:
    """``value`` from Pi with the chat's keys (in any form) replaced by ``***``."""
    cleaned: T = chat.spec.redactor.value(value)
    return cleaned


async def pi_call(call: Callable[[], Awaitable[T]], redactor: Redactor) -> T:
    """Run a chat command; Pi's refusals and exits become readable request failures.

    The chat's keys (``redactor``) are kept out of the answer and of the failure's message."""
    try:
        answer = await call()
    except ChatError as exc:
        raise RequestFailed(redactor.text(str(exc))) from None
    except PiRpcError as exc:
        raise RequestFailed(redactor.text(f"Pi: {exc}")) from None
    except ValueError as exc:  # a malformed model name and the like
        raise RequestFailed(str(exc)) from None
    cleaned: T = redactor.value(answer)
    return cleaned


def chat_rules(chat: Chat) -> PiRules:
    """The rules of the Pi release the chat runs: its lens (a compaction's plan and price) follows them."""
    return rules_for(chat.installation.pi_version)


def drift_wire(drift: Drift | None) -> protocol.ChatDriftInfo | None:
    return protocol.ChatDriftInfo.model_validate(drift.to_json()) if drift is not None else None


def restart_spec(chat: Chat, state: dict[str, object]) -> ChatSpec:
    """The chat's spec for a new Pi on the same session (its model when Pi has written no session yet)."""
    session = chat.session if chat.session is not None and os.path.isfile(chat.session) else None
    model = state.get("model")
    name = None
    if session is None and isinstance(model, dict) and model.get("provider") and model.get("id"):
        name = f"{model['provider']}/{model['id']}"
    return replace(chat.spec, session=session, model=name)


class ChatSupervisor:
    """Pi's records to the client, each chat's session file followed, what each chat's Pi read."""

    def __init__(self, ws: ChatHost) -> None:
        self.ws = ws
        self._pending: dict[str, asyncio.TimerHandle] = {}
        self._tasks: set[asyncio.Task[None]] = set()  # chats being stopped in the background
        self._guards: dict[str, SessionGuard] = {}  # by chat id
        self._checks: dict[str, asyncio.TimerHandle] = {}  # by chat id
        self._restoring: dict[str, asyncio.Task[None]] = {}  # by chat id
        self._first_event: dict[str, list[tuple[NoticeLevel, str]]] = {}  # by chat id: notices waiting

    # --- Pi's environment, keys and installation ------------------------------------------------

    def pi_env(self, cwd: str | None = None) -> dict[str, str]:
        """Pi's environment: the server's own, with pi-context's agent dir when the user chose one.

        The agent dir is the one of the project at ``cwd`` (a relative setting resolves against the
        folder Pi runs in); without a cwd, the first workspace folder's.
        """
        env = dict(self.ws.env)
        if self.ws.settings.agent_dir:
            env[AGENT_DIR_ENV] = self.ws.projects.inputs_for(cwd).agent_dir if cwd is not None else self.ws.agent_dir
        return env

    def pi_secrets(self, env: dict[str, str], cwd: str) -> tuple[Secret, ...]:
        """The keys a chat's Pi at ``cwd`` may send (its environment, models.json, auth.json) and the summarizer's."""
        summarizer_env = self.ws.settings.summarizer.api_key_env
        agent_dir = env.get(AGENT_DIR_ENV) or self.ws.projects.inputs_for(cwd).agent_dir
        return collect_secrets(env, agent_dir, [env.get(summarizer_env) if summarizer_env else None])

    async def installation(self) -> PiInstallation:
        """The Pi the chats run (the ``pi.command`` setting, else found), or the failure saying how to install it."""
        location = await self.ws.chats.locate(self.ws.settings.pi.command, self.pi_env())
        if isinstance(location, PiUnavailable):
            raise RequestFailed(
                location.message, data={"installCommand": location.install_command, "kind": location.kind}
            )
        return location

    # --- starting Pi ---------------------------------------------------------------------------

    async def start_pi(self, spec: ChatSpec, installation: PiInstallation) -> Chat:
        """A new Pi on ``spec``, with what it reads at start taken from the same files (:meth:`take_held`)."""
        ws = self.ws
        keep = ws.chats.keeping.options(ws.settings.pi, ws.env)
        held = await self.take_held(spec.cwd)
        chat = await pi_call(
            lambda: ws.chats.start(
                spec,
                installation,
                on_event=self.event,
                on_exit=self.exited,
                on_session_written=self.written,
                keep=keep,
            ),
            spec.redactor,
        )
        chat.on_capabilities_changed = self.capabilities_changed
        self.follow(chat)
        self.keep_held(chat, held)
        problem = chat.keep_problem or (ws.chats.keeping.problem(ws.env) if keep is None else None)
        if problem:
            ws.client.log(f"chat {chat.chat_id}: Pi runs without a keeper, so a turn ends with the server ({problem})")
        fallback = ws.chats.keeping.fallback(ws.env) if chat.kept else None
        if fallback:  # the shared folder was taken: said in the log and to the chat, never silently
            ws.client.log(f"chat {chat.chat_id}: {fallback}")
            self.notice_with_first_event(chat, "warning", f"Pi is kept across window reloads, but {fallback}.")
        return chat

    async def take_up(self, spec: ChatSpec) -> Chat | None:
        """A Pi that kept running under a keeper on ``spec``'s session, taken up (None: there is none)."""
        ws = self.ws
        keep = ws.chats.keeping.options(ws.settings.pi, ws.env)
        taken = await pi_call(  # its Pi kept running under a keeper: no Pi to find or start
            lambda: ws.chats.take_up(
                spec, keep, on_event=self.event, on_exit=self.exited, on_session_written=self.written
            ),
            spec.redactor,
        )
        if taken is None:
            return None
        taken.on_capabilities_changed = self.capabilities_changed
        self.follow(taken)
        self.keep_held(taken, await self.held_after_take_up(taken))
        await self.check_drift(taken, notify=False)  # the answer carries it
        return taken

    async def restart(self, chat: Chat) -> Chat:
        """A new Pi on the chat's session (what only a new Pi takes up: a changed trust decision)."""
        if chat.streaming or chat.compacting:
            raise RequestFailed("Pi is working on a reply: restart it once the reply has ended (Stop ends it now)")
        state = await pi_call(chat.refresh_state, chat.spec.redactor)
        spec = restart_spec(chat, state)
        installation = await self.installation()
        chat.replaced = True
        await self.ws.chats.stop(chat.chat_id)
        return await self.start_pi(spec, installation)

    def stop_later(self, chat: Chat) -> None:
        self._background(self.ws.chats.stop(chat.chat_id))

    def _background(self, work: Awaitable[None]) -> asyncio.Task[None]:
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    # --- what each chat's Pi read, and where the files differ now -------------------------------

    async def take_held(self, cwd: str) -> HeldContext:
        """What a Pi reading its files now reads: the project and prompt built from disk (open buffers ignored)."""
        snapshot = await self.ws.projects.disk_snapshot(cwd)
        return HeldContext.taken(snapshot, time.time())

    def keep_held(self, chat: Chat, held: HeldContext) -> None:
        """Remember what the chat's Pi read; beside its keeper too, for the server that takes it up after a reload."""
        chat.held, chat.drift = held, None
        keep = self.ws.chats.keeping.folder(self.ws.env)
        if chat.keeper_id is not None and keep is not None:
            write_held(keep, chat.keeper_id, held)

    async def held_after_take_up(self, chat: Chat) -> HeldContext:
        """A kept Pi taken up after a reload: what the server that started it recorded, else the files now."""
        ws = self.ws
        keep = ws.chats.keeping.folder(ws.env)
        record = read_held(keep, chat.keeper_id) if keep is not None and chat.keeper_id is not None else None
        if record is None:
            return await self.take_held(chat.spec.cwd)
        project = record.project(ws.projects.open(chat.spec.cwd))
        skills = ws.projects.state(chat.spec.cwd).skills
        snapshot = await asyncio.get_running_loop().run_in_executor(None, lambda: build_prompt(project, skills=skills))
        return HeldContext(snapshot, record.sections, record.read_at)

    async def check_drift(self, chat: Chat, *, notify: bool = True) -> Drift | None:
        """Compare the files on disk with what the chat's Pi read; tell the client (``notify``) when that changed."""
        held = chat.held
        if held is None or not chat.alive:
            return None
        now = await self.ws.projects.disk_snapshot(chat.spec.cwd)
        found = find_drift(held, now)
        if chat.held is held and found != chat.drift:
            chat.drift = found
            if notify:
                params = protocol.ChatDriftParams(chat_id=chat.chat_id, drift=drift_wire(found))
                self.ws.client.notify(protocol.CHAT_DRIFT, params.wire())
        return chat.drift

    async def reload_in_place(self, chat: Chat) -> None:
        """Pi reads its files again on the session it holds (``switch_session`` to its own file; ``new_session``
        when it has written none yet), as ``tests/pi_rpc/test_real_live_changes.py`` checks it does."""
        if chat.streaming or chat.compacting:
            raise RequestFailed(
                "Pi is working on a reply: it can read its files again once the reply has ended (Stop ends it now)"
            )
        held = await self.take_held(chat.spec.cwd)
        session = chat.session
        if session is not None and os.path.isfile(session):
            await chat.switch_session(session)
        else:
            await chat.new_session()
        self.keep_held(chat, held)

    # --- Pi's records to the client --------------------------------------------------------------

    def event(self, chat: Chat, event: dict[str, Any]) -> None:
        for level, message in self._first_event.pop(chat.chat_id, ()):
            self.notice(chat, level, message)
        # Redacted as it came in (Chat: deltas and the whole record, once, before the run log kept it).
        self.ws.client.notify(protocol.CHAT_EVENT, {"chatId": chat.chat_id, "event": event, "seq": chat.events})

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
            params = protocol.SessionChangedParams(session=session, reason="chat", size=size)
            self.ws.client.notify(protocol.SESSION_CHANGED, params.wire())
        except Exception as exc:
            self.ws.client.log_failure("pi/sessionChanged (chat)", exc)

    def exited(self, chat: Chat, exit: PiExit) -> None:
        self._first_event.pop(chat.chat_id, None)
        self.ws.chats.forget(chat.chat_id)
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
        self.ws.client.notify(protocol.CHAT_EXITED, params.wire())
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
        self.ws.client.notify(protocol.CHAT_NOTICE, params.wire())

    # --- the chat's session file ----------------------------------------------------------------

    def follow(self, chat: Chat) -> None:
        """Start following the chat's session file (after a start, or when Pi moved to another file)."""
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
            self.ws.client.log_failure("chat session check", exc)
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
            read = await self.take_held(chat.spec.cwd)  # switch_session: Pi reads its files again
            await chat.switch_session(restored.path)
            self.keep_held(chat, read)
            guard.follow(chat.session)
        except Exception as exc:
            if not isinstance(exc, PiRpcError | ChatError | OSError):
                self.ws.client.log_failure("chat session write-back", exc)
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

    # --- what happens in the workspace -------------------------------------------------------------

    def on_event(self, event: Event) -> None:
        """Folders removed and session files changed under a live chat: say so, and act; compare what Pi read."""
        chats = self.ws.chats
        if isinstance(event, FoldersChanged):
            for chat in chats:
                if chat.alive and chat.spec.cwd not in self.ws.roots:
                    self.notice(chat, "warning", folder_removed_message(chat), kind="folder-removed")
                    self.stop_later(chat)
        elif isinstance(event, DiskChanged):
            changed = set(event.paths)
            for chat in chats:
                if chat.alive and chat.session in changed:
                    self.check(chat)
        self._watch_drift(event)

    def _watch_drift(self, event: Event) -> None:
        """A change that can touch what a live chat's Pi read is compared after a pause."""
        if not isinstance(event, _DRIFT_EVENTS):
            return
        for chat in self.ws.chats:
            held = chat.held
            if not chat.alive or held is None:
                continue
            if isinstance(event, _FILE_EVENTS) and not any(held.snapshot.affects(path) for path in event.paths):
                continue

            async def compare(chat: Chat = chat) -> None:
                try:
                    await self.check_drift(chat)
                except Exception as exc:
                    self.ws.client.log_failure(f"chat {chat.chat_id}: comparing the files with what Pi read", exc)

            self.ws.schedule(f"chat-drift:{chat.chat_id}", compare, delay_s=DRIFT_DELAY_S)


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
