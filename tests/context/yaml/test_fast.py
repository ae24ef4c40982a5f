"""The YAML fast path gives exactly the full parser's result (values, nodes, positions, errors).

A differential run over generated frontmatter (most of it of the simple shape, much of it a near
miss that must fall back): the default tier runs a few thousand documents, the ``slow`` tier
(``PI_CONTEXT_SLOW=1 pytest -m slow``) and ``bench/bench_yaml.py --differential`` hundreds of thousands.
"""

from __future__ import annotations

import os
import random

import pytest

from lsp_server.context.yaml import parse_yaml
from lsp_server.context.yaml.fast import parse_simple
from tests.context.yaml.frontmatter_gen import frontmatter


def differences(seed: int, count: int) -> tuple[int, list[str]]:
    """(how many documents took the fast path, the documents where the two parsers differ)."""
    rng = random.Random(seed)
    fast_hits = 0
    wrong: list[str] = []
    for _ in range(count):
        text = frontmatter(rng)
        if parse_simple(text) is not None:
            fast_hits += 1
        if repr(parse_yaml(text)) != repr(parse_yaml(text, fast=False)):
            wrong.append(text)
    return fast_hits, wrong


def test_the_fast_path_equals_the_full_parser_on_generated_frontmatter() -> None:
    fast_hits, wrong = differences(seed=9, count=4000)
    assert wrong[:5] == []
    assert fast_hits > 1000  # the generator does reach the fast path (and misses it too)


@pytest.mark.slow
@pytest.mark.skipif(not os.environ.get("PI_CONTEXT_SLOW"), reason="the large run: set PI_CONTEXT_SLOW=1")
def test_the_fast_path_equals_the_full_parser_on_300000_generated_frontmatters() -> None:
    fast_hits, wrong = differences(seed=2026, count=300_000)
    assert wrong[:5] == []
    assert fast_hits > 50_000


@pytest.mark.parametrize(
    "text",
    [
        "name: demo\ndescription: Does things.\n",
        "name: demo\ndescription: Does things.\nmetadata:\n  owner: bench\n",
        "a:\nb: 1\n",
        "m:\n  a:\nb: 2",
        "a: 'q'\nb: \"d\"",
        "n: 0x1F\nf: 1e3\ni: .inf\nz: ~\nt: true\ny: yes\n",
    ],
)
def test_the_simple_shapes_take_the_fast_path(text: str) -> None:
    assert parse_simple(text) is not None
    assert repr(parse_yaml(text)) == repr(parse_yaml(text, fast=False))


@pytest.mark.parametrize(
    "text",
    [
        "a: x # comment\n",
        "a: x\n\nb: y\n",
        "a: x\nb: y\na: z\n",
        "a:\tb\n",
        "a: 'it''s'\n",
        'a: "e\\n"\n',
        "a: b: c\n",
        "a: x\n  continued\n",
        "a: [1, 2]\n",
        "a: &x 1\nb: *x\n",
        "true: 1\n",
        "a: x\r\nb: y\r\n",
        "  a: x\n",
        "- a\n",
    ],
)
def test_anything_else_falls_back_to_the_full_parser(text: str) -> None:
    assert parse_simple(text) is None
