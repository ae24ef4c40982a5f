"""How long pathological frontmatter takes to parse, and which limit stops it (issue 12).

Run: ``python bench/bench_yaml.py [case ...]`` (default: every case). Each case is a SKILL.md
whose YAML once took tens of seconds or crashed (a million keys, 100,000 anchors and aliases,
flow sequences nested thousands deep, ...). It prints the time of ``parse_frontmatter`` and the
error that ended it; every case must finish in seconds with an error naming a limit (or yaml's
own resource-exhaustion rule), never hang.

``--differential N``: the fast readers (``lsp_server/context/yaml/fast.py`` for the plain shape,
``libyaml.py`` for the rest) against the full parser on N generated frontmatters (the test suite's
two generators, plain-shaped and realistic): how many each reader took, how many differ (must be
0), and the time per document with and without the fast readers.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

from lsp_server.context.frontmatter import parse_frontmatter


def _keys(count: int) -> str:
    return "\n".join(f"k{i}: v" for i in range(count))


CASES: dict[str, Callable[[], str]] = {
    "keys-1M": lambda: _keys(1_000_000),
    "keys-100k": lambda: _keys(100_000),
    "anchors+aliases-100k (mapping)": lambda: (
        "\n".join(f"k{i}: &a{i} x" for i in range(100_000)) + "\n" + "\n".join(f"r{i}: *a{i}" for i in range(100_000))
    ),
    "anchors+aliases-100k (flow list)": lambda: "[" + ", ".join(f"&{i} x, *{i}" for i in range(50_000)) + "]",
    "aliases-100k of one anchor": lambda: "a: &a x\nb:\n" + "\n".join("- *a" for _ in range(100_000)),
    "flow-seq nested 2,000": lambda: "a: " + "[" * 2_000 + "]" * 2_000,
    "flow-seq nested 20,000": lambda: "a: " + "[" * 20_000 + "]" * 20_000,
    "flow-map nested 5,000": lambda: "a: " + "{a: " * 5_000 + "1" + "}" * 5_000,
    "block-seq nested 5,000": lambda: "- " * 5_000 + "x",
    "8 MB scalar": lambda: "description: " + "x" * 8_000_000,
    "64 tabs after 900 kB": lambda: "x: " + "y" * 900_000 + "\n" + "\n".join(f"k{i}:\tv" for i in range(64)),
    "self-aliases 10k": lambda: "a: &t [" + ", ".join(["*t"] * 9_999) + "]",
    "billion laughs": lambda: (
        "a: &a [x,x,x,x,x,x,x,x,x,x]\n"
        + "\n".join(f"{chr(98 + i)}: &{chr(98 + i)} [" + ", ".join([f"*{chr(97 + i)}"] * 10) + "]" for i in range(8))
    ),
}


def differential(count: int, seed: int = 2026) -> None:
    import random
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from lsp_server.context.yaml import parse_yaml
    from lsp_server.context.yaml.fast import parse_simple
    from lsp_server.context.yaml.libyaml import native_composer, parse_fast, parse_in_c
    from tests.context.yaml.frontmatter_gen import frontmatter, realistic

    rng = random.Random(seed)
    texts = [(frontmatter, realistic)[index % 2](rng) for index in range(count)]
    in_c = sum(parse_in_c(text) is not None for text in texts)
    libyaml = sum(parse_fast(text) is not None for text in texts)
    simple = sum(parse_simple(text) is not None for text in texts)
    start = time.perf_counter()
    fast = [repr(parse_yaml(text)) for text in texts]
    fast_s = time.perf_counter() - start
    start = time.perf_counter()
    full = [repr(parse_yaml(text, fast=False)) for text in texts]
    full_s = time.perf_counter() - start
    wrong = [text for text, a, b in zip(texts, fast, full, strict=True) if a != b]
    c_module = "built" if native_composer() is not None else "not built: PI_CONTEXT_NATIVE=0 or no C module"
    print(
        f"{count:,} generated frontmatters (half plain-shaped, half realistic): {libyaml:,} read by libyaml's"
        f" events, {in_c:,} of them composed in C (the C composer {c_module}), {count - libyaml:,} by the full"
        f" parser; {simple:,} of the plain shape the regular expressions read (first without the C module);"
        f" {len(wrong)} differ"
    )
    print(
        f"per document: {fast_s / count * 1e6:.0f} us with the fast readers, {full_s / count * 1e6:.0f} us full parser"
    )
    for text in wrong[:5]:
        print(f"  differs: {text!r}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cases", nargs="*", metavar="case", help=f"one of: {', '.join(CASES)}")
    parser.add_argument("--differential", type=int, metavar="N", help="fast readers vs full parser on N documents")
    args = parser.parse_args()
    if args.differential:
        differential(args.differential)
        return
    names = args.cases or list(CASES)
    unknown = [name for name in names if name not in CASES]
    if unknown:
        parser.error(f"unknown case(s): {', '.join(unknown)}")
    for name in names:
        text = "---\n" + CASES[name]() + "\n---\nbody\n"
        start = time.perf_counter()
        fm = parse_frontmatter(text)
        elapsed = time.perf_counter() - start
        error = fm.error
        outcome = f"{error.code}: {error.message.splitlines()[0]}" if error else f"read ({type(fm.data).__name__})"
        print(f"{name:34} {elapsed:6.2f} s  {outcome}", flush=True)


if __name__ == "__main__":
    main()
