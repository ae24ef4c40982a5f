"""One chat: a Pi process in RPC mode, the session file it writes, and what its events say about it.

pi-context never becomes an agent: Pi runs the turn (model calls, tools, retries, compaction, the
session file) and this object only forwards commands and events. What it keeps is what the
editor needs to follow the chat without asking Pi again: the session file Pi writes (it changes on
``fork`` and ``new_session``), whether a run is going on, and the last usage Pi reported.

Events are forwarded exactly as Pi emitted them (``on_event``); the chat looks at a few to keep its
own state, and tells ``on_session_written`` when Pi has just appended to its session file (a
message ended, a compaction ended, the run settled), so the views that read the file can refresh.
It also numbers them (``events``, the ``seq`` of each) and folds them into the run in flight
(:class:`~lsp_server.pi_rpc.run_log.RunLog`), so :meth:`Chat.messages_snapshot` can give a view that
attaches now Pi's messages and what is going on, both at one point of Pi's output.

Pi runs under a keeper when the server has a keepers' folder (:meth:`Chat.start` with ``keep``), so
that a turn outlives the server; :meth:`Chat.attach` takes up such a Pi after its server ended, and
:meth:`Chat.release` lets go of one at shutdown (``docs/chat.md``).
"""

from __future__ import annotations

import asyncio
import functools
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from lsp_server.chat.redaction import EventRedactor
from lsp_server.pi_rpc import Disposition, PiExit, PiInstallation, PiRpcProcess, StreamingBehavior, ThinkingLevel
from lsp_server.pi_rpc.capabilities import ChatCapabilities, detect, is_unknown_command
from lsp_server.pi_rpc.channel import PiRpcChannel
from lsp_server.pi_rpc.errors import PiCommandError, PiProtocolError
from lsp_server.pi_rpc.keeper_files import KeeperRecord
from lsp_server.pi_rpc.kept import KeeperUnavailable, KeepOptions, KeptPi
from lsp_server.pi_rpc.run_log import RecordKey, RunLog
from lsp_server.redaction import Redactor, Secret

if TYPE_CHECKING:
    from lsp_server.chat.live import Drift, HeldContext

JsonObject = dict[str, Any]
EventSink = Callable[["Chat", JsonObject], None]
ExitSink = Callable[["Chat", PiExit], None]
WrittenSink = Callable[["Chat", str], None]
CapabilitiesSink = Callable[["Chat", str], None]

# Events after which Pi has appended to the session file.
WRITING_EVENTS: Final = frozenset(
    {"message_end", "compaction_end", "agent_settled", "entry_appended", "session_info_changed"}
)
RUN_LOG_EVENTS: Final = 50_000  # records of the run in progress kept for a view that attaches (pi/chat/messages)


@dataclass(frozen=True)
class MessagesSnapshot:
    """``get_messages`` and what was going on at the same point of Pi's output (see :class:`RunLog`)."""

    messages: list[JsonObject]
    in_flight: list[JsonObject]
    seq: int  # the number of the last event the snapshot includes
    truncated: bool


@dataclass(frozen=True)
class ChatSpec:
    """What a chat is started from."""

    cwd: str  # the folder Pi runs in (a workspace folder)
    session: str | None = None  # an existing session file to resume (Pi's --session)
    model: str | None = None  # "provider/modelId"
    env: Mapping[str, str] = field(kw_only=True, repr=False)  # Pi's whole environment, from the front end
    # The keys Pi may send to a model (chat/redaction.py): kept out of everything relayed to the client.
    secrets: tuple[Secret, ...] = ()

    @functools.cached_property
    def redactor(self) -> Redactor:
        """The redactor for :attr:`secrets`, built once per chat."""
        return Redactor(self.secrets)


def split_model(model: str) -> tuple[str, str]:
    """``"provider/modelId"`` as Pi's ``--provider`` and ``--model`` (the id may contain slashes)."""
    provider, slash, model_id = model.partition("/")
    if not slash or not provider or not model_id:
        raise ValueError(f'a model is "provider/modelId" (got {model!r})')
    return provider, model_id


class Chat:
    """A started chat. Make one with :meth:`start`; end it with :meth:`stop`."""

    def __init__(self, chat_id: str, spec: ChatSpec, installation: PiInstallation) -> None:
        self.chat_id = chat_id
        self.spec = spec
        self.installation = installation
        self.process: PiRpcChannel | None = None
        self.session: str | None = spec.session
        self.session_id: str | None = None  # Pi's id of the session (its header's ``id``), from get_state
        self.streaming = False
        self.compacting = False
        self.last_usage: JsonObject | None = None
        self.exit: PiExit | None = None
        self.events = 0  # also the seq of the last event forwarded
        self.run: RunLog[JsonObject] = RunLog(RUN_LOG_EVENTS)  # what a view attaching now must be shown again
        self.reattached = False  # taken up from a keeper after its server ended
        self.keep_problem: str | None = None  # why this chat's Pi runs without a keeper
        # What this Pi read (settings, trust, prompt: chat/live.py), set by the server when Pi (re)reads its
        # files; the chat's numbers come from it. ``drift``: where the files differ now, as last told.
        self.held: HeldContext | None = None
        self.drift: Drift | None = None
        self.replaced = False  # stopped to be started again (a restart): its exit is not news to the client
        self._held_by: asyncio.Future[Any] | None = None  # work on the session file the commands wait for
        # What this Pi supports (probed after the start, corrected by its answers and events); a change is
        # told to on_capabilities_changed with one sentence (the server sends it as a notice).
        self.capabilities = ChatCapabilities.expected(installation.pi_version)
        self.on_capabilities_changed: CapabilitiesSink | None = None
        self._redact = EventRedactor(spec.redactor)  # Pi's records, redacted once as they come in (chat/redaction.py)
        self._on_event: EventSink | None = None
        self._on_exit: ExitSink | None = None
        self._on_written: WrittenSink | None = None

    @classmethod
    async def start(
        cls,
        chat_id: str,
        spec: ChatSpec,
        installation: PiInstallation,
        *,
        on_event: EventSink | None = None,
        on_exit: ExitSink | None = None,
        on_session_written: WrittenSink | None = None,
        keep: KeepOptions | None = None,
    ) -> Chat:
        """Start Pi: under a keeper when ``keep`` says where (so a turn outlives the server), else as our child."""
        chat = cls(chat_id, spec, installation)
        chat._on_event, chat._on_exit, chat._on_written = on_event, on_exit, on_session_written
        provider, model_id = split_model(spec.model) if spec.model else (None, None)
        options: dict[str, Any] = {
            "cwd": spec.cwd,
            "env": spec.env,
            "session_file": spec.session,
            "provider": provider,
            "model": model_id,
            "on_event": chat._event,
            "on_exit": chat._exited,
        }
        if keep is not None:
            record = {
                "argv": list(installation.argv),
                "piVersion": installation.pi_version,
                "nodeVersion": installation.node_version,
                "source": installation.source,
            }
            try:
                chat.process = await KeptPi.start(installation.argv, keep, installation=record, **options)
            except KeeperUnavailable as error:  # the folder or Python: Pi still runs, without a keeper
                chat.keep_problem = str(error)
        if chat.process is None:
            chat.process = await PiRpcProcess.start(installation.argv, **options)
        chat._take_state(chat.process.initial_state or {})
        await chat._detect_capabilities()
        return chat

    @classmethod
    async def attach(
        cls,
        chat_id: str,
        folder: Path,
        record: KeeperRecord,
        *,
        on_event: EventSink | None = None,
        on_exit: ExitSink | None = None,
        on_session_written: WrittenSink | None = None,
        secrets: tuple[Secret, ...] = (),
    ) -> Chat:
        """Take up a Pi that kept running after its server ended; its run's records in progress come first.

        ``secrets`` are this server's keys for the chat (the keeper does not hand them over): what the
        replay and Pi send from now on is redacted with them as in a chat started here.
        """
        spec = ChatSpec(cwd=record.cwd, session=record.session, env={}, secrets=secrets)
        installation = PiInstallation(tuple(record.argv), record.pi_version, record.node_version, record.source)
        chat = cls(chat_id, spec, installation)
        chat._on_event, chat._on_exit, chat._on_written = on_event, on_exit, on_session_written
        chat.reattached = True
        chat.process = await KeptPi.attach(folder, record, on_event=chat._event, on_exit=chat._exited)
        chat._take_state(chat.process.initial_state or {})
        await chat._detect_capabilities()
        return chat

    # --- state --------------------------------------------------------------------------------------

    @property
    def alive(self) -> bool:
        return self.exit is None and self.process is not None

    @property
    def kept(self) -> bool:
        """Pi runs under a keeper: a turn goes on when this server ends."""
        return isinstance(self.process, KeptPi)

    @property
    def keeper_id(self) -> str | None:
        process = self.process
        return process.record.keeper_id if isinstance(process, KeptPi) and process.record is not None else None

    def _pi(self) -> PiRpcChannel:
        assert self.process is not None
        return self.process

    def _take_state(self, state: Mapping[str, Any]) -> None:
        session = state.get("sessionFile")
        if isinstance(session, str) and session:
            self.session = os.path.normpath(session)
        session_id = state.get("sessionId")
        if isinstance(session_id, str) and session_id:
            self.session_id = session_id
        self.streaming = bool(state.get("isStreaming", self.streaming))
        self.compacting = bool(state.get("isCompacting", self.compacting))

    async def _detect_capabilities(self) -> None:
        """Ask this Pi what it supports (pi_rpc/capabilities.py), then learn from what it refuses."""
        process = self._pi()
        self.capabilities = await detect(process, self.installation.pi_version, process.initial_state)
        process.on_refused = self._refused

    def _refused(self, error: PiCommandError) -> None:
        if is_unknown_command(error) and self.capabilities.learn_missing(error.command):
            self._capabilities_changed(f"Pi {self.installation.pi_version} has no `{error.command}` command")

    def _capabilities_changed(self, reason: str) -> None:
        if self.on_capabilities_changed is not None:
            self.on_capabilities_changed(self, reason)

    def _event(self, event: JsonObject) -> None:
        event = self._redact.redact(event)  # before the run log keeps it: a view attaching later gets the same
        if self.capabilities.observe(event):
            self._capabilities_changed(
                f"Pi {self.installation.pi_version}'s `{event.get('type')}` events carry a field its release lacked"
            )
        self.events += 1
        self.run.add(RecordKey.of(event), event)
        kind = event.get("type")
        if kind == "agent_start":
            self.streaming = True
        elif kind == "agent_settled":
            self.streaming = False
        elif kind == "compaction_start":
            self.compacting = True
        elif kind == "compaction_end":
            self.compacting = False
        elif kind == "message_update" and isinstance(event.get("usage"), dict):
            self.last_usage = event["usage"]
        # Told before the event goes out: once a client hears that a run ended, the server has looked at
        # what Pi wrote (anything done to the file after that is somebody else's).
        if kind in WRITING_EVENTS and self.session is not None and self._on_written is not None:
            self._on_written(self, self.session)
        if self._on_event is not None:
            self._on_event(self, event)

    def _exited(self, exit: PiExit) -> None:
        self.exit = exit
        self.streaming = False
        if self._on_exit is not None:
            self._on_exit(self, exit)

    async def refresh_state(self) -> JsonObject:
        """Pi's ``get_state``, remembered (the session file may have changed after a fork)."""
        state = await self._pi().get_state()
        self._take_state(state)
        return state

    def hold(self, work: asyncio.Future[Any]) -> None:
        """Make the commands after which Pi writes wait for ``work`` (the session file being written back)."""
        self._held_by = work
        work.add_done_callback(lambda done: setattr(self, "_held_by", None) if self._held_by is done else None)

    async def _writable(self) -> None:
        if self._held_by is not None:
            await asyncio.shield(self._held_by)

    # --- commands (each is Pi's; errors are Pi's own text) ---------------------------------------------

    async def prompt(self, text: str, streaming_behavior: StreamingBehavior | None = None) -> Disposition:
        await self._writable()
        return await self._pi().prompt(text, streaming_behavior=streaming_behavior)

    async def abort(self) -> None:
        await self._pi().abort()

    async def compact(self, instructions: str | None = None) -> JsonObject:
        await self._writable()
        result = await self._pi().compact(instructions)
        await self.refresh_state()
        return result

    async def fork(self, entry_id: str) -> JsonObject:
        await self._writable()
        result = await self._pi().fork(entry_id)
        await self.refresh_state()
        return result

    async def entries(self) -> JsonObject:
        """Pi's ``get_entries``: every entry of the session it holds (all branches, file order) and its leaf."""
        return await self._pi().get_entries()

    async def switch_session(self, path: str) -> JsonObject:
        """Pi opens another session file (``switch_session``); the chat follows it."""
        result = await self._pi().switch_session(path)
        await self.refresh_state()
        return result

    async def new_session(self) -> JsonObject:
        """Pi starts a fresh session (``new_session``), reading its files again; the chat follows its new file."""
        await self._writable()
        result = await self._pi().new_session()
        await self.refresh_state()
        return result

    async def clear_queue(self) -> JsonObject:
        """Pi's ``clear_queue``: the steering and follow-up messages it had queued, no longer sent."""
        return await self._pi().clear_queue()

    async def fork_points(self) -> list[JsonObject]:
        return await self._pi().get_fork_messages()

    async def set_model(self, model: str) -> JsonObject:
        provider, model_id = split_model(model)
        await self._writable()
        return await self._pi().set_model(provider, model_id)

    async def set_thinking_level(self, level: ThinkingLevel) -> None:
        await self._writable()
        await self._pi().set_thinking_level(level)

    async def set_session_name(self, name: str) -> None:
        """Pi's ``set_session_name``: Pi writes the ``session_info`` entry of the session it holds."""
        await self._writable()
        await self._pi().set_session_name(name)

    async def session_stats(self) -> JsonObject:
        """Pi's ``get_session_stats``: its own totals and its count of the context (``contextUsage``)."""
        return await self._pi().get_session_stats()

    async def messages(self) -> list[JsonObject]:
        return await self._pi().get_messages()

    async def messages_snapshot(self) -> MessagesSnapshot:
        """``get_messages``, with the run's records in progress and the event count at the point Pi answered.

        Both halves are taken at one point of Pi's output (the answer's), so a view that folds the
        messages, then ``in_flight``, then the events numbered after ``seq``, misses nothing and shows
        nothing twice, however the answer and the events interleave on their way to it.
        """
        taken: list[MessagesSnapshot] = []

        def at_answer() -> None:
            taken.append(MessagesSnapshot([], self.run.items(), self.events, self.run.truncated))

        data = await self._pi().request({"type": "get_messages"}, at_answer=at_answer)
        messages = data.get("messages") if isinstance(data, dict) else None
        if not isinstance(messages, list) or not taken:
            raise PiProtocolError("Pi's answer to get_messages has no messages list")
        mark = taken[0]
        return MessagesSnapshot([m for m in messages if isinstance(m, dict)], mark.in_flight, mark.seq, mark.truncated)

    async def commands(self) -> list[JsonObject]:
        return await self._pi().get_commands()

    async def models(self) -> list[JsonObject]:
        return await self._pi().get_available_models()

    async def ui_response(self, request_id: str, answer: Mapping[str, Any]) -> None:
        await self._pi().send({"type": "extension_ui_response", "id": request_id, **answer})
        self.run.answered(request_id)

    async def stop(self) -> PiExit:
        """End the Pi process (orderly, then forcefully); idempotent."""
        if self.process is None:
            raise RuntimeError("the chat was never started")
        return await self.process.close()

    async def release(self) -> bool:
        """The server is ending: a busy Pi under a keeper goes on (True); any other Pi is ended (False)."""
        if isinstance(self.process, KeptPi):
            return await self.process.release()
        await self.stop()
        return False
