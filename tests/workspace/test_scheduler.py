"""The per-file scheduler: at once when quiet, latest wins in a burst, never two runs of a file at once."""

from __future__ import annotations

import asyncio
import itertools

from lsp_server.workspace.scheduler import DebouncedScheduler

WAIT_S = 30.0


class FakeClock:
    """The scheduler's clock, moved by the test: a job 'takes' as long as the test says."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def settle(rounds: int = 20) -> None:
    for _ in range(rounds):
        await asyncio.sleep(0)


async def test_a_submission_for_a_quiet_key_runs_at_once_not_after_the_debounce() -> None:
    scheduler = DebouncedScheduler(delay_s=600)  # a debounce that would time the test out
    ran: list[str] = []
    scheduler.submit("SKILL.md", lambda: ran.append("checked"))
    await asyncio.wait_for(scheduler.idle(), WAIT_S)
    assert ran == ["checked"]
    assert (scheduler.stats.immediate, scheduler.stats.coalesced) == (1, 0)


async def test_500_rapid_submissions_end_in_one_run_of_the_latest_version() -> None:
    clock = FakeClock()
    scheduler = DebouncedScheduler(delay_s=0.2, clock=clock)
    validated: list[int] = []

    def check(version: int) -> None:
        clock.now += 0.002  # each check takes 2 ms
        validated.append(version)

    for version in range(1, 501):
        scheduler.submit("SKILL.md", lambda v=version: check(v))
        await asyncio.sleep(0)  # let the loop run between edits, as a server does
    await asyncio.wait_for(scheduler.idle(), WAIT_S)
    # the first edit is checked at once; the other 499 arrived faster than checks finish
    assert validated == [1, 500]
    assert scheduler.stats.immediate == 1 and scheduler.stats.coalesced == 499
    assert (scheduler.stats.submitted, scheduler.stats.superseded, scheduler.stats.completed) == (500, 498, 2)


async def test_an_edit_after_the_last_check_has_ended_for_longer_than_it_took_runs_at_once() -> None:
    clock = FakeClock()
    scheduler = DebouncedScheduler(delay_s=600, clock=clock)
    validated: list[int] = []

    def check(version: int) -> None:
        clock.now += 0.002
        validated.append(version)

    for version in range(1, 4):  # typing: each keystroke comes 50 ms after the previous check ended
        scheduler.submit("SKILL.md", lambda v=version: check(v))
        await asyncio.wait_for(scheduler.idle(), WAIT_S)
        clock.now += 0.05
    assert validated == [1, 2, 3]
    assert (scheduler.stats.immediate, scheduler.stats.coalesced) == (3, 0)


async def test_a_burst_that_goes_on_still_runs_once_per_debounce() -> None:
    clock = FakeClock()
    scheduler = DebouncedScheduler(delay_s=0.1, clock=clock)  # debounceMs 100: the longest wait in a burst
    validated: list[int] = []

    def check(version: int) -> None:
        clock.now += 0.002
        validated.append(version)

    for version in range(1, 1001):  # one edit per millisecond for a second, never a pause
        scheduler.submit("SKILL.md", lambda v=version: check(v))
        await asyncio.sleep(0)
        clock.now += 0.001
    await asyncio.wait_for(scheduler.idle(), WAIT_S)
    assert validated[0] == 1 and validated[-1] == 1000
    assert validated == sorted(validated)
    # no edit waited more than 100 ms (+ one check) for a run that saw it
    gaps = [later - earlier for earlier, later in itertools.pairwise(validated)]
    assert max(gaps) <= 103
    assert 9 <= len(validated) <= 12


async def test_a_zero_debounce_never_holds_a_burst_back() -> None:
    clock = FakeClock()
    scheduler = DebouncedScheduler(delay_s=0, clock=clock)
    validated: list[int] = []

    def check(version: int) -> None:
        clock.now += 0.002
        validated.append(version)

    for version in range(1, 6):
        scheduler.submit("SKILL.md", lambda v=version: check(v))
        await settle()
    await asyncio.wait_for(scheduler.idle(), WAIT_S)
    assert validated == [1, 2, 3, 4, 5]


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


async def test_submit_many_runs_every_key_once_and_lets_other_work_in_between() -> None:
    scheduler = DebouncedScheduler(delay_s=600)
    log: list[object] = []
    scheduler.submit_many((f"k{n}", lambda n=n: log.append(n)) for n in range(100))

    async def other() -> None:  # a request arriving while the workspace is checked
        await asyncio.sleep(0)
        log.append("other")

    await asyncio.gather(other(), asyncio.wait_for(scheduler.idle(), WAIT_S))
    assert [x for x in log if x != "other"] == list(range(100))
    assert log.index("other") < 10  # answered between two checks, not after all hundred
    assert scheduler.pending_keys() == []


async def test_idle_waits_for_the_backlog() -> None:
    scheduler = DebouncedScheduler(delay_s=600)
    ran: list[int] = []
    scheduler.submit_many((f"k{n}", lambda n=n: ran.append(n)) for n in range(20))
    assert scheduler.pending_keys()[:2] == ["k0", "k1"]
    await asyncio.wait_for(scheduler.idle(), WAIT_S)
    assert ran == list(range(20))
