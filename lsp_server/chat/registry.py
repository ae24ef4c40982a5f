"""The open chats of one language server, and the rule that a session has one writer.

While Pi holds a session, only Pi writes it: the registry knows which session file each chat's Pi
writes (it changes on fork), refuses a second chat on a session a chat already holds, and answers
:meth:`ChatRegistry.holder` for pi-context's own writers (``pi.compact``, ``pi.branchSummary``),
which then refuse too. Finding Pi is done here once per command line (a Node start is not free).
"""

from __future__ import annotations

import asyncio
import itertools
import os
from collections.abc import Iterator
from pathlib import Path

from lsp_server.chat.chat import Chat, ChatSpec, EventSink, ExitSink, WrittenSink
from lsp_server.pi_rpc import LocateCache, PiInstallation, PiLocation, PiUnavailable, locate_pi_async


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

    async def locate(self, command: str | None, env: dict[str, str] | None = None) -> PiLocation:
        return await locate_pi_async(command, env=env, cache=self._locate_cache)

    async def start(
        self,
        spec: ChatSpec,
        installation: PiInstallation,
        *,
        on_event: EventSink | None = None,
        on_exit: ExitSink | None = None,
        on_session_written: WrittenSink | None = None,
    ) -> Chat:
        """Start Pi on ``spec``; refused when another chat holds (or is opening) the same session."""
        key = session_key(spec.session) if spec.session is not None else None
        if spec.session is not None:
            if not Path(spec.session).is_file():
                raise ChatError(f"no such session file: {spec.session}")
            holder = self.holder(spec.session)
            if holder is not None or key in self._starting:
                which = f"chat {holder.chat_id}" if holder is not None else "a chat being opened"
                raise ChatError(
                    f"{spec.session} is already open in {which}: a session has one writer, so it cannot be opened "
                    "twice; switch to that chat or stop it first"
                )
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
            )
        finally:
            if key is not None:
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

    def forget(self, chat_id: str) -> None:
        """Drop a chat whose Pi has exited (the client may restart it on the same session)."""
        self._chats.pop(chat_id, None)
