"""Where Pi cuts a conversation for compaction: cut points, turn starts, and the token walk.

Compaction keeps the newest ``keepRecentTokens`` worth of conversation verbatim and summarizes
what came before. The boundary is not arbitrary: Pi only cuts *before* a message the model can
start reading from (a user, assistant, bash, custom or summary message, never a tool result,
which must follow its tool call), and it remembers whether the cut falls inside a turn (after the
user message that started it), because then the beginning of that turn is summarized separately.

Two variants exist in Pi 1.6.0 and both are reproduced:

* :func:`find_cut_point` works on raw session entries (Pi's exported ``findCutPoint``; the
  algorithm 0.85 used for compaction), each entry standing for the messages it would project to;
* :func:`find_projected_cut_point` works on the projected entries of the current context (what
  ``prepareCompaction`` uses): context edits already applied, older compactions contributing
  nothing. It adds one rule: an abandoned recovery attempt that a context edit omitted is kept
  after the cut rather than summarized.

Both share :func:`_find_cut`, which reads every item as "a source entry and the messages it
contributes". Token counts are Pi's ``estimateTokens`` (``ceil(chars / 4)``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from lsp_server.js.values import js_get
from lsp_server.session.estimates import estimate_tokens
from lsp_server.session.messages import Message
from lsp_server.session.projection import ProjectedEntry, entry_to_context_messages
from lsp_server.session.raw import Entry

CUT_POINT_ROLES: Final = frozenset(
    {"user", "assistant", "bashExecution", "custom", "branchSummary", "compactionSummary"}
)
"""Roles a kept range may start with (never ``toolResult``: it must follow its call; never ``system``)."""

TURN_START_ROLES: Final = CUT_POINT_ROLES - {"assistant"}
"""Roles that open a turn: the user (or something speaking for the user) talks."""


@dataclass(frozen=True)
class CutPoint:
    """Pi's ``CutPointResult``: the first kept index, and the turn start when the cut splits a turn."""

    first_kept_entry_index: int
    turn_start_index: int  # -1 unless the cut splits a turn
    is_split_turn: bool

    def to_json(self) -> dict[str, Any]:
        return {
            "firstKeptEntryIndex": self.first_kept_entry_index,
            "turnStartIndex": self.turn_start_index,
            "isSplitTurn": self.is_split_turn,
        }


def _role(message: Any) -> str | None:
    """The role when it is a string. Pi switches on it, so any other value (an object, a number)
    matches no role; here it must not reach a set lookup, where an object is unhashable."""
    role = js_get(message, "role")
    return role if isinstance(role, str) else None


def is_cut_point_message(message: Any) -> bool:
    return _role(message) in CUT_POINT_ROLES


def is_turn_start_message(message: Any) -> bool:
    return _role(message) in TURN_START_ROLES


def _is_compaction(entry: Any) -> bool:
    return bool(js_get(entry, "type") == "compaction")


class _Items:
    """Source entries and their messages, computed once per index (the walk reads each many times)."""

    def __init__(self, count: int, source: Callable[[int], Entry], messages: Callable[[int], list[Message]]) -> None:
        self.count = count
        self._source = source
        self._messages = messages
        self._cache: dict[int, list[Message]] = {}

    def source(self, index: int) -> Entry:
        return self._source(index)

    def messages(self, index: int) -> list[Message]:
        cached = self._cache.get(index)
        if cached is None:
            cached = self._messages(index)
            self._cache[index] = cached
        return cached

    def is_turn_start(self, index: int) -> bool:
        if _is_compaction(self.source(index)):
            return False
        return any(is_turn_start_message(m) for m in self.messages(index))

    def turn_start_before(self, index: int, start: int) -> int:
        for i in range(index, start - 1, -1):
            if self.is_turn_start(i):
                return i
        return -1


def _find_cut(
    items: _Items, start: int, end: int, keep_recent_tokens: float, adjust: Callable[[int, bool], int] | None = None
) -> CutPoint:
    cut_points = [
        i
        for i in range(start, end)
        if not _is_compaction(items.source(i)) and any(is_cut_point_message(m) for m in items.messages(i))
    ]
    if not cut_points:
        return CutPoint(start, -1, False)
    accumulated = 0
    exceeded = False
    cut = cut_points[0]
    for i in range(end - 1, start - 1, -1):
        tokens = sum(estimate_tokens(m) for m in items.messages(i))
        if tokens == 0:
            continue
        accumulated += tokens
        if accumulated >= keep_recent_tokens:
            exceeded = True
            # The closest cut point at or after the crossing; trailing tool results that alone exceed
            # the budget keep their assistant call (the last cut point) rather than everything.
            cut = next((c for c in cut_points if c >= i), cut_points[-1])
            break
    if adjust is not None:
        cut = adjust(cut, exceeded)
    # Walk back over metadata entries just before the cut (they project to nothing).
    while cut > start:
        previous = cut - 1
        if _is_compaction(items.source(previous)) or items.messages(previous):
            break
        cut = previous
    if items.is_turn_start(cut):
        return CutPoint(cut, -1, False)
    turn_start = items.turn_start_before(cut, start)
    return CutPoint(cut, turn_start, turn_start != -1)


def _raw_items(entries: Sequence[Entry]) -> _Items:
    return _Items(len(entries), lambda i: entries[i], lambda i: entry_to_context_messages(entries[i]))


def find_turn_start_index(entries: Sequence[Entry], entry_index: int, start_index: int) -> int:
    """Pi's ``findTurnStartIndex``: the nearest entry at or before ``entry_index`` that opens a turn, or -1."""
    return _raw_items(entries).turn_start_before(entry_index, start_index)


def find_cut_point(entries: Sequence[Entry], start_index: int, end_index: int, keep_recent_tokens: float) -> CutPoint:
    """Pi's exported ``findCutPoint`` over raw entries in ``[start_index, end_index)``."""
    return _find_cut(_raw_items(entries), start_index, end_index, keep_recent_tokens)


def _is_intrinsically_visible(item: ProjectedEntry) -> bool:
    """An entry that would reach the model if no context edit touched it (edits themselves excluded)."""
    source = item.source_entry
    return js_get(source, "type") != "context_edit" and bool(entry_to_context_messages(source))


def _is_omitted(item: ProjectedEntry) -> bool:
    """Visible by nature, but a context edit removed all of its messages."""
    return _is_intrinsically_visible(item) and not item.messages


def is_recovery_omission_suffix(suffix: Sequence[ProjectedEntry]) -> bool:
    """Pi 1.6.0's rule for an abandoned, omitted recovery attempt after the cut.

    True when the suffix contains an assistant message a context edit omitted, everything else in
    it is invisible by nature or omitted too, none of it is a compaction, and no context edit in it
    replaces (rather than omits) something outside the omitted set.
    """
    omitted_ids = {js_get(item.source_entry, "id") for item in suffix if _is_omitted(item) and _hashable(item)}
    for item in suffix:
        source = item.source_entry
        if js_get(source, "type") == "context_edit" and js_get(source, "replacement") is not None:
            target = js_get(source, "targetId")
            try:
                if target not in omitted_ids:
                    return False
            except TypeError:
                return False
    has_omitted_assistant = any(
        js_get(item.source_entry, "type") == "message"
        and js_get(js_get(item.source_entry, "message"), "role") == "assistant"
        and _is_omitted(item)
        for item in suffix
    )
    if not has_omitted_assistant:
        return False
    return all(
        not _is_compaction(item.source_entry) and (not _is_intrinsically_visible(item) or _is_omitted(item))
        for item in suffix
    )


def _hashable(item: ProjectedEntry) -> bool:
    try:
        hash(js_get(item.source_entry, "id"))
    except TypeError:
        return False
    return True


def find_projected_cut_point(
    projected: Sequence[ProjectedEntry], start_index: int, end_index: int, keep_recent_tokens: float
) -> CutPoint:
    """The cut ``prepareCompaction`` uses: over projected entries, with the recovery-attempt rule."""
    items = _Items(len(projected), lambda i: projected[i].source_entry, lambda i: projected[i].messages)

    def adjust(cut: int, exceeded: bool) -> int:
        if exceeded and is_recovery_omission_suffix(projected[cut + 1 : end_index]):
            return cut + 1
        return cut

    return _find_cut(items, start_index, end_index, keep_recent_tokens, adjust)
