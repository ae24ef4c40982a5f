"""The fast YAML readers give exactly the full parser's result (values, nodes, positions, warnings).

Two fast readers answer before ruamel's full parser: regular expressions for the plain
``key: value`` shape (``fast.py``) and libyaml's events under our composer (``libyaml.py``), for
every other text they are sure about. A differential run over generated frontmatter compares
``parse_yaml`` with ``parse_yaml(fast=False)``: the plain generator's documents (most of the simple
shape, many near misses) and the realistic one's (every shape real skills have: quoted values with
escapes, folded and literal block scalars with chomping and indentation indicators, block and flow
lists, nested maps, flow collections, comments, anchors and aliases, tags, explicit keys, unicode;
a quarter of them changed into near misses: tabs, CRLF, line separators, directives, document
markers, broken quotes and brackets, bad escapes, duplicate keys, keys over 1,024 characters,
truncation). The default tier runs a few thousand documents, the ``slow`` tier
(``PI_CONTEXT_SLOW=1 pytest -m slow``) and ``bench/bench_yaml.py --differential`` 300,000.
"""

from __future__ import annotations

import os
import random
from collections.abc import Callable

import pytest

from lsp_server.context.yaml import limits, parse_yaml
from lsp_server.context.yaml.fast import parse_simple
from lsp_server.context.yaml.libyaml import native_composer, parse_fast
from lsp_server.context.yaml.nodes import MapNode, ScalarNode, SeqNode
from lsp_server.context.yaml.schema import resolve_plain
from tests.context.yaml.frontmatter_gen import frontmatter, realistic

Generator = Callable[[random.Random], str]


def differences(seed: int, count: int, generators: tuple[Generator, ...]) -> tuple[int, int, list[str]]:
    """(documents the regular expressions read, documents libyaml read, documents where a result differs).

    A document differs when the fast readers' result is not the full parser's, when the regular
    expressions answer (they come first without the C module) with other nodes or another value, or
    when the C composer answers and its result is not the Python composer's over the same events.
    """
    rng = random.Random(seed)
    simple_hits = libyaml_hits = 0
    wrong: list[str] = []
    for index in range(count):
        text = generators[index % len(generators)](rng)
        simple = parse_simple(text)
        simple_hits += simple is not None
        in_c, in_python = parse_fast(text), parse_fast(text, native=False)
        libyaml_hits += in_c is not None
        full = parse_yaml(text, fast=False)
        if (
            repr(parse_yaml(text)) != repr(full)
            or (in_c is not None and repr(in_c) != repr(in_python))
            or (simple is not None and repr((simple[0], simple[1])) != repr((full.node, full.value)))
        ):
            wrong.append(text)
    return simple_hits, libyaml_hits, wrong


def test_the_fast_readers_equal_the_full_parser_on_generated_frontmatter() -> None:
    simple_hits, libyaml_hits, wrong = differences(seed=9, count=4000, generators=(frontmatter,))
    assert wrong[:5] == []
    assert simple_hits > 1000  # the generator does reach the plain shape (and misses it too)
    assert libyaml_hits > simple_hits


def test_the_fast_readers_equal_the_full_parser_on_realistic_frontmatter() -> None:
    _, libyaml_hits, wrong = differences(seed=10, count=3000, generators=(realistic,))
    assert wrong[:5] == []
    assert 1500 < libyaml_hits < 2900  # most take libyaml's path, the near misses do not


@pytest.mark.slow
@pytest.mark.skipif(not os.environ.get("PI_CONTEXT_SLOW"), reason="the large run: set PI_CONTEXT_SLOW=1")
def test_the_fast_readers_equal_the_full_parser_on_300000_generated_frontmatters() -> None:
    simple_hits, libyaml_hits, wrong = differences(seed=2026, count=300_000, generators=(frontmatter, realistic))
    assert wrong[:5] == []
    assert simple_hits > 25_000
    assert libyaml_hits > 150_000


@pytest.mark.parametrize(
    "text",
    [
        "name: demo\ndescription: Does things.\n",
        "name: demo\ndescription: Does things.\nmetadata:\n  owner: bench\n",
        "a:\nb: 1\n",
        "m:\n  a:\nb: 2",
        "a: 'q'\nb: \"d\"",
        "n: 0x1F\nf: 1e3\ni: .inf\nz: ~\nt: true\ny: yes\n",
        "name: démo 日本語 🚀\n",
    ],
)
def test_the_simple_shapes_take_the_regular_expressions(text: str) -> None:
    assert parse_simple(text) is not None
    assert repr(parse_yaml(text)) == repr(parse_yaml(text, fast=False))


@pytest.mark.parametrize(
    "text",
    [
        "a: x # comment\n",
        "a: x\n\nb: y\n",
        "a: 'it''s'\n",
        'a: "e\\n\\u00e9\\/"\n',
        "a: x\n  continued\n",
        "a: [1, {b: c}, [d]]\n",
        "a: &x 1\nb: *x\n",
        "true: 1\n",
        "- a\n- b\n",
        "d: >-\n  folded\n  text\n\n  more\nl: |+\n  kept\n\n",
        "allowed-tools:\n  - Read\n  - Bash(git:*)\n",
        "m: {a: , b}\nn:\n# c\no: 1\n",  # empty values: ruamel's places, not libyaml's
        "k: !!str 1\nt: !custom x\nb: !!binary aGk=\n",
        "? explicit\n: value\n",
        "name: démo 日本語 🚀\ndescription: 'x'\n# c\n",
    ],
)
def test_the_other_shapes_take_libyaml(text: str) -> None:
    assert parse_simple(text) is None
    assert parse_fast(text) is not None
    assert repr(parse_yaml(text)) == repr(parse_yaml(text, fast=False))


@pytest.mark.parametrize(
    "text",
    [
        "a: x\nb: y\na: z\n",  # an error: the full parser words it
        "a:\tb\n",  # ruamel refuses the tab and re-reads with a space
        "a: x\r\nb: y\r\n",
        "a: x\u2028y\n",  # a line break to YAML 1.1, not to 1.2
        "a: x\x85y\n",
        "a: \ufeffx\n",
        "a: \x01\n",
        "%YAML 1.2\n---\na: 1\n",
        "a: 1\n...\n",
        "a: |+# no blank before the comment\n  x\n",  # libyaml takes it, ruamel does not
        "a: !!!binary x\n",  # libyaml and ruamel split this tag differently
        "a: &http://x.y/z v\n",  # one anchor to YAML 1.2; libyaml ends it at the ":"
        "a: &x v\nb: *x:y\n",
        "k: !!str &a v\n",  # a tag before the anchor: the two start the node at different places
        '? a\n: "unclosed\n',
        "a: b: c\n",
        "a: [1, 2\n",
        "x" * 1030 + ": long key\n",
        "a: *missing\n",
    ],
)
def test_everything_else_falls_back_to_the_full_parser(text: str) -> None:
    assert parse_simple(text) is None
    assert parse_fast(text) is None


needs_native = pytest.mark.skipif(native_composer() is None, reason="built without the C composer (_native.c)")


@needs_native
@pytest.mark.parametrize(
    "text",
    [
        "a: x # comment\n",
        "a: x\n\nb: y\n",
        "a: 'it''s'\n",
        'a: "e\\n\\u00e9\\/"\n',
        "a: x\n  continued\n",
        "a: [1, {b: c}, [d]]\n",
        "- a\n- b\n",
        "d: >-\n  folded\n  text\n\n  more\nl: |+\n  kept\n\n",
        "allowed-tools:\n  - Read\n  - Bash(git:*)\n",
        "name: démo 日本語 🚀\ndescription: 'x'\n# c\nm:\n  tags: [é, 2]\n",
        "n: 0x1F\nf: 1e3\ni: .inf\nz: ~\nt: true\ny: yes\nneg: -0\n",
        "a: Null\nb: FALSE\nc: nul\nd: True\ne: tRUE\nf: null\ng: NULLS\nh: [~, false, Falsey, +1, .5, 012]\n",
        "a: [b,\n  c]\n",
        "# only a comment\n",
        "a: |\n  x",  # a block scalar at the end of text without a line break keeps one (yaml)
        "a: >+\n  x\n  y",
        "a: |-\n  x",
        "a: |2 # c\n   x",
        "a: |\n",
        "a:\nb: 1\n",  # left-out values, moved to ruamel's places as the Python composer moves them
        "a: \n# c\n\n  # d\nb:\nm:\n  x:\n  y: [z]\nlast:",
    ],
)
def test_the_c_composer_gives_the_python_composers_nodes_and_value(text: str) -> None:
    composed = native_composer()(  # type: ignore[misc]
        text, ScalarNode, MapNode, SeqNode, resolve_plain, limits.DEPTH.value, limits.NODES.value, limits.KEYS.value
    )
    assert composed is not None
    assert repr(parse_fast(text)) == repr(parse_fast(text, native=False))
    assert repr(parse_fast(text)) == repr(parse_yaml(text, fast=False))


@needs_native
@pytest.mark.parametrize(
    "text",
    [
        "a: &x 1\nb: *x\n",  # anchors and aliases: the Python composer shares the target
        "k: !!str 1\n",  # tags
        "true: 1\n",  # a key that is not a string
        "? [a]\n: v\n",  # a collection as a key
        "m: {a: , b}\n",  # an empty flow value: the Python composer moves it to ruamel's place
        "- \n- a\n",  # an empty sequence item
        "? \n: v\n",  # an empty key
        "a:\n? b\n: c\n",  # an empty value before an explicit key
        "a: x\nb: y\na: z\n",  # a duplicate key
        "a: 'q'# c\n",  # a comment not separated from the quote
        "k:\n  - 'a\n  b'\n",  # a quoted line no deeper than its block parent
        "k:\n  - [a,\n  b]\n",  # a flow line no deeper than its block parent
        "a: |+# c\n  x\n",  # a block scalar header ruamel reads otherwise
        "a: [1, 2\n",  # a libyaml error
        "a: \ud800\n",  # a lone surrogate (no UTF-8 for libyaml)
    ],
)
def test_the_c_composer_leaves_the_other_rules_to_the_python_composer(text: str) -> None:
    composed = native_composer()(  # type: ignore[misc]
        text, ScalarNode, MapNode, SeqNode, resolve_plain, limits.DEPTH.value, limits.NODES.value, limits.KEYS.value
    )
    assert composed is None
    assert repr(parse_yaml(text)) == repr(parse_yaml(text, fast=False))


@needs_native
def test_the_c_composer_stops_at_the_limits() -> None:
    deep = "a: " + "[" * 10 + "]" * 10 + "\n"
    compose = native_composer()
    assert compose is not None
    args = (ScalarNode, MapNode, SeqNode, resolve_plain)
    assert compose(deep, *args, 11, 1000, 1000) is not None
    assert compose(deep, *args, 10, 1000, 1000) is None  # 11 collections deep
    assert compose("a: [1, 2, 3]\n", *args, 10, 6, 1000) is not None
    assert compose("a: [1, 2, 3]\n", *args, 10, 5, 1000) is None  # 6 nodes: a mapping, a key, a list of 3
    assert compose("a: 1\nb: 2\n", *args, 10, 100, 2) is not None
    assert compose("a: 1\nb: 2\nc: 3\n", *args, 10, 100, 2) is None  # 3 keys
