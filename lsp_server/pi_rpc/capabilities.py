"""What the running Pi can do for the chat: asked once per Pi process, corrected by what Pi answers.

The chat does not refuse a Pi by its version. It asks the Pi it runs (right after the first
``get_state``) and keeps the answers in a :class:`ChatCapabilities`:

* **commands**: each command the chat uses is *probed* when a probe exists that cannot change
  anything (:data:`PROBES`: read-only commands, or a command given an argument Pi rejects before it
  acts, such as ``fork`` of entry ``""``); a probe answered ``Unknown command: <name>`` means Pi has
  no such command, any other answer (even a refusal) that it has. A command no probe can ask
  without side effects (``prompt``, ``compact``, ``abort``...) is assumed present in every release
  pi-context knows, and learned missing the first time Pi answers it ``Unknown command``;
* **get_state's fields**: the keys of Pi's first ``get_state`` answer;
* **events**: the event fields a feature reads (``tool_execution_end.durationMs``) are expected
  from the release that added them (:data:`lsp_server.vocabulary.pi_releases.CHANGES`) and confirmed by the
  events that carry them.

:data:`FEATURES` is one row per thing the Chat view offers, with what it needs; :meth:`features`
says for each whether this Pi has it and, when not, what is missing and the Pi version that has it,
which the view turns into one sentence (``vscode-extension/src/chat/capabilities.ts``). A Pi whose
RPC cannot carry a conversation at all (no ``get_messages`` answered, no ``prompt``) is refused with
the missing command named (:meth:`conversation_problem`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from lsp_server.pi_rpc.commands import PiCommands
from lsp_server.pi_rpc.errors import PiCommandError, PiRpcError
from lsp_server.vocabulary.pi_releases import OLDEST, ChangeId, change, rules_for

FeatureId = Literal[
    "conversation",
    "stop",
    "fork",
    "models",
    "thinking",
    "compact",
    "slash-commands",
    "session-restore",
    "tool-durations",
]
CommandState = Literal["present", "missing", "assumed"]
PROBE_TIMEOUT_S: Final = 10.0
PROBE_ENTRY_ID: Final = "pi-context-probe"  # an entry id no session holds


@dataclass(frozen=True)
class Feature:
    """Something the Chat view offers, and what of Pi's RPC it needs."""

    id: FeatureId
    what: str  # the singular subject of the view's sentence: "<what> needs Pi <since> or newer: ..."
    commands: tuple[str, ...] = ()
    state_fields: tuple[str, ...] = ()  # keys of get_state it reads
    change: ChangeId | None = None  # an event field Pi added in a release (pi_releases.CHANGES)


FEATURES: Final[tuple[Feature, ...]] = (
    Feature("conversation", "The conversation", ("prompt", "get_messages")),
    Feature("stop", "Stopping a reply", ("abort",)),
    Feature("fork", "Editing or retrying an earlier message", ("get_fork_messages", "fork")),
    Feature("models", "Choosing the model", ("get_available_models", "set_model"), ("model",)),
    Feature("thinking", "Choosing the thinking level", ("set_thinking_level",), ("thinkingLevel",)),
    Feature("compact", "Compacting the session", ("compact",)),
    Feature("slash-commands", "Completing slash commands", ("get_commands",)),
    Feature("session-restore", "Writing a deleted session file back", ("get_entries", "switch_session")),
    Feature("tool-durations", "Showing how long each tool ran", change="tool-durations"),
)

# Commands that can be asked without changing anything (read-only, or refused before Pi acts).
PROBES: Final[Mapping[str, Mapping[str, Any]]] = {
    "get_commands": {"type": "get_commands"},
    "get_fork_messages": {"type": "get_fork_messages"},
    "get_entries": {"type": "get_entries", "since": PROBE_ENTRY_ID},
    "fork": {"type": "fork", "entryId": ""},
    "set_model": {"type": "set_model", "provider": "", "modelId": ""},
}
# The event field a feature reads, and the event it is on: seen there, Pi has it (its absence proves
# nothing: Pi leaves ``durationMs`` out for a tool that did not run). ``agent_settled.aborted`` (1.1.0)
# needs no feature: the transcript ends a settled run's unfinished tool calls either way.
EVENT_FIELDS: Final[Mapping[ChangeId, tuple[str, str]]] = {
    "tool-durations": ("tool_execution_end", "durationMs"),
}


def is_unknown_command(error: PiCommandError) -> bool:
    """Pi's answer to a command it does not have (``Unknown command: <type>``)."""
    return error.error.strip() == f"Unknown command: {error.command}"


@dataclass(frozen=True)
class FeatureStatus:
    """One row of :data:`FEATURES` for this Pi: on, or off with what is missing and who has it."""

    id: FeatureId
    available: bool
    what: str
    missing: str | None = None  # "the `fork` command", "`durationMs` on `tool_execution_end`"
    since: str | None = None  # a Pi version that has it

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "available": self.available, "what": self.what}
        if self.missing is not None:
            out["missing"] = self.missing
        if self.since is not None:
            out["since"] = self.since
        return out


@dataclass
class ChatCapabilities:
    """What one Pi process was found to support; updated by what it answers and emits."""

    pi_version: str
    commands: dict[str, CommandState] = field(default_factory=dict)
    state_fields: tuple[str, ...] = ()
    events: dict[ChangeId, bool] = field(default_factory=dict)
    observed: set[ChangeId] = field(default_factory=set)  # event fields settled by an event seen

    @classmethod
    def expected(cls, pi_version: str, state: Mapping[str, Any] | None = None) -> ChatCapabilities:
        """Before any probe: every command assumed, event fields as the release has them."""
        rules = rules_for(pi_version)
        commands: dict[str, CommandState] = {name: "assumed" for f in FEATURES for name in f.commands}
        events = {change_id: rules.has(change_id) for change_id in EVENT_FIELDS}
        fields = tuple(state) if state is not None else ()
        return cls(pi_version, commands, fields, events)

    def command(self, name: str) -> CommandState:
        return self.commands.get(name, "assumed")

    def has_command(self, name: str) -> bool:
        return self.command(name) != "missing"

    def learn_missing(self, command: str) -> bool:
        """Pi answered ``command`` with ``Unknown command``; True when that is news."""
        if self.commands.get(command) == "missing":
            return False
        self.commands[command] = "missing"
        return True

    def observe(self, event: Mapping[str, Any]) -> bool:
        """An event carrying a field a feature reads proves Pi has it; True when that turned a feature on."""
        kind = event.get("type")
        changed = False
        for change_id, (event_type, key) in EVENT_FIELDS.items():
            if kind == event_type and change_id not in self.observed and key in event:
                self.observed.add(change_id)
                changed = changed or not self.events.get(change_id, False)
                self.events[change_id] = True
        return changed

    def features(self) -> list[FeatureStatus]:
        return [self._status(feature) for feature in FEATURES]

    def feature(self, feature_id: FeatureId) -> FeatureStatus:
        return next(self._status(f) for f in FEATURES if f.id == feature_id)

    def _status(self, feature: Feature) -> FeatureStatus:
        missing = [f"the `{name}` command" for name in feature.commands if not self.has_command(name)]
        if self.state_fields:
            missing += [f"`{key}` in get_state" for key in feature.state_fields if key not in self.state_fields]
        since = OLDEST.version
        if feature.change is not None and not self.events.get(feature.change, True):
            event_type, key = EVENT_FIELDS[feature.change]
            missing.append(f"`{key}` on `{event_type}`")
            since = change(feature.change).since
        if not missing:
            return FeatureStatus(feature.id, True, feature.what)
        return FeatureStatus(feature.id, False, feature.what, _join(missing), since)

    def conversation_problem(self) -> str | None:
        """One sentence when this Pi's RPC cannot carry a conversation (a command it lacks), else None."""
        status = self.feature("conversation")
        if status.available:
            return None
        return (
            f"Pi {self.pi_version} cannot hold a conversation in the chat: its RPC mode lacks {status.missing} "
            f"(Pi {status.since} and later have it)"
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "piVersion": self.pi_version,
            "features": [status.to_json() for status in self.features()],
            "commands": dict(sorted(self.commands.items())),
            "stateFields": list(self.state_fields),
        }


def _join(parts: Iterable[str]) -> str:
    items = list(parts)
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


async def probe_command(pi: PiCommands, command: Mapping[str, Any], timeout: float = PROBE_TIMEOUT_S) -> CommandState:
    """``present`` when Pi answers the probe in any way but ``Unknown command``; ``assumed`` when it cannot tell."""
    try:
        await pi.request(dict(command), timeout=timeout)
    except PiCommandError as error:
        return "missing" if is_unknown_command(error) else "present"
    except PiRpcError:
        return "assumed"  # no answer (Pi busy or gone): nothing learned
    return "present"


async def detect(
    pi: PiCommands,
    pi_version: str,
    state: Mapping[str, Any] | None,
    *,
    timeout: float = PROBE_TIMEOUT_S,
) -> ChatCapabilities:
    """Probe the running Pi (the probes run together; each is bounded by ``timeout``)."""
    found = ChatCapabilities.expected(pi_version, state)
    probes = dict(PROBES)
    if state is not None and state.get("messageCount") == 0:
        probes["get_messages"] = {"type": "get_messages"}  # cheap while the session is empty
    names = list(probes)
    answers = await asyncio.gather(*(probe_command(pi, probes[name], timeout) for name in names))
    for name, answer in zip(names, answers, strict=True):
        found.commands[name] = answer
    return found
