"""Fixtures: the client on a stand-in peer (fast) and on the real Pi with the fake model behind it."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from lsp_server.pi_rpc import PiExit, PiRpcProcess, ProtocolProblem
from lsp_server.pi_rpc.keeper_files import pid_alive
from tests.support.fake_llm_server import FakeLlmServer
from tests.support.pi_agent import PiAgentDir, write_agent_dir
from tests.support.pi_for_tests import PiUnderTest, require_test_pi

FAKE_PEER = Path(__file__).resolve().parents[1] / "support" / "fake_pi_rpc.py"
PROBE_EXTENSION = Path(__file__).resolve().parent / "extensions" / "chat_probe.ts"
WAIT_S = 60.0  # a hang guard, never a timing assertion
LINUX = sys.platform.startswith("linux")


alive = pid_alive  # running: neither gone nor a zombie (the keeper's own test of a recorded pid)


def group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def command_line(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return ""


async def poll(condition: Callable[[], bool], *, timeout: float = WAIT_S) -> None:
    """Wait for a condition nothing signals (a process appearing or going); a hang guard, not a timing check."""
    async with asyncio.timeout(timeout):
        while not condition():
            await asyncio.sleep(0.05)


class EventLog:
    """Everything one process reported, in arrival order, and a way to wait for what comes next."""

    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []
        self.problems: list[ProtocolProblem] = []
        self.stderr = bytearray()
        self.exits: list[PiExit] = []
        self._changed = asyncio.Event()

    def on_event(self, event: dict[str, Any]) -> None:
        self.events.append(event)
        self._wake()

    def on_problem(self, problem: ProtocolProblem) -> None:
        self.problems.append(problem)
        self._wake()

    def on_stderr(self, data: bytes) -> None:
        self.stderr += data

    def on_exit(self, exit_: PiExit) -> None:
        self.exits.append(exit_)
        self._wake()

    def _wake(self) -> None:
        self._changed.set()

    def mark(self) -> int:
        return len(self.events)

    def types(self, since: int = 0) -> list[str]:
        return [str(event.get("type")) for event in self.events[since:]]

    async def wait_for(
        self, predicate: Callable[[dict[str, Any]], bool], *, since: int = 0, timeout: float = WAIT_S
    ) -> dict[str, Any]:
        """The first event at or after index ``since`` that matches; waits for it."""
        async with asyncio.timeout(timeout):
            checked = since
            while True:
                for event in self.events[checked:]:
                    if predicate(event):
                        return event
                checked = len(self.events)
                self._changed.clear()
                await self._changed.wait()

    async def wait_type(self, kind: str, *, since: int = 0, timeout: float = WAIT_S) -> dict[str, Any]:
        return await self.wait_for(lambda event: event.get("type") == kind, since=since, timeout=timeout)

    async def wait_until(self, condition: Callable[[], bool], *, timeout: float = WAIT_S) -> None:
        """Re-checked on every record and every 50 ms: a condition on the world outside (a process that
        ended) may come true after the last record."""
        async with asyncio.timeout(timeout):
            while not condition():
                self._changed.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._changed.wait(), 0.05)

    def text_deltas(self, since: int = 0) -> str:
        return "".join(
            event["assistantMessageEvent"]["delta"]
            for event in self.events[since:]
            if event.get("type") == "message_update" and event["assistantMessageEvent"].get("type") == "text_delta"
        )


@dataclass
class Started:
    process: PiRpcProcess
    log: EventLog


@dataclass
class Launcher:
    """Starts processes for one test and closes every one of them afterwards."""

    started: list[Started] = field(default_factory=list)

    async def start(self, argv: Sequence[str], **options: Any) -> Started:
        log = EventLog()
        process = await PiRpcProcess.start(
            argv,
            env=options.pop("env", os.environ),
            on_event=log.on_event,
            on_problem=log.on_problem,
            on_stderr=log.on_stderr,
            on_exit=log.on_exit,
            **options,
        )
        started = Started(process, log)
        self.started.append(started)
        return started

    async def close_all(self) -> None:
        for started in self.started:
            await asyncio.wait_for(started.process.close(), WAIT_S)


@pytest.fixture
async def launcher() -> AsyncIterator[Launcher]:
    launch = Launcher()
    yield launch
    await launch.close_all()


@pytest.fixture
def peer_argv() -> list[str]:
    return [sys.executable, str(FAKE_PEER)]


@dataclass
class RealPi:
    """A real Pi's ingredients for one test: the installation, the fake model, an agent dir, a workspace."""

    pi: PiUnderTest
    model: FakeLlmServer
    agent: PiAgentDir
    workspace: Path
    launcher: Launcher

    async def start(self, *, extra_args: Sequence[str] = (), **options: Any) -> Started:
        options.setdefault("cwd", self.workspace)
        options.setdefault("env", self.agent.env())
        options.setdefault("provider", self.agent.provider)
        options.setdefault("model", self.agent.model)
        return await self.launcher.start(self.pi.argv, extra_args=extra_args, **options)


@pytest.fixture(scope="session")
def pi_under_test() -> PiUnderTest:
    return require_test_pi()


@pytest.fixture
def fake_model() -> Iterator[FakeLlmServer]:
    with FakeLlmServer() as server:
        yield server


@pytest.fixture
def real_pi(pi_under_test: PiUnderTest, fake_model: FakeLlmServer, tmp_path: Path, launcher: Launcher) -> RealPi:
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    agent = write_agent_dir(tmp_path / "agent", fake_model.openai_base_url)
    return RealPi(pi_under_test, fake_model, agent, workspace, launcher)


async def settled(log: EventLog, since: int = 0) -> dict[str, Any]:
    return await log.wait_type("agent_settled", since=since)


async def model_request(model: FakeLlmServer, index: int, **options: Any) -> Any:
    """Wait (off the event loop) until the fake model received request ``index``."""
    return await asyncio.to_thread(model.wait_for_request, index, **options)
