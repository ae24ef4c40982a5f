"""How fast the offline summarizer and the streaming clients are.

Run: ``python bench/bench_llm.py [conversation_kib] [stream_chunks]``.

* offline: summarizes a synthetic serialized conversation of about ``conversation_kib`` KiB
  (user requests, assistant prose, tool calls, tool results), best of 5;
* streaming: one reply of ``stream_chunks`` text deltas from the fake server on loopback, through
  the OpenAI-compatible and the Anthropic client (parse + accumulate cost per chunk), best of 3;
* overhead: 50 small requests in a row on one client (connection reuse, request building).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lsp_server.llm.anthropic import AnthropicClient
from lsp_server.llm.http_client import HttpLlmClient
from lsp_server.llm.offline import summarize_extractively
from lsp_server.llm.openai_compat import OpenAiCompatClient
from lsp_server.llm.types import CompletionRequest
from tests.support.fake_llm_server import FakeLlmServer, ScriptedResponse


def conversation(kib: int) -> str:
    parts: list[str] = []
    size, i = 0, 0
    while size < kib * 1024:
        turn = "\n\n".join(
            [
                f"[User]: Please fix issue {i} in src/module_{i}.py. Do not touch the public API.",
                f"[Assistant]: I decided to refactor module {i} because the loop is quadratic. "
                "Next I will run the tests.",
                f'[Assistant tool calls]: read(path="src/module_{i}.py"); '
                f'edit(path="src/module_{i}.py", oldText="a", newText="b")',
                "[Tool result]: " + "\n".join(f"line {n}: value = compute({n})" for n in range(40)),
                f'[Assistant tool calls]: bash(command="pytest tests/test_module_{i}.py -q")',
                "[Tool result]: 12 passed in 0.3s",
            ]
        )
        parts.append(turn)
        size += len(turn) + 2
        i += 1
    return "\n\n".join(parts)


def best_of(fn: Callable[[], object], runs: int) -> float:
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


async def stream_once(client: HttpLlmClient, server: FakeLlmServer, chunks: int) -> None:
    server.enqueue(ScriptedResponse(text="x" * chunks, chunks=["x"] * chunks))
    reply = await client.complete(CompletionRequest.single_prompt("s", "p"))
    assert reply.text == "x" * chunks, reply


async def main_async(chunks: int) -> None:
    with FakeLlmServer(default=ScriptedResponse(text="ok")) as server:
        for name, client in (
            ("openai", OpenAiCompatClient(base_url=server.openai_base_url, model="m")),
            ("anthropic", AnthropicClient(base_url=server.anthropic_base_url, model="m")),
        ):
            async with client:
                best = float("inf")
                for _ in range(3):
                    start = time.perf_counter()
                    await stream_once(client, server, chunks)
                    best = min(best, time.perf_counter() - start)
                print(f"stream {name:9s} {chunks} chunks: {best * 1000:8.1f} ms ({best / chunks * 1e6:.1f} µs/chunk)")
                start = time.perf_counter()
                for _ in range(50):
                    await client.complete(CompletionRequest.single_prompt("s", "p"))
                per = (time.perf_counter() - start) / 50
                print(f"request   {name:9s} small reply:  {per * 1000:8.2f} ms each (50 in a row)")


def main() -> None:
    parser = argparse.ArgumentParser(description="Offline summarizer speed and streaming overhead over loopback.")
    parser.add_argument("kib", nargs="?", type=int, default=1024, help="conversation size in KiB (default 1024)")
    parser.add_argument("chunks", nargs="?", type=int, default=5000, help="streamed deltas (default 5000)")
    args = parser.parse_args()
    kib, chunks = args.kib, args.chunks
    text = conversation(kib)
    prompt = f"<conversation>\n{text}\n</conversation>\n\n## Goal\n## Next Steps\n## Critical Context\n"
    seconds = best_of(lambda: summarize_extractively(prompt), 5)
    summary = summarize_extractively(prompt)
    print(
        f"offline   {len(prompt) / 1024:.0f} KiB prompt: {seconds * 1000:8.1f} ms "
        f"({len(prompt) / seconds / 1e6:.1f} MB/s), summary {len(summary)} chars"
    )
    asyncio.run(main_async(chunks))


if __name__ == "__main__":
    main()
