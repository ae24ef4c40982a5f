"""Speed of the token counters on ~10 MB of mixed text (docs/tokens.md, "Speed").

Best of three runs per counter; throughput is UTF-8 megabytes per second. The exact counters
are timed on a text they have not seen (quicktok caches nothing across different texts, but
the first call includes no vocabulary load: that is timed separately).

    python bench/bench_tokens.py
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from token_corpus import build_corpus

from lsp_server.tokens.exact import EXACT_ENCODINGS, ExactUnavailable, load_exact_counter
from lsp_server.tokens.pi import pi_text_tokens
from lsp_server.tokens.weighted import weighted_tokens

TARGET_BYTES = 10_000_000


def _best(fn: Callable[[], object], runs: int = 3) -> float:
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    corpus = "\n\n".join(build_corpus().values())
    unit = len(corpus.encode("utf-8"))
    text = corpus * max(1, TARGET_BYTES // unit)
    megabytes = len(text.encode("utf-8")) / 1e6
    messages = [text[i : i + 1000] for i in range(0, 1_000_000, 1000)]
    print(f"text: {megabytes:.1f} MB ({len(text):,} characters); messages: {len(messages)} x 1,000 characters\n")
    print("| counter | time for the text | MB/s | per 1,000-char message |")
    print("|---|---|---|---|")
    counters: dict[str, Callable[[str], int]] = {
        "pi (chars/4)": pi_text_tokens,
        "weighted gpt": lambda t: weighted_tokens(t, "gpt"),
        "weighted claude47": lambda t: weighted_tokens(t, "claude47"),
    }
    for family in EXACT_ENCODINGS:
        try:
            start = time.perf_counter()
            counter = load_exact_counter(family)
            counter.count("warm up")
            load = time.perf_counter() - start
        except ExactUnavailable as exc:
            print(f"| exact {family} | unavailable: {exc} | | |")
            continue
        counters[f"exact {family} (vocabulary load {load * 1000:.0f} ms)"] = counter.count
    for name, count in counters.items():
        whole = _best(lambda count=count: count(text))  # type: ignore[misc]
        per_message = _best(lambda count=count: [count(m) for m in messages]) / len(messages)  # type: ignore[misc]
        print(f"| {name} | {whole * 1000:.0f} ms | {megabytes / whole:,.0f} | {per_message * 1e6:.1f} µs |")


if __name__ == "__main__":
    main()
