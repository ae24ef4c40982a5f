"""A fast path for the frontmatter nearly every skill has: block mappings of one-line scalars.

``name: demo`` / ``description: Does things.`` / ``metadata:`` with indented ``key: value``
lines under it: that is what almost every SKILL.md holds, and running ruamel's pure-Python
scanner over it cost ~80% of loading 1,000 skills. :func:`parse_simple` reads exactly that
shape with one regular expression per line and builds the same nodes (values from the same
core-schema resolution, positions by the same rules) the full parser would. Anything else
returns ``None`` and the caller runs the full parser: comments, blank lines, tabs, ``\\r``,
flow or block-scalar indicators, anchors, tags, aliases, sequences, multi-line scalars,
escapes inside quotes, ``:`` or ``#`` inside a plain scalar, a key that is not a plain word or
is over 1,000 characters long, duplicate or non-string keys, unusual characters, or more than :data:`MAX_LINES` lines.

The equality with the full parser (values, nodes and their positions, errors) is checked by a
differential test over generated frontmatter (``tests/context/yaml/test_fast.py``; the large run
is in the ``slow`` tier and ``bench/bench_yaml.py --differential``) and by the YAML goldens.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from lsp_server.context.yaml.nodes import MapNode, ScalarNode, YamlNode
from lsp_server.context.yaml.schema import resolve_plain

MAX_LINES = 1_000  # beyond this, the full parser (and its limits) take over
MAX_DEPTH = 8  # nested mappings the fast path follows
MAX_KEY = 1_000  # longer keys go to the full parser (YAML's implicit keys end at 1,024 characters)

# indent, key, then either nothing or spaces and a value that runs to the end of the line
_LINE = re.compile(r"( *)([A-Za-z_][A-Za-z0-9_-]*):(?:( +)(.*))?")
# a plain scalar: no indicator first, no ':' or ' #' inside, no trailing blank, no tab
_PLAIN = re.compile(r"[^\s\-?:,\[\]{}#&*!|>'\"%@`](?:[^:\t]*[^\s:])?")
_SINGLE = re.compile(r"'([^'\t]*)'")
_DOUBLE = re.compile(r'"([^"\\\t]*)"')
_UNUSUAL = frozenset("\x85\u2028\u2029\ufeff")
# What no simple document holds, found in one search before any line is split: a value that opens a
# block scalar, a flow collection, an anchor, an alias or a tag; a sequence entry; a comment line.
_OTHER_SHAPE = re.compile(r": +[|>\[{&*!]|(?:^|\n) *(?:-(?: |\n|$)|#)")


def _ordinary(text: str) -> bool:
    """Only printable characters that no YAML reader treats specially (ASCII fast; others checked)."""
    if text.isascii():
        return text.isprintable()
    for char in text:
        if char.isascii():
            if not char.isprintable():
                return False
        elif char in _UNUSUAL or (unicodedata.category(char)[0] in "CZ" and char != "\u00a0"):
            return False
    return True


class _Fallback(Exception):
    """The text is not of the simple shape: use the full parser."""


def parse_simple(text: str) -> tuple[MapNode, dict[str, Any]] | None:
    """The document's node and JavaScript value if ``text`` is a simple block mapping, else ``None``.

    ``None`` means: use the full parser. The value is what ``to_js`` gives for the node (string
    keys only, no aliases), built on the way.
    """
    if "\r" in text or "\t" in text or ("#" in text and " #" in text) or _OTHER_SHAPE.search(text):
        return None
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the text's final line break
    if not lines or len(lines) > MAX_LINES or not _ordinary(text.replace("\n", "")):
        return None
    starts: list[int] = []
    offset = 0
    for line in lines:
        starts.append(offset)
        offset += len(line) + 1
    parsed = []
    for line in lines:
        match = _LINE.fullmatch(line)
        if match is None:
            return None
        parsed.append(match)
    if parsed[0].group(1):
        return None  # an indented first line: the full parser decides
    try:
        node, value, end_line = _mapping(parsed, starts, len(text), 0, 0, 0)
    except _Fallback:
        return None
    if end_line != len(parsed):
        return None
    return node, value


def _mapping(
    lines: list[re.Match[str]], starts: list[int], size: int, first: int, indent: int, depth: int
) -> tuple[MapNode, dict[str, Any], int]:
    """The mapping whose keys sit at column ``indent`` from line ``first``: node, value, next line."""
    if depth > MAX_DEPTH:
        raise _Fallback
    pairs: list[tuple[YamlNode, YamlNode]] = []
    mapping: dict[str, Any] = {}
    index = first
    while index < len(lines):
        match = lines[index]
        column = len(match.group(1))
        if column < indent:
            break
        if column > indent:
            raise _Fallback  # an indented line that is no nested mapping's: a continuation, an error...
        key_text = match.group(2)
        if len(key_text) > MAX_KEY:
            raise _Fallback  # an implicit key may span 1,024 characters at most: the full parser's error
        key_start = starts[index] + column
        key_value = resolve_plain(key_text)
        if not isinstance(key_value, str) or key_text in mapping:
            raise _Fallback  # null/bool/number keys and duplicates: the full parser's rules and errors
        key = ScalarNode(key_start, key_start + len(key_text), source=key_text, value=key_value, value_start=key_start)
        raw = match.group(4)
        index += 1
        value: YamlNode
        if raw is None or raw == "":
            if match.group(3):
                raise _Fallback  # "key: " with trailing blanks
            following = _next_column(lines, index)
            if following is not None and following > indent:
                value, mapping[key_text], index = _mapping(lines, starts, size, index, following, depth + 1)
            else:
                at = starts[index] + len(lines[index].group(1)) if index < len(lines) else size
                value = ScalarNode(at, at, source="", value=None, value_start=at)
                mapping[key_text] = None
        else:
            scalar = _scalar(raw, key_start + len(key_text) + 1 + len(match.group(3)))
            value, mapping[key_text] = scalar, scalar.value
        pairs.append((key, value))
    if not pairs:
        raise _Fallback
    end = starts[index] + len(lines[index].group(1)) if index < len(lines) else size
    return MapNode(pairs[0][0].start, end, pairs=pairs), mapping, index


def _next_column(lines: list[re.Match[str]], index: int) -> int | None:
    return len(lines[index].group(1)) if index < len(lines) else None


def _scalar(raw: str, start: int) -> ScalarNode:
    end = start + len(raw)
    if raw[0] == "'":
        quoted = _SINGLE.fullmatch(raw)
        if quoted is None:
            raise _Fallback
        return ScalarNode(start, end, source=quoted.group(1), style="'", value=quoted.group(1), value_start=start)
    if raw[0] == '"':
        quoted = _DOUBLE.fullmatch(raw)
        if quoted is None:
            raise _Fallback
        return ScalarNode(start, end, source=quoted.group(1), style='"', value=quoted.group(1), value_start=start)
    if _PLAIN.fullmatch(raw) is None or " #" in raw:
        raise _Fallback
    return ScalarNode(start, end, source=raw, value=resolve_plain(raw), value_start=start)
