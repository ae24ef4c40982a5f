"""The open chats of one language server, and the rule that a session has one writer.

While Pi holds a session, only Pi writes it: the registry knows which session file each chat's Pi
writes (it changes on fork), refuses a second chat on a session a chat already holds, and answers
:meth:`ChatRegistry.describe_holder` for pi-context's own writers (``pi.compact``,
``pi.branchSummary``), which then refuse too. A Pi that kept running under a keeper after its server
ended (:mod:`lsp_server.pi_rpc.keeper`) holds its session as well: ``pi/chat/start`` on that
session takes it up, and a keeper another window is attached to refuses. Finding Pi is done here
once per command line (a Node start is not free).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
from collections.abc import Iterator, Mapping
from pathlib import Path

from lsp_server.chat.chat import Chat, ChatSpec, EventSink, ExitSink, WrittenSink
from lsp_server.chat.keeping import Keeping
from lsp_server.pi_rpc import LocateCache, PiInstallation, PiLocation, PiUnavailable, locate_pi_async
from lsp_server.pi_rpc.keeper_files import KeeperRecord, is_stale, read_records
from lsp_server.pi_rpc.kept import KeeperBusy, KeeperGone, KeepOptions
from lsp_server.redaction import Secret


class ChatError(Exception):
    """A chat request that cannot be carried out; the message is for the user."""


class PiMissing(ChatError):
    """No usable Pi: the message says what to install."""

    def __init__(self, unavailable: PiUnavailable) -> None:
        super().__init__(unavailable.message)
        self.unavailable = unavailable


def session_key(path: str) -> str:
    """Two spellings of one session file are one key (symlinks and ``..`` resolved)."""
    return os.path.realpath(path)


class ChatRegistry:
    """Chats by id; each one's Pi process is ended by :meth:`stop` or :meth:`stop_all`."""

    def __init__(self) -> None:
        self._chats: dict[str, Chat] = {}
        self._ids = itertools.count(1)
        self._locate_cache = LocateCache()
        self._starting: set[str] = set()  # session keys of chats being started
        self._writing: dict[str, str] = {}  # session key -> what pi-context itself is appending to it
        self.keeping = Keeping()  # where chats' Pi processes are kept across a server's end

    def __iter__(self) -> Iterator[Chat]:
        return iter(list(self._chats.values()))

    def __len__(self) -> int:
        return len(self._chats)

    def get(self, chat_id: str) -> Chat:
        chat = self._chats.get(chat_id)
        if chat is None:
            raise ChatError(f"no chat {chat_id!r} (it was stopped, or the server restarted)")
        return chat

    def holder(self, session: str) -> Chat | None:
        """The live chat whose Pi writes ``session``, if any."""
        key = session_key(session)
        for chat in self._chats.values():
            if chat.alive and chat.session is not None and session_key(chat.session) == key:
                return chat
        return None

    @contextlib.contextmanager
    def writing(self, session: str, what: str) -> Iterator[None]:
        """pi-context appends ``what`` to ``session`` (a compaction or a branch summary, after a model call
        that can take a minute): no chat opens it meanwhile, so Pi never holds a file we then append to."""
        key = session_key(session)
        self._writing[key] = what
        try:
            yield
        finally:
            self._writing.pop(key, None)

    def _refuse_if_written(self, session: str) -> None:
        what = self._writing.get(session_key(session))
        if what is not None:
            raise ChatError(
                f"{session} is getting {what} from pi-context right now: a session has one writer, so the chat can "
                "open it once that is written (or cancelled)"
            )

    def kept_elsewhere(self, folder: Path | None, session: str) -> KeeperRecord | None:
        """A keeper that holds ``session`` for nobody here (its server ended, or another window has it)."""
        if folder is None:
            return None
        key = session_key(session)
        ours = {chat.keeper_id for chat in self._chats.values() if chat.alive}
        for record in read_records(folder):
            if record.keeper_id in ours or record.session is None or record.state == "ending":
                continue
            if session_key(record.session) == key and not is_stale(folder, record):
                return record
        return None

    def detached(self, folder: Path | None) -> list[KeeperRecord]:
        """The keepers no server is attached to: Pi kept running after its window went."""
        if folder is None:
            return []
        return [r for r in read_records(folder) if r.state == "detached" and not is_stale(folder, r)]

    def describe_holder(self, session: str, folder: Path | None = None) -> str | None:
        """Who writes ``session`` now, in words (``chat 3``), or None when nobody does."""
        chat = self.holder(session)
        if chat is not None:
            return f"chat {chat.chat_id}"
        record = self.kept_elsewhere(folder, session)
        if record is None:
            return None
        if record.state == "detached":
            return "a chat whose Pi kept running after its window closed"
        return "a chat of another window"

    async def locate(self, command: str | None, env: Mapping[str, str]) -> PiLocation:
        return await locate_pi_async(command, env=env, cache=self._locate_cache)

    async def start(
        self,
        spec: ChatSpec,
        installation: PiInstallation,
        *,
        on_event: EventSink | None = None,
        on_exit: ExitSink | None = None,
        on_session_written: WrittenSink | None = None,
        keep: KeepOptions | None = None,
    ) -> Chat:
        """Start Pi on ``spec``; refused when another chat holds (or is opening) the same session.

        A session whose Pi kept running under a keeper after its server ended is taken up instead
        (:meth:`Chat.attach`): one writer, and the turn it is in goes on in this server's chat.
        """
        key = session_key(spec.session) if spec.session is not None else None
        if spec.session is not None:
            self._refuse_if_written(spec.session)
            holder = self.holder(spec.session)
            if holder is not None or key in self._starting:
                which = f"chat {holder.chat_id}" if holder is not None else "a chat being opened"
                raise ChatError(
                    f"{spec.session} is already open in {which}: a session has one writer, so it cannot be opened "
                    "twice; switch to that chat or stop it first"
                )
            taken = await self.take_up(
                spec, keep, on_event=on_event, on_exit=on_exit, on_session_written=on_session_written
            )
            if taken is not None:
                return taken
            if not Path(spec.session).is_file():
                raise ChatError(f"no such session file: {spec.session}")
        if not Path(spec.cwd).is_dir():
            raise ChatError(f"the chat's folder does not exist: {spec.cwd}")
        chat_id = str(next(self._ids))
        if key is not None:
            self._starting.add(key)
        try:
            chat = await Chat.start(
                chat_id,
                spec,
                installation,
                on_event=on_event,
                on_exit=on_exit,
                on_session_written=on_session_written,
                keep=keep,
            )
        finally:
            if key is not None:
                self._starting.discard(key)
        problem = chat.capabilities.conversation_problem()  # the only Pi refused: one that cannot converse
        if problem is not None:
            await chat.stop()
            raise ChatError(problem)
        self._chats[chat_id] = chat
        return chat

    async def take_up(
        self,
        spec: ChatSpec,
        keep: KeepOptions | None,
        *,
        on_event: EventSink | None = None,
        on_exit: ExitSink | None = None,
        on_session_written: WrittenSink | None = None,
    ) -> Chat | None:
        """The chat of ``spec.session`` when a keeper holds it for nobody here (no Pi to find or start); else None."""
        if spec.session is None or keep is None:
            return None
        self._refuse_if_written(spec.session)
        key = session_key(spec.session)
        holder = self.holder(spec.session)
        if holder is not None or key in self._starting:
            return None  # start() says why not
        record = self.kept_elsewhere(keep.folder, spec.session)
        if record is None:
            return None
        if record.state == "starting":  # another window is opening it this very moment
            raise ChatError(
                f"{spec.session} is being opened in a chat of another window: a session has one writer, so it "
                "cannot be opened twice"
            )
        return await self._attach(key, keep.folder, record, spec.secrets, on_event, on_exit, on_session_written)

    async def _attach(
        self,
        key: str,
        folder: Path,
        record: KeeperRecord,
        secrets: tuple[Secret, ...],
        on_event: EventSink | None,
        on_exit: ExitSink | None,
        on_session_written: WrittenSink | None,
    ) -> Chat:
        chat_id = str(next(self._ids))
        self._starting.add(key)
        try:
            chat = await Chat.attach(
                chat_id,
                folder,
                record,
                on_event=on_event,
                on_exit=on_exit,
                on_session_written=on_session_written,
                secrets=secrets,
            )
        except KeeperBusy:
            raise ChatError(
                f"{record.session} is open in a chat of another window: a session has one writer, so it cannot be "
                "opened twice; stop it there first"
            ) from None
        except KeeperGone as error:
            raise ChatError(f"{record.session}: {error}; start the chat again to resume the session") from None
        finally:
            self._starting.discard(key)
        self._chats[chat_id] = chat
        return chat

    async def stop(self, chat_id: str) -> None:
        chat = self._chats.pop(chat_id, None)
        if chat is not None:
            await chat.stop()

    async def stop_all(self) -> None:
        chats, self._chats = list(self._chats.values()), {}
        await asyncio.gather(*(chat.stop() for chat in chats), return_exceptions=True)

    async def release_all(self) -> None:
        """The server is ending: idle chats end now; a chat whose Pi is busy under a keeper goes on without us."""
        chats, self._chats = list(self._chats.values()), {}
        await asyncio.gather(*(chat.release() for chat in chats), return_exceptions=True)

    def forget(self, chat_id: str) -> None:
        """Drop a chat whose Pi has exited (the client may restart it on the same session)."""
        self._chats.pop(chat_id, None)
