"""The per-file scheduler: latest wins, one run per pause, never two runs of a file at once."""

from __future__ import annotations

import asyncio

from lsp_server.server.scheduler import DebouncedScheduler

WAIT_S = 30.0


async def test_500_rapid_submissions_run_once_with_the_latest_version() -> None:
    scheduler = DebouncedScheduler(delay_s=0.2)
    validated: list[int] = []
    for version in range(1, 501):
        scheduler.submit("SKILL.md", lambda v=version: validated.append(v))
        await asyncio.sleep(0)  # let the loop run between edits, as a server does
    await asyncio.wait_for(scheduler.idle(), WAIT_S)
    assert validated == [500]
    assert (scheduler.stats.submitted, scheduler.stats.superseded, scheduler.stats.completed) == (500, 499, 1)


async def test_keys_are_debounced_independently() -> None:
    scheduler = DebouncedScheduler(delay_s=0.01)
    ran: list[str] = []
    for key in ("a", "b", "a"):
        scheduler.submit(key, lambda k=key: ran.append(k))
    await asyncio.wait_for(scheduler.idle(), WAIT_S)
    assert sorted(ran) == ["a", "b"]


async def test_work_for_a_running_key_waits_and_then_runs_once() -> None:
    scheduler = DebouncedScheduler(delay_s=0)
    release = asyncio.Event()
    started = asyncio.Event()
    log: list[str] = []

    async def slow() -> None:
        log.append("slow start")
        started.set()
        await release.wait()
        log.append("slow end")

    scheduler.submit("k", slow)
    await asyncio.wait_for(started.wait(), WAIT_S)
    for n in range(3):
        scheduler.submit("k", lambda n=n: log.append(f"next {n}"))
    for _ in range(20):  # zero-delay timers fire within a loop iteration: a concurrent run would start here
        await asyncio.sleep(0)
    assert log == ["slow start"]
    release.set()
    await asyncio.wait_for(scheduler.idle(), WAIT_S)
    assert log == ["slow start", "slow end", "next 2"]


async def test_a_failing_job_is_reported_and_the_next_one_runs() -> None:
    errors: list[tuple[str, BaseException]] = []
    scheduler = DebouncedScheduler(delay_s=0, on_error=lambda key, exc: errors.append((key, exc)))

    def broken() -> None:
        raise ValueError("bad file")

    scheduler.submit("bad", broken)
    await asyncio.wait_for(scheduler.idle(), WAIT_S)
    ran: list[str] = []
    scheduler.submit("bad", lambda: ran.append("again"))
    await asyncio.wait_for(scheduler.idle(), WAIT_S)
    assert [(key, str(exc)) for key, exc in errors] == [("bad", "bad file")]
    assert ran == ["again"]
    assert scheduler.stats.failed == 1


async def test_cancel_drops_waiting_work() -> None:
    scheduler = DebouncedScheduler(delay_s=0.05)
    ran: list[str] = []
    scheduler.submit("k", lambda: ran.append("k"))
    scheduler.cancel("k")
    await asyncio.wait_for(scheduler.idle(), WAIT_S)
    assert ran == []
    assert scheduler.pending_keys() == []


async def test_close_drops_everything_and_ignores_later_work() -> None:
    scheduler = DebouncedScheduler(delay_s=0.05)
    ran: list[str] = []
    scheduler.submit("k", lambda: ran.append("k"))
    scheduler.close()
    scheduler.submit("k", lambda: ran.append("late"))
    await asyncio.wait_for(scheduler.idle(), WAIT_S)
    assert ran == []
