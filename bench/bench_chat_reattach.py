"""A turn across a window reload: what the keeper costs and how fast the next server takes the turn up.

Run: ``python bench/bench_chat_reattach.py [--runs 5] [--events 2000] [--json]``.

* **reattach** (``--runs`` times): the real server over stdio (pygls client), real Pi 1.6.0 under its
  keeper, the fake model holding a reply after a few pieces. The server is shut down (``shutdown``
  + ``exit``: the keeper keeps the busy Pi), a new server is started and made ready, and
  ``pi/chat/start {session}`` takes the chat up. Reported: ``shutdown`` of the server with the busy
  chat (the keeper is told to keep Pi), the new server's start until ready (``initialize`` and
  ``initialized`` done: its log line), **the take-up**
  (``pi/chat/start`` sent -> answered: connect, the keeper's replay, Pi's ``get_state``), and the
  rebuild (``pi/chat/messages`` answered); then the same after ``kill -9`` of the server instead.
  For comparison: ``pi/chat/start {session}`` on the same session with no keeper holding it (a
  new Pi loading the file: what a reload cost before, and the turn was lost).
* **keeper cost**: the resident memory of a keeper process, and the start of a new chat (``pi/chat/start
  {}`` -> answered) with and without a keeper (``PI_CONTEXT_NO_KEEPER=1``).
* **forward** (``--events``; ``--paced`` at ``--rate``): bench_chat's forwarding bench (Pi's line ->
  ``pi/chat/event`` at the client, one reply of ``--events`` deltas as fast as the model sends them,
  then ``--paced`` deltas at ``--rate`` per second) with and without the keeper's hop in between.

The machine is shared: compare runs made back to back, with the load average printed. Nothing here is asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, ClassVar

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_chat  # noqa: E402
from bench_chat import SERVER, _plain, rss_mb  # noqa: E402


class KeepBench(bench_chat.Bench):
    """bench_chat's set-up, with the server's environment completed (keepers' folder, keepers off)."""

    extra_env: ClassVar[dict[str, str]] = {}

    async def start(self) -> Any:
        from lsprotocol import types
        from pygls.lsp.client import LanguageClient
        from pygls.uris import from_fs_path

        client = LanguageClient("bench-chat-reattach", "0")

        @client.feature("pi/chat/event")  # type: ignore[untyped-decorator]
        def on_event(params: Any) -> None:
            stamp = time.monotonic_ns()
            event = params.event if hasattr(params, "event") else params["event"]
            kind = event.type if hasattr(event, "type") else event.get("type")
            self.events.append((stamp, str(kind)))
            self.changed.set()

        self.ready = asyncio.Event()

        @client.feature("window/logMessage")  # type: ignore[untyped-decorator]
        def on_log(params: Any) -> None:
            if str(getattr(params, "message", "")).startswith("pi-context "):  # the end of `initialized`
                self.ready.set()

        await client.start_io(*SERVER, env={**self.agent.env(), **self.extra_env})
        uri = from_fs_path(str(self.root)) or ""
        await client.initialize_async(
            types.InitializeParams(
                capabilities=types.ClientCapabilities(),
                root_uri=uri,
                workspace_folders=[types.WorkspaceFolder(uri=uri, name="bench")],
                initialization_options=self.options,
            )
        )
        client.initialized(types.InitializedParams())
        return client


def summary(values: list[float]) -> dict[str, float]:
    return {"median": round(statistics.median(values), 1), "min": round(min(values), 1)}


def ms(since: float) -> float:
    return (time.perf_counter() - since) * 1000


async def ask(client: Any, method: str, params: Any) -> Any:
    return _plain(await client.protocol.send_request_async(method, params))


async def one_reattach(pi_argv: tuple[str, ...], runtime: Path, kill: bool) -> dict[str, float]:
    from tests.support.fake_llm_server import FakeLlmServer, ScriptedResponse

    reply = ScriptedResponse(text="a reply held across the reload " * 8, hold_after_chunks=2)
    with tempfile.TemporaryDirectory(dir="/tmp") as tmp, FakeLlmServer([reply]) as model:
        KeepBench.extra_env = {"PI_CONTEXT_RUNTIME_DIR": str(runtime)}
        bench = KeepBench(Path(tmp), model.openai_base_url, pi_argv)
        first = await bench.start()
        chat = await ask(first, "pi/chat/start", {})
        await ask(first, "pi/chat/prompt", {"chatId": chat["chatId"], "text": "go"})
        await asyncio.to_thread(model.wait_until_held, 0)
        session = (await ask(first, "pi/chat/state", {"chatId": chat["chatId"]}))["session"]
        began = time.perf_counter()
        if kill:
            os.kill(first._server.pid, signal.SIGKILL)
            await first._server.wait()
            first_gone = ms(began)
        else:
            await bench.stop(first)
            first_gone = ms(began)
        began = time.perf_counter()
        second = await bench.start()
        await asyncio.wait_for(bench.ready.wait(), 60)  # settings read, workspace checked: requests are served
        initialized = ms(began)
        began = time.perf_counter()
        taken = await ask(second, "pi/chat/start", {"session": session})
        take_up = ms(began)
        assert taken["reattached"], taken
        began = time.perf_counter()
        await ask(second, "pi/chat/messages", {"chatId": taken["chatId"]})
        messages = ms(began)
        since = len(bench.events)
        model.release(0)
        await bench.until_event("agent_settled", since)
        await ask(second, "pi/chat/stop", {"chatId": taken["chatId"]})
        began = time.perf_counter()
        fresh = await ask(second, "pi/chat/start", {"session": session})
        resume_without_keeper_holding = ms(began)
        await ask(second, "pi/chat/stop", {"chatId": fresh["chatId"]})
        await bench.stop(second)
    return {
        "server_gone_ms": first_gone,
        "new_server_ready_ms": initialized,
        "take_up_ms": take_up,
        "messages_ms": messages,
        "resume_new_pi_ms": resume_without_keeper_holding,
    }


async def bench_reattach(runs: int, pi_argv: tuple[str, ...]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="pcb", dir="/tmp") as runtime:
        for kill in (False, True):
            rows = [await one_reattach(pi_argv, Path(runtime), kill) for _ in range(runs)]
            out["kill -9" if kill else "shutdown"] = {name: summary([r[name] for r in rows]) for name in rows[0]}
    return out


async def bench_keeper_cost(runs: int, pi_argv: tuple[str, ...]) -> dict[str, Any]:
    from lsp_server.pi_rpc.keeper_files import read_records
    from tests.support.fake_llm_server import FakeLlmServer

    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="pcb", dir="/tmp") as runtime:
        for label, extra in (("keeper", {}), ("no keeper", {"PI_CONTEXT_NO_KEEPER": "1"})):
            with tempfile.TemporaryDirectory(dir="/tmp") as tmp, FakeLlmServer() as model:
                KeepBench.extra_env = {"PI_CONTEXT_RUNTIME_DIR": runtime, **extra}
                bench = KeepBench(Path(tmp), model.openai_base_url, pi_argv)
                client = await bench.start()
                starts = []
                for _ in range(runs):
                    began = time.perf_counter()
                    chat = await ask(client, "pi/chat/start", {})
                    starts.append(ms(began))
                    if label == "keeper" and "keeper_rss_mb" not in out:
                        (record,) = read_records(Path(runtime) / "keepers")
                        out["keeper_rss_mb"] = rss_mb(record.keeper_pid)
                        out["pi_rss_mb"] = rss_mb(record.pi_pid)
                    await ask(client, "pi/chat/stop", {"chatId": chat["chatId"]})
                await bench.stop(client)
            out[f"new_chat_start_ms ({label})"] = summary(starts)
    return out


async def bench_forward(events: int, pi_argv: tuple[str, ...], rate: float = 0) -> dict[str, Any]:
    out: dict[str, Any] = {"deltas": events, "deltas_per_s_asked": rate or "as fast as the model sends"}
    original = bench_chat.Bench
    bench_chat.Bench = KeepBench  # type: ignore[misc]
    try:
        with tempfile.TemporaryDirectory(prefix="pcb", dir="/tmp") as runtime:
            for label, extra in (("keeper", {}), ("no keeper", {"PI_CONTEXT_NO_KEEPER": "1"})):
                KeepBench.extra_env = {"PI_CONTEXT_RUNTIME_DIR": runtime, **extra}
                result = await bench_chat.bench_forward(events, pi_argv, rate)
                out[label] = {
                    "latency_ms": result["latency_ms"],
                    "events_per_s": result["events_per_s"],
                    "server_cpu_ms_per_event": result["server_cpu_ms_per_event"],
                }
    finally:
        bench_chat.Bench = original  # type: ignore[misc]
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--events", type=int, default=2000)
    parser.add_argument("--paced", type=int, default=500, help="deltas of the paced forwarding run")
    parser.add_argument("--rate", type=float, default=100.0, help="its deltas per second")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    from tests.support.pi_for_tests import find_test_pi

    pi, reason = find_test_pi()
    if pi is None:
        print(f"needs Pi 1.6.0: {reason}", file=sys.stderr)
        return 2
    load = os.getloadavg()
    results = {
        "load_average": [round(x, 2) for x in load],
        "reattach": asyncio.run(bench_reattach(args.runs, pi.argv)),
        "keeper_cost": asyncio.run(bench_keeper_cost(args.runs, pi.argv)),
        "forward": asyncio.run(bench_forward(args.events, pi.argv)),
        "forward_paced": asyncio.run(bench_forward(args.paced, pi.argv, args.rate)),
        "load_average_after": [round(x, 2) for x in os.getloadavg()],
    }
    print(json.dumps(results, indent=None if args.json else 2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
