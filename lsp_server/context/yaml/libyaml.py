"""The fast reader: libyaml's event stream, through PyYAML's ``CParser``, under our own composer.

ruamel's scanner and parser are pure Python, about 1 ms for a typical frontmatter: 80% of loading
1,000 real skills. libyaml (C) produces the same event stream (PyYAML and ruamel are both ports of
its design: the same events, the same start and end marks, in code points) some forty times
faster, but it reads YAML 1.1. Only its structure is used: the composer, the core schema's
resolution of each scalar (from its text and style), the JavaScript conversion and every check of
``yaml``'s are ours and the same as for ruamel's events.

:func:`parse_fast` answers only when it is sure to give what the full parser gives, and returns
``None`` otherwise (the caller runs the full parser):

- text where YAML 1.1 and 1.2 read characters differently, or where libyaml and ruamel do not
  agree on what is an error: tabs (ruamel refuses a tab between tokens, which the full parser then
  replaces), ``\\r``, NEL / LINE SEPARATOR / PARAGRAPH SEPARATOR (line breaks in YAML 1.1, not in
  1.2), a byte-order mark or a control character inside the text, lone surrogates;
- directives (``%`` lines) and document markers (``---``, ``...`` lines): the full parser's
  document-level rules decide;
- any error, whatever raises it (libyaml's syntax errors, the composer's checks and limits, an
  alias's resource rule): errors are rare and worded after ``yaml`` by the full parser, so it
  reports them all.

The equality with the full parser (values, nodes and their positions, warnings) is checked by a
differential test over generated frontmatter of every shape real skills have and their near misses
(``tests/context/yaml/test_fast.py``; the large run in the ``slow`` tier and
``bench/bench_yaml.py --differential``) and by the YAML goldens.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from lsp_server.base.native import native_module
from lsp_server.context.yaml.compose import Composer, EventTypes, pyyaml_event_types
from lsp_server.context.yaml.limits import DEPTH, KEYS, NODES
from lsp_server.context.yaml.nodes import MapNode, ScalarNode, SeqNode
from lsp_server.context.yaml.result import YamlResult
from lsp_server.context.yaml.schema import resolve_plain
from lsp_server.context.yaml.to_js import to_js

# Characters the fast reader leaves to the full parser: everything but the line feed, printable
# ASCII and the printable characters beyond Latin-1's controls, less U+2028/U+2029 (line breaks to
# libyaml) and U+FEFF (a byte-order mark); surrogates and U+FFFE/U+FFFF are not printable in YAML.
_LEFT_TO_THE_FULL_PARSER = re.compile(
    "[^\n\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]"
)
_DOCUMENT_LEVEL = ("%", "---", "...")


@cache
def _event_types() -> EventTypes:
    return pyyaml_event_types()


@cache
def _parser_class() -> Any | None:
    """PyYAML's libyaml binding, or ``None`` when PyYAML was built without it (then there is no fast path)."""
    try:
        from yaml._yaml import CParser
    except ImportError:  # pragma: no cover - the wheels on PyPI all carry libyaml
        return None
    return CParser


@cache
def native_composer() -> Any | None:
    """The C composer (``_native.c``), or ``None`` when the package was built without it or
    ``PI_CONTEXT_NATIVE=0`` turns it off (the differential tests and benchmarks compare both)."""
    module = native_module("lsp_server.context.yaml._native")
    return None if module is None else module.compose


def parse_fast(text: str, *, native: bool = True) -> YamlResult | None:
    """What :func:`~lsp_server.context.yaml.parse.parse_yaml`'s full parser gives for ``text`` when
    the text parses without error and nothing in it is read differently by libyaml; else ``None``.

    The C composer answers first where it is sure (``native=False`` skips it: the differential
    tests compare it with the Python composer), the Python composer over PyYAML's events otherwise.
    """
    parser_class = _parser_class()
    if parser_class is None or not _libyaml_reads_it(text):
        return None
    if native:
        composed = _compose_in_c(text)
        if composed is not None:
            return composed
    try:
        composer = Composer(text, parser_class(text).get_event, {}, text, _event_types())
        node = composer.compose()
        value = to_js(node)
    except Exception:
        return None
    if composer.expanded_overflow is not None:
        return None
    return YamlResult(value, node, None, tuple(composer.warnings))


def parse_in_c(text: str) -> YamlResult | None:
    """:func:`parse_fast`'s answer when the C composer gives it; ``None`` when it leaves the text to
    the Python composer or the full parser, or is not built (the benchmarks count who reads what)."""
    return _compose_in_c(text) if _libyaml_reads_it(text) else None


def _libyaml_reads_it(text: str) -> bool:
    """Nothing in ``text`` that libyaml reads otherwise than the full parser (see the module's list)."""
    if "\t" in text or "\r" in text or text.startswith(_DOCUMENT_LEVEL):
        return False
    return not ("\n%" in text or "\n---" in text or "\n..." in text or _LEFT_TO_THE_FULL_PARSER.search(text))


def _compose_in_c(text: str) -> YamlResult | None:
    compose = native_composer()
    if compose is None:
        return None
    composed = compose(text, ScalarNode, MapNode, SeqNode, resolve_plain, DEPTH.value, NODES.value, KEYS.value)
    return None if composed is None else YamlResult(composed[1], composed[0])
