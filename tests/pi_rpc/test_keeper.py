"""Pi under a keeper (lsp_server/pi_rpc/keeper.py, kept.py) against the stand-in peer: real processes, real sockets.

The peer (tests/support/fake_pi_rpc.py) plays Pi; ``emit`` and ``schedule`` make it write a run's
records now or a little later, as if Pi worked on by itself. What is checked is the keeper's
promise: the same protocol as a child Pi, an idle Pi ended at once when its client goes, a busy one
kept and replayed to the next client, ended after the grace period, and nothing left behind,
whatever is killed.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import stat
import sys
import tempfile
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from lsp_server.pi_rpc import PiExit, PiExitedError, PiStartError
from lsp_server.pi_rpc.keeper_files import KeeperDirError, ensure_private_dir, read_records, sweep_stale
from lsp_server.pi_rpc.kept import KeeperBusy, KeepOptions, KeptPi
from lsp_server.pi_rpc.reaper import marked_pids
from tests.pi_rpc.conftest import LINUX, WAIT_S, alive, poll

pytestmark = pytest.mark.skipif(not LINUX, reason="keepers are POSIX; the checks read /proc")

FAKE_PEER = Path(__file__).resolve().parents[1] / "support" / "fake_pi_rpc.py"

RUN_START = [
    '{"type":"agent_start"}',
    '{"type":"turn_start"}',
    '{"type":"message_start","message":{"role":"user","content":"go"}}',
    '{"type":"message_end","message":{"role":"user","content":"go"}}',
    '{"type":"message_start","message":{"role":"assistant","content":[]}}',
    '{"type":"message_update","assistantMessageEvent":{"type":"text_delta","contentIndex":0,"delta":"Hel"}}',
]
MORE = '{"type":"message_update","assistantMessageEvent":{"type":"text_delta","contentIndex":0,"delta":"lo"}}'
SETTLED = '{"type":"agent_settled","aborted":false}'


@dataclass
class Client:
    process: KeptPi
    events: list[dict[str, Any]] = field(default_factory=list)
    exits: list[PiExit] = field(default_factory=list)
    problems: list[Any] = field(default_factory=list)


@dataclass
class Keepers:
    folder: Path
    clients: list[Client] = field(default_factory=list)

    def options(self, grace_s: float = 30.0, turn_limit_s: float = 60.0) -> KeepOptions:
        return KeepOptions(self.folder, grace_s=grace_s, turn_limit_s=turn_limit_s)

    def callbacks(self, client: Client) -> dict[str, Any]:
        return {"on_event": client.events.append, "on_exit": client.exits.append, "on_problem": client.problems.append}

    async def start(
        self, argv: list[str] | None = None, ready_timeout_s: float | None = None, **options: Any
    ) -> Client:
        client = Client(process=None)  # type: ignore[arg-type]
        client.process = await KeptPi.start(
            argv or [sys.executable, str(FAKE_PEER)],
            self.options(**options),
            cwd=os.getcwd(),
            env=os.environ,
            ready_timeout_s=ready_timeout_s,
            **self.callbacks(client),
        )
        self.clients.append(client)
        return client

    async def attach(self, **options: Any) -> Client:
        (record,) = read_records(self.folder)
        client = Client(process=None)  # type: ignore[arg-type]
        client.process = await KeptPi.attach(
            self.folder, record, ready_timeout_s=None, **options, **self.callbacks(client)
        )
        self.clients.append(client)
        return client


def gone(pid: int) -> bool:
    return not alive(pid)


@pytest.fixture
def folder() -> Iterator[Path]:
    base = Path(tempfile.mkdtemp(prefix="pck", dir="/tmp"))  # short: a socket path has ~100 bytes
    yield ensure_private_dir(base / "keepers")
    shutil.rmtree(base, ignore_errors=True)


@pytest.fixture
async def keepers(folder: Path) -> AsyncIterator[Keepers]:
    kept = Keepers(folder)
    yield kept
    for client in kept.clients:
        if client.process.exit is None:
            await asyncio.wait_for(client.process.close(), WAIT_S)
    for record in read_records(folder):  # a test that left a keeper running fails, and leaves nothing
        os.killpg(record.keeper_pid, signal.SIGKILL)
        pytest.fail(f"a keeper was left running: {record}")


async def run_going(client: Client) -> None:
    await client.process.request({"type": "emit", "lines": RUN_START})


async def test_a_kept_pi_speaks_the_protocol_of_a_child_pi_and_ends_in_order(keepers: Keepers) -> None:
    client = await keepers.start()
    process = client.process
    assert process.record is not None and process.record.state == "attached" and alive(process.pid)
    answer = await process.request({"type": "echo", "payload": ["é", "\u2028"]})
    assert answer["payload"] == ["é", "\u2028"] and answer["id"].startswith("pc-")
    await run_going(client)
    assert [e["type"] for e in client.events] == [json.loads(line)["type"] for line in RUN_START]
    pi, keeper = process.pid, process.keeper_pid
    exit_ = await process.close()
    assert exit_.expected and exit_.returncode == 0 and client.exits == [exit_]
    await poll(lambda: gone(pi) and gone(keeper))
    assert read_records(keepers.folder) == [] and os.listdir(keepers.folder) == []


async def test_the_keepers_folder_and_socket_are_private(keepers: Keepers) -> None:
    client = await keepers.start()
    assert stat.S_IMODE(os.stat(keepers.folder).st_mode) == 0o700
    record = client.process.record
    assert record is not None
    assert stat.S_IMODE(os.stat(record.socket_path(keepers.folder)).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(keepers.folder / f"{record.keeper_id}.json").st_mode) == 0o600
    os.chmod(keepers.folder, 0o755)
    with pytest.raises(KeeperDirError, match="must be 0700"):
        ensure_private_dir(keepers.folder)
    os.chmod(keepers.folder, 0o700)


async def test_an_idle_pi_ends_at_once_when_its_server_lets_go(keepers: Keepers) -> None:
    client = await keepers.start()
    pi, keeper = client.process.pid, client.process.keeper_pid
    assert await client.process.release() is False
    await poll(lambda: gone(pi) and gone(keeper))
    assert client.exits and client.exits[0].expected
    assert read_records(keepers.folder) == []


async def test_a_busy_pi_keeps_running_and_the_next_server_gets_the_run_replayed_then_live(keepers: Keepers) -> None:
    first = await keepers.start()
    await run_going(first)
    await first.process.request({"type": "schedule", "onSignal": True, "lines": [MORE, SETTLED]})
    pi = first.process.pid
    assert await first.process.release() is True
    assert first.exits == []  # letting go of a Pi that keeps running is not its exit
    (record,) = read_records(keepers.folder)
    assert record.state == "detached" and record.busy and alive(pi)
    second = await keepers.attach()
    assert second.process.pid == pi and second.process.reattached
    os.kill(pi, signal.SIGUSR1)  # the run goes on only now: what came before the attach is the replay
    # The replay: what the view needs on top of get_messages, i.e. the reply being streamed (the user
    # message has ended, so it is in get_messages and not replayed).
    replayed = [e["type"] for e in second.events[: second.process.replayed]]
    assert replayed == ["message_start", "message_update"]
    assert second.events[1]["assistantMessageEvent"]["delta"] == "Hel"
    await poll(lambda: any(e["type"] == "agent_settled" for e in second.events))
    assert second.events[-2]["assistantMessageEvent"]["delta"] == "lo"  # then live, in Pi's order
    assert (await second.process.request({"type": "echo"}))["type"] == "echo"


async def test_after_the_run_settles_with_nobody_attached_the_grace_ends_pi_and_the_keeper(keepers: Keepers) -> None:
    client = await keepers.start(grace_s=0.3)
    await run_going(client)
    await client.process.request({"type": "schedule", "onSignal": True, "lines": [MORE, SETTLED]})
    pi, keeper = client.process.pid, client.process.keeper_pid
    assert await client.process.release() is True
    os.kill(pi, signal.SIGUSR1)  # the run settles with nobody attached
    await poll(lambda: gone(pi) and gone(keeper))
    assert read_records(keepers.folder) == [] and os.listdir(keepers.folder) == []


async def test_a_run_detached_for_longer_than_the_turn_limit_is_aborted_then_ended(keepers: Keepers) -> None:
    client = await keepers.start(grace_s=0.2, turn_limit_s=0.3)
    await run_going(client)  # nothing will settle this run but the keeper's abort
    pi, keeper = client.process.pid, client.process.keeper_pid
    assert await client.process.release() is True
    await poll(lambda: gone(pi) and gone(keeper))
    assert read_records(keepers.folder) == []


async def test_a_second_server_is_refused_while_one_is_attached(keepers: Keepers) -> None:
    first = await keepers.start()
    with pytest.raises(KeeperBusy, match="another window"):
        await keepers.attach(busy_wait_s=0.2)
    assert (await first.process.request({"type": "echo"}))["type"] == "echo"  # the first is undisturbed


async def test_a_server_refused_while_the_last_one_lets_go_gets_in_with_pi_alive(keepers: Keepers) -> None:
    """A reloaded window's server can reach the keeper before the old one has let go: it is refused (busy)
    and tries again. A refused attempt's end is not Pi's exit: the attempt that gets in has a live Pi."""
    first = await keepers.start()
    await run_going(first)
    second = asyncio.ensure_future(keepers.attach(busy_wait_s=WAIT_S))
    await asyncio.sleep(0.5)  # refused a few times meanwhile (one attempt every 0.1 s)
    assert not second.done()
    assert await first.process.release() is True
    client = await asyncio.wait_for(second, WAIT_S)
    assert client.exits == [] and client.process.exit is None and client.process.pid == first.process.pid
    assert (await client.process.request({"type": "echo"}))["type"] == "echo"


async def test_an_answer_meant_for_a_server_that_left_never_reaches_the_next(keepers: Keepers) -> None:
    first = await keepers.start()
    await run_going(first)
    late = asyncio.ensure_future(first.process.request({"type": "later", "delay": 0.6}))
    await asyncio.sleep(0)  # the command is written before the release
    assert await first.process.release() is True
    with pytest.raises(PiExitedError):
        await late
    second = await keepers.attach()
    answers = await asyncio.gather(*(second.process.request({"type": "later", "delay": 0.8}) for _ in range(2)))
    assert answers == [{"late": True}, {"late": True}]
    assert second.problems == []  # the first server's late answer was dropped by the keeper, not misdelivered


async def test_killing_the_keeper_ends_pi_and_the_server_hears_it(keepers: Keepers) -> None:
    client = await keepers.start()
    await run_going(client)
    pi, keeper, token = client.process.pid, client.process.keeper_pid, client.process.owner_token
    os.kill(keeper, signal.SIGKILL)
    await poll(lambda: bool(client.exits))
    assert "the keeper holding Pi ended" in client.exits[0].message and not client.exits[0].expected
    await poll(lambda: gone(pi) and marked_pids(token) == [])  # Pi ended on its stdin's EOF
    # The killed keeper could not remove its files: the next server's sweep does.
    (stale,) = sweep_stale(keepers.folder)
    assert stale.pi_pid == pi and read_records(keepers.folder) == [] and os.listdir(keepers.folder) == []


async def test_a_pi_that_cannot_start_is_reported_with_its_reason(keepers: Keepers, tmp_path: Path) -> None:
    with pytest.raises(PiStartError, match="was not found"):
        await keepers.start([str(tmp_path / "no-such-pi")])
    crash = [sys.executable, "-c", "import sys; sys.stderr.write('Error: Unknown option: --mode\\n'); sys.exit(3)"]
    with pytest.raises(PiExitedError, match="Unknown option"):
        await keepers.start(crash, ready_timeout_s=WAIT_S)  # as a chat starts Pi: it waits for get_state
    await poll(lambda: read_records(keepers.folder) == [] and os.listdir(keepers.folder) == [])
