"""The chat's costs: forwarding Pi's events, opening a chat on a big session, rendering deltas in the webview.

Run: ``python bench/bench_chat.py [--events 10000] [--paced 1000 --rate 100] [--mb 10] [--runs 3] [--render]
[--json]``.

* **forward**: the real server over stdio (pygls client), real Pi 1.6.0 in RPC mode, the fake
  model streaming ``--events`` text deltas in one reply. Pi is started through a relay (this
  script with ``--relay``: the ``piContext.pi.command``) that stamps every line Pi writes with
  ``CLOCK_MONOTONIC`` just before passing it on, and the client stamps every ``pi/chat/event`` it
  receives; the n-th event line matches the n-th notification (the server forwards every record
  in order). Reported: the latency per event (median, p95, p99, max), the events per second of
  the whole reply, the server's CPU time per forwarded event (what forwarding costs, whatever
  the load), and the server's resident memory before the chat, after it, and after the chat is
  stopped. Pi emits deltas as fast as the model sends them; when Pi, the server and the client
  share too few cores, the latency is mostly queueing, so read it with the load average printed.
* **paced**: the same with ``--paced`` deltas at ``--rate`` per second (100: a fast model), where
  nothing queues and the latency is the forwarding's own.
* **open**: a session of ``--mb`` MB (``bench_session.generate``: prompts, tool calls and results,
  compactions) in the workspace's session folder; ``pi/chat/start {session}`` -> its answer
  (Pi is started, loads the file, answers ``get_state``), and -> the first ``pi/contextBudget``
  on it answered (asked as soon as the start answers). A chat on a new session is the baseline
  (Pi's own start-up). Best of ``--runs``.
* **render** (``--render``): time from Pi's delta line to the Chat view showing it, in code-server
  with headless chromium (``chat_render.js``, the tools of ``tests/e2e/vscode/install.sh``): the
  model streams ``--render-deltas`` deltas at ``--rate`` per second, the relay stamps Pi's lines
  with the wall clock, and a MutationObserver in the chat webview stamps (``performance.timeOrigin
  + now()``) each DOM change that shows a higher delta number, and the animation frame after it.
  So the figure covers the server, the extension host, the webview message and the render.

The machine is shared: compare runs made back to back. Nothing here is asserted.
``BENCH_CHAT_SERVER`` replaces the server's command line (e.g. to run it under a profiler).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

# BENCH_CHAT_SERVER: another command line for the server (e.g. under a profiler)
SERVER = shlex.split(os.environ.get("BENCH_CHAT_SERVER", "")) or [sys.executable, "-m", "lsp_server", "serve"]


# -- the relay: Pi's stdout, line by line, stamped ----------------------------------------------------


DELTA = re.compile(rb'"delta":"t(\d+) "')  # the benchmark's deltas are "t0 ", "t1 ", ...


def relay(log: str, argv: list[str]) -> int:
    """Run Pi (``argv``), pass its stdout on line by line and write when each line was passed on.

    stdin and stderr are Pi's own (inherited), so closing the server's end of stdin still ends Pi.
    Each line's stamp is ``[monotonic ns, wall-clock ns, is a response, delta number or null]``
    (CLOCK_MONOTONIC compares with the client's stamps, the wall clock with the browser's); the
    stamps are written when Pi's stdout ends.
    """
    child = subprocess.Popen(argv, stdout=subprocess.PIPE)
    assert child.stdout is not None
    out = sys.stdout.buffer
    stamps: list[tuple[int, int, bool, int | None]] = []
    for line in child.stdout:
        mono, wall = time.monotonic_ns(), time.time_ns()
        out.write(line)
        out.flush()
        found = DELTA.search(line) if b'"text_delta"' in line else None
        stamps.append((mono, wall, b'"type":"response"' in line[:80], int(found[1]) if found else None))
    code = child.wait()
    if len(argv) > 1 and "--version" not in argv:
        with open(log, "a", encoding="ascii") as handle:
            handle.write(json.dumps(stamps) + "\n")
    return code


def relay_stamps(log: Path) -> list[list[Any]]:
    """The stamps of the last Pi the relay ran."""
    lines = log.read_text(encoding="ascii").splitlines()
    return list(json.loads(lines[-1])) if lines else []


# -- the client ---------------------------------------------------------------------------------------


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def rss_mb(pid: int) -> float | None:
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        return None
    return None


def cpu_s(pid: int) -> float:
    """User + system CPU seconds the process has used (``/proc/<pid>/stat``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Bench:
    """A workspace, an agent dir pointing Pi (through the relay) at a fake model, and a server."""

    def __init__(self, tmp: Path, model_url: str, pi_argv: tuple[str, ...]) -> None:
        from tests.support.pi_agent import write_agent_dir

        self.root = tmp / "ws"
        self.root.mkdir()
        self.log = tmp / "relay.jsonl"
        self.agent = write_agent_dir(tmp / "agent", model_url, settings={"defaultProvider": "fake"})
        command = [sys.executable, str(Path(__file__).resolve()), "--relay", str(self.log), *pi_argv]
        self.options = {"pi": {"command": shlex.join(command)}}
        self.events: list[tuple[int, str]] = []  # (received ns, event type)
        self.changed = asyncio.Event()

    async def start(self) -> Any:
        from lsprotocol import types
        from pygls.lsp.client import LanguageClient
        from pygls.uris import from_fs_path

        client = LanguageClient("bench-chat", "0")

        @client.feature("pi/chat/event")  # type: ignore[untyped-decorator]
        def on_event(params: Any) -> None:
            stamp = time.monotonic_ns()
            event = params.event if hasattr(params, "event") else params["event"]
            kind = event.type if hasattr(event, "type") else event.get("type")
            self.events.append((stamp, str(kind)))
            self.changed.set()

        await client.start_io(*SERVER, env=self.agent.env())
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

    async def until_event(self, kind: str, since: int, timeout: float = 600) -> None:
        async with asyncio.timeout(timeout):
            while not any(k == kind for _, k in self.events[since:]):
                self.changed.clear()
                await self.changed.wait()

    async def stop(self, client: Any) -> None:
        await client.shutdown_async(None)
        client.exit(None)
        await client.stop()


def _plain(value: Any) -> Any:
    """pygls gives custom messages as namedtuples; back to JSON data."""
    if hasattr(value, "_asdict"):
        return {key: _plain(item) for key, item in value._asdict().items()}
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    return value


async def bench_forward(events: int, pi_argv: tuple[str, ...], rate: float = 0) -> dict[str, Any]:
    """One reply of ``events`` deltas, as fast as the model can send them, or ``rate`` per second."""
    from tests.support.fake_llm_server import FakeLlmServer, ScriptedResponse

    chunks = [f"t{i} " for i in range(events)]
    script = ScriptedResponse(chunks=chunks, chunk_delay_s=1 / rate if rate else 0.0)
    with tempfile.TemporaryDirectory() as tmp, FakeLlmServer([script]) as model:
        bench = Bench(Path(tmp), model.openai_base_url, pi_argv)
        client = await bench.start()
        pid = client._server.pid
        before = rss_mb(pid)
        started = _plain(await client.protocol.send_request_async("pi/chat/start", {}))
        chat_id = started["chatId"]
        after_start = rss_mb(pid)
        since = len(bench.events)
        began = time.monotonic_ns()
        cpu_before = cpu_s(pid)
        await client.protocol.send_request_async("pi/chat/prompt", {"chatId": chat_id, "text": "stream"})
        await bench.until_event("agent_settled", since)
        took_s = (time.monotonic_ns() - began) / 1e9
        cpu_used = cpu_s(pid) - cpu_before
        after_chat = rss_mb(pid)
        await client.protocol.send_request_async("pi/chat/stop", {"chatId": chat_id})
        await asyncio.sleep(0.5)
        after_stop = rss_mb(pid)
        await bench.stop(client)
        lines = [mono for mono, _, response, _ in relay_stamps(bench.log) if not response]
        received = [ns for ns, _ in bench.events]
        count = min(len(lines), len(received))
        latencies = [(received[i] - lines[i]) / 1e6 for i in range(count)]
        deltas = sum(1 for _, kind in bench.events if kind == "message_update")
    return {
        "deltas_per_s_asked": rate or None,
        "events_forwarded": len(received),
        "pi_lines": len(lines),
        "text_deltas": deltas,
        "latency_ms": {
            "median": round(statistics.median(latencies), 3),
            "p95": round(percentile(latencies, 0.95), 3),
            "p99": round(percentile(latencies, 0.99), 3),
            "max": round(max(latencies), 3),
        },
        "reply_s": round(took_s, 2),
        "server_cpu_ms_per_event": round(cpu_used * 1000 / max(1, len(received)), 3),
        "events_per_s": round(len(received) / took_s),
        "server_rss_mb": {
            "before": before,
            "chat_started": after_start,
            "after_chat": after_chat,
            "stopped": after_stop,
        },
    }


def _generate_here(path: Path, target_bytes: int, cwd: str) -> int:
    """``bench_session.generate``'s session, its header naming ``cwd`` (Pi refuses a session of another folder)."""
    from bench_session import generate

    raw = path.with_suffix(".raw")
    entries = generate(raw, target_bytes)
    with raw.open("rb") as source, path.open("wb") as target:
        header = json.loads(source.readline())
        target.write(json.dumps({**header, "cwd": cwd}).encode() + b"\n")
        shutil.copyfileobj(source, target)
    raw.unlink()
    return entries


async def bench_open(mb: float, runs: int, pi_argv: tuple[str, ...]) -> dict[str, Any]:
    from lsp_server.session.folders import encode_cwd
    from tests.support.fake_llm_server import FakeLlmServer

    with tempfile.TemporaryDirectory() as tmp, FakeLlmServer() as model:
        bench = Bench(Path(tmp), model.openai_base_url, pi_argv)
        folder = bench.agent.sessions / encode_cwd(str(bench.root))
        folder.mkdir(parents=True)
        session = folder / "big.jsonl"
        entries = _generate_here(session, int(mb * 1024 * 1024), str(bench.root))
        size_mb = round(session.stat().st_size / 1024 / 1024, 1)
        client = await bench.start()
        results: dict[str, list[float]] = {"new_start_ms": [], "start_ms": [], "first_budget_ms": []}
        budget_tokens = None
        for _ in range(runs):
            began = time.perf_counter()
            fresh = _plain(await client.protocol.send_request_async("pi/chat/start", {}))
            results["new_start_ms"].append((time.perf_counter() - began) * 1000)
            await client.protocol.send_request_async("pi/chat/stop", {"chatId": fresh["chatId"]})
            began = time.perf_counter()
            chat = _plain(await client.protocol.send_request_async("pi/chat/start", {"session": str(session)}))
            results["start_ms"].append((time.perf_counter() - began) * 1000)
            budget = _plain(await client.protocol.send_request_async("pi/contextBudget", {"session": str(session)}))
            results["first_budget_ms"].append((time.perf_counter() - began) * 1000)
            budget_tokens = budget.get("contextTokens")
            await client.protocol.send_request_async("pi/chat/stop", {"chatId": chat["chatId"]})
            await asyncio.sleep(0.3)
        rss = rss_mb(client._server.pid)
        await bench.stop(client)
    return {
        "session_mb": size_mb,
        "entries": entries,
        **{name: round(min(values), 1) for name, values in results.items()},
        "context_tokens": budget_tokens,
        "server_rss_mb": rss,
        "runs": runs,
    }


def _e2e_tools() -> dict[str, str] | str:
    """install.sh's paths, or why the render bench cannot run."""
    found = subprocess.run(
        ["bash", str(REPO / "tests/e2e/vscode/install.sh"), "--print"], capture_output=True, text=True, check=False
    )
    if found.returncode != 0:
        return "the VS Code e2e tools are missing: run tests/e2e/vscode/install.sh"
    return dict(line.split("=", 1) for line in found.stdout.splitlines() if "=" in line)


def bench_render(deltas: int, rate: float, pi_argv: tuple[str, ...]) -> dict[str, Any]:
    """Pi's delta line -> the Chat view's DOM showing it, in code-server (wall clocks of one machine)."""
    from tests.e2e.vscode import harness
    from tests.support.fake_llm_server import FakeLlmServer, ScriptedResponse

    tools = _e2e_tools()
    if isinstance(tools, str):
        return {"status": tools}
    if "piContext.chat" not in harness.extension_views():
        return {"status": "waits for the extension's piContext.chat view"}
    chunks = [f"t{i} " for i in range(deltas)]
    script = ScriptedResponse(chunks=chunks, chunk_delay_s=1 / rate)
    with tempfile.TemporaryDirectory() as tmp, FakeLlmServer([script]) as model:
        bench = Bench(Path(tmp), model.openai_base_url, pi_argv)
        settings = {
            "piContext.server.python": sys.executable,
            "piContext.agentDir": str(bench.agent.path),
            "piContext.pi.command": bench.options["pi"]["command"],
            "piContext.trust": "trusted",
        }
        vsix = harness.build_vsix()
        code_server = harness.CodeServer(tools["CODE_SERVER"], Path(tmp, "code-server"), settings, bench.agent.env())
        code_server.install(vsix)
        out = Path(tmp, "out")
        out.mkdir()
        try:
            config = {
                "url": code_server.start(),
                "folder": str(bench.root),
                "outDir": str(out),
                "chromium": tools["CHROMIUM"],
                "expect": {"render": True},
                "prompt": "stream the benchmark reply",
                "lastDelta": deltas - 1,
            }
            driver = harness.run_driver(tools, str(Path(__file__).with_name("chat_render.js")), config, out, {})
        finally:
            code_server.stop()
        lines = [line for line in driver.stdout.splitlines() if line.startswith("{")]
        report: dict[str, Any] = json.loads(lines[-1]) if lines else {"steps": [], "crashed": driver.stderr[-2000:]}
        stamps = relay_stamps(bench.log)
    step = next((s for s in report.get("steps", []) if s["name"] == "render"), None)
    if step is None or step["status"] != "passed":
        return {"status": step["status"] if step else "crashed", "detail": (step or report).get("detail", report)}
    pi_ms = {n: wall / 1e6 for _, wall, _, n in stamps if n is not None}
    result: dict[str, Any] = {"deltas": deltas, "deltas_per_s": rate}
    for kind in ("dom", "frame"):
        shown = sorted((ms, n) for ms, n, k in report["renders"] if k == kind)
        latencies = []
        for n, sent in pi_ms.items():
            first = next((ms for ms, seen in shown if seen >= n), None)
            if first is not None:
                latencies.append(first - sent)
        if latencies:
            result[kind] = {
                "median_ms": round(statistics.median(latencies), 1),
                "p95_ms": round(percentile(latencies, 0.95), 1),
                "max_ms": round(max(latencies), 1),
                "updates": len(shown),
                "deltas_matched": len(latencies),
            }
    return result


def main() -> int:
    if len(sys.argv) > 2 and sys.argv[1] == "--relay":
        return relay(sys.argv[2], sys.argv[3:])
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=10_000, help="text deltas in the streamed reply")
    parser.add_argument("--paced", type=int, default=1000, help="deltas of the reply paced at --rate")
    parser.add_argument("--rate", type=float, default=100.0, help="deltas per second of the paced reply")
    parser.add_argument("--mb", type=float, default=10.0, help="size of the session a chat is opened on")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--render", action="store_true", help="also the webview render latency (code-server)")
    parser.add_argument("--render-deltas", type=int, default=500, help="deltas of the rendered reply, at --rate")
    parser.add_argument("--only", default="", help="comma-separated parts to run: forward,paced,open,render")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    from tests.support.pi_for_tests import find_test_pi

    logging.getLogger("pygls").setLevel(logging.ERROR)  # the notifications this client does not handle

    pi, reason = find_test_pi()
    if pi is None:
        print(f"bench_chat: skipped, it needs the real Pi 1.6.0 ({reason}); run tests/support/install_pi.sh")
        return 0
    parts = (
        set(args.only.split(","))
        if args.only
        else {"forward", "paced", "open"} | ({"render"} if args.render else set())
    )
    results: dict[str, Any] = {"load_average_before": [round(x, 1) for x in os.getloadavg()]}
    if "forward" in parts:
        results["forward"] = asyncio.run(bench_forward(args.events, pi.argv))
    if "paced" in parts:
        results["paced"] = asyncio.run(bench_forward(args.paced, pi.argv, args.rate))
    if "open" in parts:
        results["open"] = asyncio.run(bench_open(args.mb, args.runs, pi.argv))
    if "render" in parts:
        results["render"] = bench_render(args.render_deltas, args.rate, pi.argv)
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    print(f"load average before: {results['load_average_before']} (2 shared cores: latencies include waiting to run)")
    if "forward" in results:
        print_forward(results["forward"])
    if "paced" in results:
        print_paced(results["paced"], args.rate)
    if "open" in results:
        print_open(results["open"])
    if "render" in results:
        print_render(results["render"])
    return 0


def print_forward(f: dict[str, Any]) -> None:
    lat = f["latency_ms"]
    rss = f["server_rss_mb"]
    print(
        f"forward: {f['events_forwarded']} pi/chat/event ({f['text_deltas']} deltas) in {f['reply_s']} s "
        f"({f['events_per_s']}/s); Pi's line -> client: median {lat['median']} ms, p95 {lat['p95']} ms, "
        f"p99 {lat['p99']} ms, max {lat['max']} ms; server CPU {f['server_cpu_ms_per_event']} ms per event"
    )
    print(
        f"         server RSS {rss['before']} MiB before, {rss['chat_started']} with the chat, "
        f"{rss['after_chat']} after the chat, {rss['stopped']} after stop"
    )


def print_paced(p: dict[str, Any], rate: float) -> None:
    lat = p["latency_ms"]
    print(
        f"paced: {p['events_forwarded']} pi/chat/event at {rate:g} deltas/s: Pi's line -> client median "
        f"{lat['median']} ms, p95 {lat['p95']} ms, p99 {lat['p99']} ms, max {lat['max']} ms; "
        f"server CPU {p['server_cpu_ms_per_event']} ms per event"
    )


def print_open(o: dict[str, Any]) -> None:
    print(
        f"open: {o['session_mb']} MB session ({o['entries']} entries): pi/chat/start {o['start_ms']} ms "
        f"(new session {o['new_start_ms']} ms), first pi/contextBudget at {o['first_budget_ms']} ms; "
        f"server RSS {o['server_rss_mb']} MiB (best of {o['runs']})"
    )


def print_render(r: dict[str, Any]) -> None:
    if "dom" not in r:
        print(f"render: {r}")
        return
    dom, frame = r["dom"], r.get("frame", {})
    print(
        f"render: {r['deltas']} deltas at {r['deltas_per_s']:g}/s, Pi's line -> the Chat view's DOM: "
        f"median {dom['median_ms']} ms, p95 {dom['p95_ms']} ms, max {dom['max_ms']} ms ({dom['updates']} "
        f"updates); -> the next frame: median {frame.get('median_ms')} ms, p95 {frame.get('p95_ms')} ms"
    )


if __name__ == "__main__":
    sys.exit(main())
