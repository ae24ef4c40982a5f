"""A live chat's one source of truth: what its Pi read, where the files now differ, and the actions that fix that.

Pi reads its context files, settings and trust decision when it builds a session runtime and keeps
them (docs/chat.md, "What Pi takes up, and when"). So when a chat's Pi reads them (a start, a reload,
a restart) the server builds the same prompt from disk (:func:`take_held`) and keeps it on the chat
(``chat.held``); every number of the chat's session (``pi/contextBudget``, ``pi/projectedRequest``,
``pi/turnLedger``, ``pi/chat/preflight``, ``pi/chat/compactPreview``) is computed from it
(``sessions.live_lens``). After a change on disk the server compares again (:func:`check_drift`) and
tells the client ``pi/chat/drift``: one sentence and the action that makes Pi take the change up,
which ``pi/chat/reload`` performs (:func:`reload_chat`): Pi reads its files again on its own session
(``switch_session``; ``new_session`` before it wrote one), or, for a changed trust decision, a new Pi
on the same session. ``pi/chat/trust`` records trust in Pi's own store, then restarts.

The handlers are registered by ``chat.py``; this module holds what they call.
"""

from __future__ import annotations

import asyncio
import os
import time
from dataclasses import replace
from typing import TYPE_CHECKING

from lsp_server.server.app import PiLanguageServer
from lsp_server.server.errors import log_failure
from lsp_server.server.features._common import request_failed

if TYPE_CHECKING:
    from lsp_server import protocol
    from lsp_server.chat.chat import Chat, ChatSpec
    from lsp_server.chat.live import Drift, HeldContext

DRIFT_DELAY_S = 0.2  # a save often comes as a burst of events: compare once they pause
_DRIFT_REASONS = frozenset({"saved", "disk", "closed", "settings", "reload", "folders"})


async def take_held(ls: PiLanguageServer, cwd: str) -> HeldContext:
    """What a Pi reading its files now reads: the project and prompt built from disk (open buffers ignored)."""
    from lsp_server.chat.live import HeldContext

    snapshot = await ls.projects.disk_snapshot(cwd)
    return HeldContext.taken(snapshot, time.time())


def keep_held(ls: PiLanguageServer, chat: Chat, held: HeldContext) -> None:
    """Remember what the chat's Pi read; beside its keeper too, for the server that takes it up after a reload."""
    from lsp_server.chat.live import write_held

    chat.held, chat.drift = held, None
    keep = ls.chats.keeping.folder(ls.env)
    if chat.keeper_id is not None and keep is not None:
        write_held(keep, chat.keeper_id, held)


async def held_after_take_up(ls: PiLanguageServer, chat: Chat) -> HeldContext:
    """A kept Pi taken up after a reload: what the server that started it recorded, else the files now."""
    from lsp_server.chat.live import HeldContext, read_held
    from lsp_server.project.prompt_state import build_prompt

    keep = ls.chats.keeping.folder(ls.env)
    record = read_held(keep, chat.keeper_id) if keep is not None and chat.keeper_id is not None else None
    if record is None:
        return await take_held(ls, chat.spec.cwd)
    project = record.project(ls.projects.open(chat.spec.cwd))
    skills = ls.projects.state(chat.spec.cwd).skills
    snapshot = await asyncio.get_running_loop().run_in_executor(None, lambda: build_prompt(project, skills=skills))
    return HeldContext(snapshot, record.sections, record.read_at)


async def check_drift(ls: PiLanguageServer, chat: Chat, *, notify: bool = True) -> Drift | None:
    """Compare the files on disk with what the chat's Pi read; tell the client (``notify``) when that changed."""
    from lsp_server import protocol
    from lsp_server.chat.live import find_drift

    held = chat.held
    if held is None or not chat.alive:
        return None
    now = await ls.projects.disk_snapshot(chat.spec.cwd)
    found = find_drift(held, now)
    if chat.held is held and found != chat.drift:
        chat.drift = found
        if notify:
            params = protocol.ChatDriftParams(chat_id=chat.chat_id, drift=drift_wire(found))
            ls.protocol.notify(protocol.CHAT_DRIFT, params.wire())
    return chat.drift


def drift_wire(drift: Drift | None) -> protocol.ChatDriftInfo | None:
    from lsp_server import protocol

    return protocol.ChatDriftInfo.model_validate(drift.to_json()) if drift is not None else None


def watch_drift(ls: PiLanguageServer, reason: str, paths: list[str]) -> None:
    """The server's listener: a change that can touch what a live chat's Pi read is compared after a pause."""
    if reason not in _DRIFT_REASONS:
        return
    for chat in ls.chats:
        held = chat.held
        if not chat.alive or held is None:
            continue
        if reason in ("disk", "saved", "closed") and not any(held.snapshot.affects(path) for path in paths):
            continue

        async def compare(chat: Chat = chat) -> None:
            try:
                await check_drift(ls, chat)
            except Exception as exc:
                log_failure(ls, f"chat {chat.chat_id}: comparing the files with what Pi read", exc)

        ls.scheduler.submit(f"chat-drift:{chat.chat_id}", compare, delay_s=DRIFT_DELAY_S)


async def reload_in_place(ls: PiLanguageServer, chat: Chat) -> None:
    """Pi reads its files again on the session it holds (``switch_session`` to its own file; ``new_session``
    when it has written none yet), as ``tests/pi_rpc/test_real_live_changes.py`` checks it does."""
    if chat.streaming or chat.compacting:
        raise request_failed(
            "Pi is working on a reply: it can read its files again once the reply has ended (Stop ends it now)"
        )
    held = await take_held(ls, chat.spec.cwd)
    session = chat.session
    if session is not None and os.path.isfile(session):
        await chat.switch_session(session)
    else:
        await chat.new_session()
    keep_held(ls, chat, held)


def restart_spec(chat: Chat, state: dict[str, object]) -> ChatSpec:
    """The chat's spec for a new Pi on the same session (its model when Pi has written no session yet)."""
    session = chat.session if chat.session is not None and os.path.isfile(chat.session) else None
    model = state.get("model")
    name = None
    if session is None and isinstance(model, dict) and model.get("provider") and model.get("id"):
        name = f"{model['provider']}/{model['id']}"
    return replace(chat.spec, session=session, model=name)
