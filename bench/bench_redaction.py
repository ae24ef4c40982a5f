"""What redacting every form of 10 known keys costs, and what bounded model calls cost in time and memory.

Run: ``python bench/bench_redaction.py [--kib N] [--limits]``.

Redaction (``lsp_server/redaction/``), 10 keys shaped like real ones (Anthropic, OpenAI, Google,
GitHub, AWS, a JWT-ish token, 39 to 220 characters), best of 5:

* building the redactor (the forms and the 5-gram index);
* a text of ``--kib`` KiB with no key (prose, code, a tool output), per KiB;
* the same text with 20 keys planted in disguise (base64, spaced, upper-cased, percent-encoded), per KiB;
* a reply streamed in 16-character and 4-character deltas through ``StreamRedactor``, per delta;
* a typical Pi event (``message_end`` with a 2 KB reply) through ``Redactor.value``, per event;
* the worst case the docs name: a text of one repeated character against a key rich in it.

``--limits`` also runs the bounded model calls against the red team's servers (real subprocesses of
``pi-context compact`` on a real session, the model on 127.0.0.1): the peak RSS of ``compact`` under a
server flooding deltas as fast as it can (the child's ``VmHWM`` as it exits), and the wall time to the clear
error with a trickling server (a word every 0.5 s, defaults: the 120 s deadline) and a silent one
(accepts, never answers; defaults: three 30 s idle limits and two waits), plus both with
``--timeout 2 --deadline 5``.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import random
import string
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lsp_server.redaction import Redactor, StreamRedactor
from tests.compaction._sessions import Chain, write_session
from tests.support.fake_llm_server import FakeLlmServer, ScriptedResponse

ROOT = Path(__file__).resolve().parents[1]


def keys(count: int = 10) -> list[str]:
    rng = random.Random(18)
    alphabet = string.ascii_letters + string.digits

    def body(n: int, extra: str = "") -> str:
        return "".join(rng.choice(alphabet + extra) for _ in range(n))

    shapes = [
        lambda: "sk-ant-api03-" + body(86, "-_") + "AA",
        lambda: "sk-proj-" + body(156, "-_"),
        lambda: "AIza" + body(35, "-_"),
        lambda: "ghp_" + body(36),
        lambda: body(40, "+/"),  # an AWS secret access key
        lambda: "eyJ" + body(217, "-_."),  # a JWT-ish OAuth token
        lambda: "xoxb-" + body(50, "-"),
        lambda: "sk-or-v1-" + body(64),
        lambda: body(32),
        lambda: "github_pat_" + body(82, "_"),
    ]
    return [shapes[i % len(shapes)]() for i in range(count)]


def prose(kib: int) -> str:
    rng = random.Random(7)
    words = [
        *("the", "model", "reads", "src/app.ts", "and", "runs", "the", "tests", "then", "edits", "the", "loop"),
        *("because", "it", "is", "quadratic", "def", "compute(n):", "return", "sum(range(n))", "#", "TODO"),
        *("200", "OK", "{", "'status':", "'done',", "'items':", "[1,", "2,", "3]", "}"),
    ]
    out: list[str] = []
    size = 0
    while size < kib * 1024:
        line = " ".join(rng.choice(words) for _ in range(12))
        out.append(line)
        size += len(line) + 1
    return "\n".join(out)[: kib * 1024]


def disguised(key: str, n: int) -> str:
    forms: list[Callable[[str], str]] = [
        lambda k: base64.b64encode(("user:" + k).encode()).decode(),
        lambda k: " ".join(k[i : i + 10] for i in range(0, len(k), 10)),
        lambda k: k.upper(),
        lambda k: "".join(f"%{b:02X}" for b in k.encode()),
        lambda k: k[7:-5],
    ]
    return forms[n % len(forms)](key)


def best_of(fn: Callable[[], object], runs: int = 5) -> float:
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def bench_redaction(kib: int) -> None:
    secrets = keys()
    built = best_of(lambda: Redactor(secrets))
    redactor = Redactor(secrets)
    print(f"redactor for {len(secrets)} keys ({sum(map(len, secrets))} characters): built in {built * 1000:.2f} ms")
    print(f"  {len(redactor.index.forms)} forms, {sum(map(len, redactor.index.forms)):,} characters indexed")

    clean = prose(kib)
    assert redactor.text(clean) is clean
    took = best_of(lambda: redactor.text(clean))
    print(f"text without keys, {kib} KiB: {took * 1000:.1f} ms = {took * 1e6 / kib:.1f} µs/KiB")

    pieces = clean.split("\n")
    step = max(1, len(pieces) // 20)
    for n in range(20):
        pieces[n * step] += " key=" + disguised(secrets[n % len(secrets)], n)
    planted = "\n".join(pieces)
    out = redactor.text(planted)
    assert out.count("***") >= 20, out.count("***")
    took = best_of(lambda: redactor.text(planted))
    print(
        f"text with 20 disguised keys, {len(planted) // 1024} KiB: {took * 1000:.1f} ms = {took * 1e6 / kib:.1f} µs/KiB"
    )

    reply = planted[: 50 * 1024]
    for size in (16, 4):
        deltas = [reply[i : i + size] for i in range(0, len(reply), size)]

        def stream(deltas: list[str] = deltas) -> None:
            streamed = StreamRedactor(redactor)
            for delta in deltas:
                streamed.feed(delta)

        took = best_of(stream, 3)
        print(f"streamed reply of 50 KiB in {size}-character deltas: {took * 1e6 / len(deltas):.1f} µs per delta")

    event = {
        "type": "message_end",
        "message": {
            "role": "assistant",
            "content": [{"type": "text", "text": clean[:2048]}],
            "usage": {"input": 10, "output": 5, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 15},
            "stopReason": "stop",
            "model": "fake-1",
            "provider": "fake",
        },
    }
    took = best_of(lambda: [redactor.value(event) for _ in range(100)])
    print(f"a message_end event with a 2 KiB reply: {took * 1e6 / 100:.1f} µs per event")

    # The worst a key-like value allows: half its 5-character pieces the same ("aaaaa"), against a text
    # made of that piece, so every stride point hits every place of it.
    worst_key = "a" * 30 + keys(1)[0][13:73]
    worst = Redactor([worst_key])
    assert worst.index, "the worst case must be a key-like value"
    filler = "a" * (kib * 1024)
    took = best_of(lambda: worst.text(filler), 1)
    print(f"worst case: {kib} KiB of 'a' against a key starting with 30 'a's: {took * 1e6 / kib:.0f} µs/KiB")


def _compact(folder: Path, server: FakeLlmServer, *extra: str) -> tuple[float, float, int, str]:
    """Run ``compact`` against ``server``: wall seconds, peak RSS (MB), exit code, the last stderr line."""
    agent = folder / "agent"
    agent.mkdir(exist_ok=True)
    (agent / "settings.json").write_text(json.dumps({"compaction": {"keepRecentTokens": 150}}), encoding="utf-8")
    chain = Chain()
    chain.user("Fix the crash. " + "x" * 400)
    chain.assistant("Reading it.", calls=(("read", {"path": "src/app.ts"}),))
    chain.tool_result("x" * 400)
    chain.user("Now the docs. " + "x" * 400)
    chain.assistant("Done.")
    session = write_session(folder / "session.jsonl", chain.entries, cwd=str(folder))
    settings = folder / "settings.json"
    summarizer = {"mode": "endpoint", "url": server.openai_base_url, "model": "m"}
    settings.write_text(json.dumps({"summarizer": summarizer}), encoding="utf-8")
    env = {**os.environ, "HOME": str(folder), "PI_CODING_AGENT_DIR": str(agent)}
    argv = [sys.executable, "-c", _REPORTING_CLI, "compact", str(session), "--settings", str(settings), *extra]
    start = time.perf_counter()
    # The repository as the working folder: it is first on the path, so this checkout is what runs.
    done = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=ROOT, check=False)
    wall = time.perf_counter() - start
    lines = done.stderr.strip().splitlines()
    peak = next((int(line.split()[1]) / 1024 for line in lines if line.startswith("VMHWM ")), 0.0)
    said = [line for line in lines if not line.startswith("VMHWM ")]
    return wall, peak, done.returncode, said[-1] if said else ""


# The real CLI, reporting its own peak RSS (VmHWM: its image's, not the forking parent's) on the way out.
_REPORTING_CLI = """
import atexit, sys
def report():
    status = open("/proc/self/status").read()
    print("VMHWM", status.split("VmHWM:")[1].split()[0], file=sys.stderr)
atexit.register(report)
sys.argv = ["pi-context", *sys.argv[1:]]
from lsp_server.cli import main
sys.exit(main())
"""


def bench_limits() -> None:
    print(f"\nbounded model calls (load average {os.getloadavg()[0]:.1f})")
    cases = [
        (
            "flooding server (deltas as fast as the socket takes them)",
            ScriptedResponse(text="## Goal\n", flood_chars=10**12),
            (),
        ),
        (
            "trickling server (a word every 0.5 s), defaults",
            ScriptedResponse(chunks=[f"w{n} " for n in range(100_000)], chunk_delay_s=0.5),
            (),
        ),
        (
            "trickling server, --deadline 5",
            ScriptedResponse(chunks=[f"w{n} " for n in range(100_000)], chunk_delay_s=0.5),
            ("--deadline", "5"),
        ),
        ("silent server (accepts, never answers), defaults", ScriptedResponse(silent=True), ()),
        (
            "silent server, --timeout 2 --deadline 5",
            ScriptedResponse(silent=True),
            ("--timeout", "2", "--deadline", "5"),
        ),
    ]
    for label, script, extra in cases:
        with tempfile.TemporaryDirectory() as folder, FakeLlmServer(default=script) as server:
            wall, peak, code, last = _compact(Path(folder), server, *extra)
            print(
                f"  {label}: exit {code} after {wall:.1f} s, peak RSS {peak:.0f} MB; {len(server.requests)} request(s)"
            )
            print(f"    {last[:220]}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--kib", type=int, default=256)
    parser.add_argument("--limits", action="store_true")
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f}")
    bench_redaction(args.kib)
    if args.limits:
        bench_limits()


if __name__ == "__main__":
    main()
