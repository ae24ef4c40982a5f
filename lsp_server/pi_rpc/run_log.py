"""What a client that attaches in the middle of a run must be shown again: Pi's records since the last message.

Pi's ``get_messages`` answers the messages that have *ended* (Pi adds a message to its state at
``message_end``). A client that attaches while Pi works (a new window after a reload, a view that
was closed) rebuilds the conversation from that answer, and then needs what is going on right now:
the reply being streamed (its ``message_start`` and deltas), the tools that are running (their
start and latest output), a retry or a compaction under way, the steering queue, and a dialog of a
Pi extension that waits for an answer. That is this log, folded record by record:

* ``message_end`` clears it, except for tools still running and dialogs still waiting: the message
  that ended is in ``get_messages`` from now on;
* ``agent_settled`` clears it (dialogs excepted): nothing is going on any more;
* a ``tool_execution_update`` replaces the previous one of the same call (Pi sends the whole
  output so far each time), a ``queue_update`` the previous queue;
* ``compaction_end`` removes its ``compaction_start``: the summary is in ``get_messages`` (a failed
  one is kept, since only it says why);
* ``turn_end``, ``agent_end`` and ``entry_appended`` are not kept: they repeat what the messages
  and the session file hold;
* a dialog (``extension_ui_request`` with ``select``, ``confirm``, ``input`` or ``editor``) stays
  until a client answers it (:meth:`RunLog.answered`).

It is bounded: past ``max_size`` (a size the caller measures, bytes for the keeper) the oldest
pieces of the reply in progress go first, then the oldest of anything but a waiting dialog, and
``truncated`` says so. The view then opens the reply at the first delta it gets, and shows it whole
at ``message_end``. The items are the caller's own (a raw line, a parsed record): the log only needs
each record's type and the ids it folds by.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final, Generic, TypeVar

T = TypeVar("T")

DIALOG_METHODS: Final = frozenset({"select", "confirm", "input", "editor"})
NOT_KEPT: Final = frozenset({"turn_end", "agent_end", "entry_appended", "message_end", "agent_settled"})
STREAMED: Final = frozenset({"message_start", "message_update"})


@dataclass(frozen=True)
class RecordKey:
    """What the log folds a record by."""

    type: str
    tool_call_id: str | None = None
    ui_id: str | None = None
    dialog: bool = False
    succeeded: bool = False  # a compaction_end with a result

    @classmethod
    def of(cls, record: Mapping[str, Any]) -> RecordKey:
        kind = record.get("type")
        call = record.get("toolCallId")
        ui_id = record.get("id") if kind == "extension_ui_request" else None
        return cls(
            type=kind if isinstance(kind, str) else "",
            tool_call_id=call if isinstance(call, str) else None,
            ui_id=ui_id if isinstance(ui_id, str) else None,
            dialog=kind == "extension_ui_request" and record.get("method") in DIALOG_METHODS,
            succeeded=kind == "compaction_end" and isinstance(record.get("result"), dict),
        )


@dataclass
class _Entry(Generic[T]):
    key: RecordKey
    item: T
    size: int


class RunLog(Generic[T]):
    """The records a client attaching now must replay after ``get_messages``, in Pi's order."""

    def __init__(self, max_size: int) -> None:
        if max_size < 1:
            raise ValueError("max_size must be positive")
        self.max_size = max_size
        self.truncated = False
        self._entries: list[_Entry[T]] = []
        self._size = 0
        self._ended_tools: set[str] = set()

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def size(self) -> int:
        return self._size

    def items(self) -> list[T]:
        return [entry.item for entry in self._entries]

    def add(self, key: RecordKey, item: T, size: int = 1) -> None:
        """Fold one record Pi wrote (``item`` is kept as given, ``size`` counted against the bound)."""
        kind = key.type
        if kind == "message_end":
            self._keep(lambda e: e.key.dialog or self._running_tool(e))
            self._ended_tools.clear()
            return
        if kind == "agent_settled":
            self._keep(lambda e: e.key.dialog)
            self._ended_tools.clear()
            self.truncated = False
            return
        if kind in NOT_KEPT:
            return
        if kind == "compaction_end":
            self._keep(lambda e: e.key.type != "compaction_start")
            if key.succeeded:
                return  # the summary is in get_messages; a failure is said only here
        if kind == "tool_execution_update" and key.tool_call_id is not None:
            self._keep(lambda e: not (e.key.type == kind and e.key.tool_call_id == key.tool_call_id))
        elif kind == "tool_execution_end" and key.tool_call_id is not None:
            self._ended_tools.add(key.tool_call_id)
            self._keep(lambda e: not (e.key.type == "tool_execution_update" and e.key.tool_call_id == key.tool_call_id))
        elif kind == "queue_update":
            self._keep(lambda e: e.key.type != kind)
        self._entries.append(_Entry(key, item, size))
        self._size += size
        self._bound()

    def answered(self, ui_id: str) -> None:
        """A client answered the dialog ``ui_id``: a client attaching later must not be asked again."""
        self._keep(lambda e: not (e.key.dialog and e.key.ui_id == ui_id))

    def clear(self) -> None:
        self._entries = []
        self._size = 0
        self._ended_tools.clear()
        self.truncated = False

    def _running_tool(self, entry: _Entry[T]) -> bool:
        call = entry.key.tool_call_id
        return (
            entry.key.type in ("tool_execution_start", "tool_execution_update")
            and call is not None
            and call not in self._ended_tools
        )

    def _keep(self, wanted: Callable[[_Entry[T]], bool]) -> None:
        kept = [entry for entry in self._entries if wanted(entry)]
        if len(kept) != len(self._entries):
            self._entries = kept
            self._size = sum(entry.size for entry in kept)

    def _bound(self) -> None:
        if self._size <= self.max_size:
            return
        self.truncated = True
        # The oldest pieces of the streamed reply first, then the oldest of anything but a waiting dialog.
        rules: tuple[Callable[[_Entry[T]], bool], ...] = (lambda e: e.key.type in STREAMED, lambda e: not e.key.dialog)
        for droppable in rules:
            kept: list[_Entry[T]] = []
            for entry in self._entries:
                if self._size > self.max_size and droppable(entry):
                    self._size -= entry.size
                else:
                    kept.append(entry)
            self._entries = kept
            if self._size <= self.max_size:
                return
