"""Debounced per-file work: however fast edits arrive, each file is processed once per pause.

Typing sends a ``didChange`` per keystroke, a ``git checkout`` touches hundreds of files at once.
``DebouncedScheduler.submit(key, work)`` keeps only the latest work per key (one key per file):
a submission replaces the one still waiting, and the timer restarts, so 500 rapid edits of one
SKILL.md run one validation of the last version. Work for the same key never runs twice at the
same time: a submission arriving while its predecessor runs waits for it, then runs (once).

A failing job is reported to ``on_error`` and forgotten; the scheduler, and the server, go on.
All methods must be called from the event loop's thread.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

logger = logging.getLogger(__name__)

Work = Callable[[], Awaitable[object] | object]


@dataclass
class SchedulerStats:
    submitted: int = 0
    superseded: int = 0  # submissions dropped because a newer one for the same key came first
    completed: int = 0
    failed: int = 0


@dataclass
class _Slot:
    work: Work | None = None
    timer: asyncio.TimerHandle | None = None
    task: asyncio.Task[None] | None = None
    due: bool = False  # the timer fired while the previous job was still running


class DebouncedScheduler:
    """Latest-wins, per-key debounced jobs on the running asyncio loop."""

    def __init__(self, delay_s: float = 0.15, on_error: Callable[[str, BaseException], None] | None = None) -> None:
        self.delay_s = delay_s
        self.stats = SchedulerStats()
        self._on_error = on_error
        self._slots: dict[str, _Slot] = {}
        self._idle = asyncio.Event()
        self._idle.set()
        self._closed = False

    def submit(self, key: str, work: Work, *, delay_s: float | None = None) -> None:
        """Run ``work`` for ``key`` after a quiet period, unless newer work for ``key`` comes first."""
        if self._closed:
            return
        loop = asyncio.get_running_loop()
        slot = self._slots.setdefault(key, _Slot())
        if slot.work is not None:
            self.stats.superseded += 1
        self.stats.submitted += 1
        slot.work = work
        slot.due = False
        if slot.timer is not None:
            slot.timer.cancel()
        delay = self.delay_s if delay_s is None else delay_s
        slot.timer = loop.call_later(max(delay, 0.0), self._on_due, key)
        self._idle.clear()

    def cancel(self, key: str) -> None:
        """Drop waiting work for ``key`` (a running job finishes)."""
        slot = self._slots.get(key)
        if slot is None:
            return
        if slot.timer is not None:
            slot.timer.cancel()
            slot.timer = None
        if slot.work is not None:
            slot.work = None
            self.stats.superseded += 1
        slot.due = False
        self._forget_if_done(key, slot)

    def pending_keys(self) -> list[str]:
        return sorted(key for key, slot in self._slots.items() if slot.work is not None)

    async def idle(self) -> None:
        """Wait until no job is waiting or running."""
        await self._idle.wait()

    def close(self) -> None:
        """Cancel everything; later submissions are ignored (server shutdown)."""
        self._closed = True
        for slot in self._slots.values():
            if slot.timer is not None:
                slot.timer.cancel()
            if slot.task is not None:
                slot.task.cancel()
        self._slots.clear()
        self._idle.set()

    def _on_due(self, key: str) -> None:
        slot = self._slots.get(key)
        if slot is None:
            return
        slot.timer = None
        if slot.task is not None:
            slot.due = True
            return
        self._start(key, slot)

    def _start(self, key: str, slot: _Slot) -> None:
        work, slot.work = slot.work, None
        if work is None:
            self._forget_if_done(key, slot)
            return
        slot.task = asyncio.get_running_loop().create_task(self._run(key, slot, work), name=f"pi-context job {key}")

    async def _run(self, key: str, slot: _Slot, work: Work) -> None:
        try:
            result = work()
            if inspect.isawaitable(result):
                await result
            self.stats.completed += 1
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            self.stats.failed += 1
            logger.exception("job for %s failed", key)
            if self._on_error is not None:
                try:
                    self._on_error(key, exc)
                except Exception:
                    logger.exception("error handler failed")
        finally:
            slot.task = None
            if self._slots.get(key) is slot:
                if slot.due:
                    slot.due = False
                    self._start(key, slot)
                else:
                    self._forget_if_done(key, slot)

    def _forget_if_done(self, key: str, slot: _Slot) -> None:
        if slot.work is None and slot.timer is None and slot.task is None and self._slots.get(key) is slot:
            del self._slots[key]
        if not self._slots:
            self._idle.set()
