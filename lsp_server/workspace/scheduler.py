"""Per-file work that runs at once when it can and coalesces only while edits outrun the checks.

Typing sends a ``didChange`` per keystroke, a ``git checkout`` touches hundreds of files at once.
``DebouncedScheduler.submit(key, work)`` keeps only the latest work per key (one key per file):

* **at once** when the key is quiet: nothing waiting or running for it, and its last run ended
  longer ago than that run took. A check costs a few milliseconds, so one edit is re-checked at
  once instead of after a fixed pause;
* **coalesced** while edits arrive faster than checks finish: a submission arriving while the
  key's work runs replaces whatever waits and runs (once) right after it; one arriving hard on the
  heels of the last run (sooner than that run took) waits until submissions pause for
  ``max(2 × the last run's duration, 5 ms)``, so a flood of 500 edits ends in one run of the last;
* **bounded** by ``delay_s`` (``debounceMs``): during a burst no submission waits longer than
  that, even if the burst goes on (the run then takes the newest work, and the burst goes on).

``submit(..., delay_s=d)`` asks for a plain quiet-period debounce of ``d`` instead (0: at the next
loop iteration); the server uses it for the work it fans out itself (dependent files), which has
no editor waiting on it. ``submit_many`` queues work for many keys at once (the workspace check,
a ``git checkout``): one key is submitted per loop iteration, so requests that arrive meanwhile (a
hover, a completion) are answered between two checks instead of after thousands of them. Work
for the same key never runs twice at the same time.

A failing job is reported to ``on_error`` and forgotten; the scheduler, and the server, go on.
All methods must be called from the event loop's thread.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass

logger = logging.getLogger(__name__)

Work = Callable[[], Awaitable[object] | object]

MIN_QUIET_S = 0.005  # the shortest pause that ends a burst (reading one LSP message costs ~0.1 ms)
_LAST_RUNS_KEPT = 4096  # past this many remembered keys, the stale ones are dropped


@dataclass
class SchedulerStats:
    submitted: int = 0
    superseded: int = 0  # submissions dropped because a newer one for the same key came first
    completed: int = 0
    failed: int = 0
    immediate: int = 0  # submissions started at once (the key was quiet)
    coalesced: int = 0  # submissions that waited because a run for the key was running or had just ended


@dataclass
class _Slot:
    work: Work | None = None
    timer: asyncio.TimerHandle | None = None
    task: asyncio.Task[None] | None = None
    due: bool = False  # start again as soon as the running job ends
    burst_since: float | None = None  # when the oldest unserved coalesced submission arrived


class DebouncedScheduler:
    """Latest-wins per-key jobs on the running asyncio loop: at once when quiet, coalesced in bursts."""

    def __init__(
        self,
        delay_s: float = 0.15,
        on_error: Callable[[str, BaseException], None] | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.delay_s = delay_s  # the longest a submission waits during a burst
        self.stats = SchedulerStats()
        self._on_error = on_error
        self._clock = clock
        self._slots: dict[str, _Slot] = {}
        self._last_runs: dict[str, tuple[float, float]] = {}  # key -> (when its last run ended, how long it took)
        self._prune_at = _LAST_RUNS_KEPT
        self._backlog: deque[tuple[str, Work]] = deque()  # submit_many's keys, not yet submitted
        self._feeder: asyncio.Task[None] | None = None
        self._idle = asyncio.Event()
        self._idle.set()
        self._closed = False

    def submit(self, key: str, work: Work, *, delay_s: float | None = None) -> None:
        """Run ``work`` for ``key`` at once, or with the newest work once a burst of submissions pauses."""
        if self._closed:
            return
        slot = self._slots.setdefault(key, _Slot())
        if slot.work is not None:
            self.stats.superseded += 1
        self.stats.submitted += 1
        slot.work = work
        self._idle.clear()
        if delay_s is not None:
            self._arm(key, slot, delay_s)
            return
        now = self._clock()
        if slot.task is not None:  # running: take the newest work right after it
            self.stats.coalesced += 1
            slot.due = True
            return
        last_end, last_duration = self._last_runs.get(key, (float("-inf"), 0.0))
        hot = slot.timer is not None or now - last_end < last_duration
        if not hot:
            self.stats.immediate += 1
            slot.burst_since = None
            self._start(key, slot)
            return
        self.stats.coalesced += 1
        if slot.burst_since is None:
            slot.burst_since = now
        quiet = max(2 * last_duration, MIN_QUIET_S)
        wait = min(quiet, slot.burst_since + max(self.delay_s, 0.0) - now)
        if wait <= 0:  # the burst has waited as long as the debounce allows: run the newest work now
            if slot.timer is not None:
                slot.timer.cancel()
                slot.timer = None
            slot.burst_since = None
            self._start(key, slot)
            return
        self._arm(key, slot, wait)

    def submit_many(self, items: Iterable[tuple[str, Work]]) -> None:
        """Queue ``(key, work)`` pairs, submitted one per loop iteration (at once each, in order)."""
        if self._closed:
            return
        self._backlog.extend(items)
        if not self._backlog:
            return
        self._idle.clear()
        if self._feeder is None:
            self._feeder = asyncio.get_running_loop().create_task(self._feed(), name="pi-context backlog")

    async def _feed(self) -> None:
        try:
            while self._backlog:
                key, work = self._backlog.popleft()
                self.submit(key, work, delay_s=0)
                await asyncio.sleep(0)  # let the loop read and answer requests between two checks
        finally:
            self._feeder = None
            if not self._slots and not self._backlog:
                self._idle.set()

    def _arm(self, key: str, slot: _Slot, delay_s: float) -> None:
        slot.due = False
        if slot.timer is not None:
            slot.timer.cancel()
        slot.timer = asyncio.get_running_loop().call_later(max(delay_s, 0.0), self._on_due, key)

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
        slot.burst_since = None
        self._forget_if_done(key, slot)

    def pending_keys(self) -> list[str]:
        waiting = {key for key, slot in self._slots.items() if slot.work is not None}
        return sorted(waiting | {key for key, _ in self._backlog})

    async def idle(self) -> None:
        """Wait until no job is waiting or running."""
        await self._idle.wait()

    def close(self) -> None:
        """Cancel everything; later submissions are ignored (server shutdown)."""
        self._closed = True
        self._backlog.clear()
        if self._feeder is not None:
            self._feeder.cancel()
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
        slot.burst_since = None
        if slot.task is not None:
            slot.due = True
            return
        self._start(key, slot)

    def _start(self, key: str, slot: _Slot) -> None:
        if slot.work is None:
            self._forget_if_done(key, slot)
            return
        slot.due = False
        slot.task = asyncio.get_running_loop().create_task(self._run(key, slot), name=f"pi-context job {key}")

    async def _run(self, key: str, slot: _Slot) -> None:
        # the work is taken when the task starts, so submissions made before that replace it
        work, slot.work = slot.work, None
        began = self._clock()
        try:
            if work is not None:
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
            ended = self._clock()
            self._remember_run(key, ended, ended - began)
            if self._slots.get(key) is slot:
                if slot.due and slot.work is not None:
                    self._start(key, slot)
                else:
                    slot.due = False
                    self._forget_if_done(key, slot)

    def _remember_run(self, key: str, ended: float, duration: float) -> None:
        """Keep when each key last ran (to see bursts); runs older than a second no longer matter."""
        self._last_runs.pop(key, None)
        self._last_runs[key] = (ended, duration)
        if len(self._last_runs) > self._prune_at:  # amortised: the threshold doubles with what stays
            cutoff = ended - 1.0
            self._last_runs = {k: v for k, v in self._last_runs.items() if v[0] >= cutoff}
            self._prune_at = max(_LAST_RUNS_KEPT, 2 * len(self._last_runs))

    def _forget_if_done(self, key: str, slot: _Slot) -> None:
        if slot.work is None and slot.timer is None and slot.task is None and self._slots.get(key) is slot:
            del self._slots[key]
        if not self._slots and not self._backlog and self._feeder is None:
            self._idle.set()
