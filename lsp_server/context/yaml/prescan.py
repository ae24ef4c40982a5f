"""A linear look at flow nesting before ruamel sees the text.

ruamel's scanner keeps one possible simple key per open flow level and re-checks all of them for
every token, so ``[[[[…`` 2,000 deep costs it seconds (quadratic) before the composer's depth
limit is ever reached: the scanner reads the whole nest ahead looking for a ``:`` that would make
it a key. :func:`flow_depth_overflow` finds the bracket that opens more flow levels than the
depth limit in one pass, so that text is refused at once with the same ``LIMIT_DEPTH`` error.

It counts only what is certainly a flow collection: a ``[`` or ``{`` where a block node may start
(line start, after ``- ``, ``? ``, ``: ``) and every bracket inside an open flow collection;
quoted scalars, comments and block scalars (``|``, ``>``) are skipped. When in doubt it counts
nothing, and the composer's own limit still applies.
"""

from __future__ import annotations

import re

_BLOCK_SCALAR = re.compile(r"[|>][0-9+-]*\s*(?:#.*)?$")


def quoted_end(text: str, i: int, end: int) -> int | None:
    """Index after the quoted scalar starting at ``text[i]``, when it closes before ``end``
    (``\\`` escapes in double quotes, ``''`` in single quotes); ``None`` when it does not."""
    quote = text[i]
    i += 1
    while i < end:
        c = text[i]
        if quote == '"' and c == "\\":
            i += 2
            continue
        if c == quote:
            if quote == "'" and i + 1 < end and text[i + 1] == "'":
                i += 2
                continue
            return i + 1
        i += 1
    return None


def flow_depth_overflow(text: str, limit: int) -> int | None:
    """Index of the bracket that crosses ``limit`` collections, or None (one pass over ``text``).

    A flow collection that is a block mapping's value or a block sequence's item counts one more
    level (the block collection around it), as the composer counts; deeper block nesting is left
    to the composer.
    """
    depth = 0
    base = 0  # block collections around the outermost flow collection (one when it is a value or an item)
    after_indicator = False
    i = 0
    n = len(text)
    node_may_start = True  # at a line start (after indentation) or after "- ", "? ", ": "
    block_indent: int | None = None  # inside a block scalar deeper than this indentation
    line_indent = 0
    while i < n:
        c = text[i]
        if c == "\n":
            i += 1
            start = i
            while i < n and text[i] == " ":
                i += 1
            line_indent = i - start
            if block_indent is not None:
                if i < n and text[i] != "\n" and line_indent <= block_indent:
                    block_indent = None
                else:
                    nl = text.find("\n", i)
                    i = n if nl < 0 else nl
                    continue
            node_may_start = True
            after_indicator = False
            continue
        if c in "\"'":
            i = quoted_end(text, i, n) or n
            node_may_start = False
            continue
        if c == "#" and (i == 0 or text[i - 1] in " \t\n"):
            nl = text.find("\n", i)
            i = n if nl < 0 else nl
            continue
        if c in "[{" and (depth > 0 or node_may_start):
            if depth == 0:
                base = 1 if after_indicator else 0
            depth += 1
            if base + depth > limit:
                return i
            i += 1
            continue
        if c in "]}" and depth > 0:
            depth -= 1
            i += 1
            continue
        if depth == 0:
            if c in "-?:" and (i + 1 >= n or text[i + 1] in " \t\n"):
                node_may_start = True
                after_indicator = True
                if c == ":":
                    rest_end = text.find("\n", i)
                    rest = text[i + 1 : n if rest_end < 0 else rest_end].strip(" \t")
                    if _BLOCK_SCALAR.match(rest):
                        block_indent = line_indent
                i += 1
                continue
            if c in "|>" and node_may_start:
                rest_end = text.find("\n", i)
                if _BLOCK_SCALAR.match(text[i : n if rest_end < 0 else rest_end]):
                    block_indent = line_indent
            if c not in " \t":
                node_may_start = False
        i += 1
    return None
