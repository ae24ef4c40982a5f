"""How far are Pi's chars/4 and our weighted presets from real tokenizers? (docs/tokens.md)

Builds the corpus of ``token_corpus.py`` from this machine, counts every category exactly with
each vocabulary quicktok ships (o200k, cl100k, Llama 3, Qwen2.5/3), and prints Markdown tables:
token counts, whole-category error of ``ceil(chars/4)`` and of the ``gpt`` preset, and per-chunk
(1,000 characters) error statistics. Claude has no offline tokenizer, so the ``claude`` and
``claude47`` presets are only compared with the ``gpt`` preset here.

    python bench/measure_token_error.py > /tmp/token-error.md
"""

from __future__ import annotations

import statistics
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from token_corpus import MAIN, build_corpus

from lsp_server.js.strings import js_len, utf8_len
from lsp_server.tokens.exact import EXACT_ENCODINGS, load_exact_counter
from lsp_server.tokens.pi import pi_text_tokens
from lsp_server.tokens.weighted import weighted_tokens

CHUNK = 1000
Counter = Callable[[str], int]


def _chunks(text: str) -> list[str]:
    return [text[i : i + CHUNK] for i in range(0, len(text), CHUNK) if len(text[i : i + CHUNK]) >= CHUNK // 2]


def _pct(value: float) -> str:
    return f"{value * 100:+.0f}%"


def _table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def main() -> None:
    corpus = build_corpus()
    exact: dict[str, Counter] = {family: load_exact_counter(family).count for family in EXACT_ENCODINGS}
    estimators: dict[str, Counter] = {
        "chars/4": pi_text_tokens,
        "gpt": lambda t: weighted_tokens(t, "gpt"),
        "claude": lambda t: weighted_tokens(t, "claude"),
        "claude47": lambda t: weighted_tokens(t, "claude47"),
    }
    truth = {cat: {fam: count(text) for fam, count in exact.items()} for cat, text in corpus.items()}
    estimate = {cat: {name: est(text) for name, est in estimators.items()} for cat, text in corpus.items()}
    main_cats = [c for c in MAIN if c in corpus]
    extra_cats = [c for c in corpus if c not in MAIN]

    print("### Corpus and token counts\n")
    header = ["category", "chars", "UTF-8 bytes", *exact, *estimators]
    rows = [
        [cat, f"{js_len(corpus[cat]):,}", f"{utf8_len(corpus[cat]):,}"]
        + [f"{truth[cat][f]:,}" for f in exact]
        + [f"{estimate[cat][e]:,}" for e in estimators]
        for cat in corpus
    ]
    print(_table(header, rows))

    for name in ("chars/4", "gpt"):
        print(f"\n### Error of `{name}` per category (estimate / exact - 1; negative = underestimate)\n")
        rows = []
        for cat in [*main_cats, *extra_cats]:
            rows.append([cat] + [_pct(estimate[cat][name] / truth[cat][f] - 1) for f in exact])
        total_est = sum(estimate[c][name] for c in main_cats)
        rows.append(
            ["**all main categories**"]
            + [f"**{_pct(total_est / sum(truth[c][f] for c in main_cats) - 1)}**" for f in exact]
        )
        chunk_stats = {f: _chunk_errors(corpus, main_cats, estimators[name], exact[f]) for f in exact}
        rows.append(
            ["chunk MAPE (1,000 chars)"]
            + [f"{statistics.mean(map(abs, errs)) * 100:.1f}%" for errs in chunk_stats.values()]
        )
        rows.append(
            ["chunk 95th pct abs error"]
            + [f"{_quantile([abs(e) for e in errs], 0.95) * 100:.0f}%" for errs in chunk_stats.values()]
        )
        rows.append(
            ["chunks under by >10%"]
            + [f"{sum(e < -0.10 for e in errs) / len(errs) * 100:.0f}%" for errs in chunk_stats.values()]
        )
        print(_table(["category", *exact], rows))

    print("\n### Claude presets relative to the gpt preset (no offline Claude tokenizer to compare with)\n")
    rows = [
        [cat] + [f"{estimate[cat][p] / max(estimate[cat]['gpt'], 1):.2f}x" for p in ("claude", "claude47")]
        for cat in [*main_cats, *extra_cats]
    ]
    print(_table(["category", "claude / gpt", "claude47 / gpt"], rows))
    n_chunks = sum(len(_chunks(corpus[c])) for c in main_cats)
    print(f"\n{n_chunks} chunks of {CHUNK} characters in the main categories.")


def _chunk_errors(corpus: dict[str, str], cats: list[str], est: Counter, true: Counter) -> list[float]:
    errors = []
    for cat in cats:
        for chunk in _chunks(corpus[cat]):
            real = true(chunk)
            if real:
                errors.append(est(chunk) / real - 1)
    return errors


def _quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


if __name__ == "__main__":
    main()
