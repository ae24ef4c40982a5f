"""Frontmatter exactly as Pi splits and parses it (``utils/frontmatter.js``), with file positions.

Pi's rules (pi-behavior.md §5.4) have quirks a "normal" frontmatter parser does not share, and
a skill's fate depends on them: the text is BOM-stripped and newline-normalized first; it has
frontmatter only if it *starts* with ``---`` (the rest of that line need not be empty:
``---name: x`` parses the YAML ``ame: x``); the YAML ends at the first ``\\n---`` at or after
index 3 (so ``\\n----`` or ``\\n---foo`` close it too); the body after the fence is trimmed; an
empty or ``null`` YAML document is ``{}``; a YAML list or scalar is returned as is.

On top of Pi's answer we keep where things are: every YAML node's offsets are mapped back to
(line, column) in the text the user edits, so a finding can underline the ``name`` value even
when the file has a BOM or CRLF line endings.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from lsp_server.base.findings import Position, Range
from lsp_server.context.yaml import MapNode, ScalarNode, YamlError, YamlNode, YamlResult, parse_yaml, property_name
from lsp_server.js.strings import js_trim, normalize_newlines, strip_bom

FENCE = "---"


@dataclass(frozen=True)
class FrontmatterSplit:
    """``extractFrontmatter``: the YAML text (None when there is no frontmatter) and the body."""

    normalized: str
    yaml_text: str | None
    body: str
    has_opening_fence: bool  # the text starts with ---
    close_index: int  # index of the "\n---" in ``normalized``, -1 when unclosed/absent


def split_frontmatter(content: str) -> FrontmatterSplit:
    normalized = normalize_newlines(strip_bom(content))
    if not normalized.startswith(FENCE):
        return FrontmatterSplit(normalized, None, normalized, False, -1)
    end = normalized.find("\n---", 3)
    if end == -1:
        return FrontmatterSplit(normalized, None, normalized, True, -1)
    return FrontmatterSplit(normalized, normalized[4:end], js_trim(normalized[end + 4 :]), True, end)


@dataclass(frozen=True)
class FieldLocation:
    """Where a top-level frontmatter key and its value are in the file."""

    key: str
    key_range: Range
    value_range: Range
    value: Any
    node: YamlNode


@dataclass(frozen=True)
class Frontmatter:
    """Pi's ``parseFrontmatter`` result plus positions; a YAML error is a value, not an exception."""

    data: Any  # Pi's ``frontmatter``: {} when absent/empty/null, else the parsed value
    body: str
    split: FrontmatterSplit
    yaml: YamlResult | None
    _lines: _LineMap = field(repr=False)

    @property
    def error(self) -> YamlError | None:
        return self.yaml.error if self.yaml is not None else None

    @property
    def has_frontmatter(self) -> bool:
        """True when Pi found a closed frontmatter block (it may still be empty or invalid)."""
        return self.split.close_index >= 0

    @property
    def is_unclosed(self) -> bool:
        return self.split.has_opening_fence and self.split.close_index < 0

    @property
    def mapping(self) -> MapNode | None:
        node = self.yaml.node if self.yaml is not None else None
        return node if isinstance(node, MapNode) else None

    # -- positions ------------------------------------------------------------------------

    def yaml_position(self, offset: int) -> Position:
        """File position of a code-point offset into the YAML text."""
        return self._lines.position(4 + offset)

    def yaml_range(self, start: int, end: int) -> Range:
        return Range(self.yaml_position(start), self.yaml_position(max(start, end)))

    def node_range(self, node: YamlNode) -> Range:
        start = node.value_start if isinstance(node, ScalarNode) else node.start
        end = _trim_trailing_space(self.split.yaml_text or "", start, node.end)
        return self.yaml_range(start, end)

    def opening_fence_range(self) -> Range:
        return Range(self._lines.position(0), self._lines.position(min(3, len(self.split.normalized))))

    def closing_fence_range(self) -> Range | None:
        if self.split.close_index < 0:
            return None
        start = self.split.close_index + 1
        return Range(self._lines.position(start), self._lines.position(start + 3))

    def frontmatter_range(self) -> Range:
        """The whole block from the opening to the closing fence (or the opening fence alone)."""
        close = self.closing_fence_range()
        opening = self.opening_fence_range()
        return Range(opening.start, close.end) if close is not None else opening

    def first_line_range(self) -> Range:
        first = self.split.normalized.split("\n", 1)[0]
        return Range(self._lines.position(0), self._lines.position(len(first)))

    def error_range(self) -> Range:
        """Where a YAML error points (the whole frontmatter when the error has no position)."""
        error = self.error
        if error is None or not error.positioned:
            return self.frontmatter_range()
        return self.yaml_range(error.start, min(error.end, len(self.split.yaml_text or "")))

    # -- fields ----------------------------------------------------------------------------

    @cached_property
    def _pairs_by_name(self) -> dict[str, tuple[YamlNode, YamlNode]]:
        """Top-level pairs by JS property name, in first-seen order; the last pair of a name wins,
        as in the object Pi gets (``1: a`` and ``"1": b`` are both the property ``"1"``)."""
        mapping = self.mapping
        if mapping is None:
            return {}
        return {property_name(key): (key, value) for key, value in mapping.pairs}

    def field(self, key: str) -> FieldLocation | None:
        pair = self._pairs_by_name.get(key)
        if pair is None:
            return None
        key_node, value_node = pair
        value = self.data.get(key) if isinstance(self.data, dict) else None
        return FieldLocation(key, self.node_range(key_node), self.node_range(value_node), value, value_node)

    def fields(self) -> list[FieldLocation]:
        out: list[FieldLocation] = []
        for name in self._pairs_by_name:
            located = self.field(name)
            if located is not None:
                out.append(located)
        return out

    def position(self, offset: int) -> Position:
        """File position of an offset into the normalized (BOM-less, ``\\n``-only) text."""
        return self._lines.position(offset)

    @property
    def has_bom(self) -> bool:
        return self._lines.bom

    def body_lines(self) -> tuple[int, list[str]]:
        """The lines after the closing fence (all lines without frontmatter) and the first one's number."""
        lines = self.split.normalized.split("\n")
        first = self.body_start_line()
        return first, lines[first:]

    def body_start_line(self) -> int:
        """0-based line of the first body line (after the closing fence's line)."""
        if self.split.close_index < 0:
            return 0
        return self._lines.position(self.split.close_index + 1).line + 1


def _trim_trailing_space(text: str, start: int, end: int) -> int:
    # ruamel's end marks of block scalars and multi-line values include the trailing newline(s).
    while end > start and end <= len(text) and text[end - 1] in " \t\n":
        end -= 1
    return end


class _LineMap:
    """Offsets in the normalized text -> (line, column) in the original text.

    Line starts are found only as far as a position is asked for: the frontmatter's positions
    are near the top, and a 50 MB body must not cost a pass over all its lines to place them.
    """

    def __init__(self, normalized: str, bom: bool) -> None:
        self.starts = [0]
        self._text = normalized
        self._next = 0  # where the search for the next line start resumes; past the end when done
        self.bom = bom

    def _extend(self, offset: int) -> None:
        text, index = self._text, self._next
        while index <= offset:
            newline = text.find("\n", index)
            if newline < 0:
                index = len(text) + 1
                break
            index = newline + 1
            self.starts.append(index)
        self._next = index

    def position(self, offset: int) -> Position:
        if offset >= self._next:
            self._extend(offset)
        line = bisect_right(self.starts, offset) - 1
        column = offset - self.starts[line]
        if line == 0 and self.bom:
            column += 1
        return Position(line, column)


def parse_frontmatter(content: str) -> Frontmatter:
    """Pi's ``parseFrontmatter`` (without throwing: a YAML failure is in ``.error``)."""
    split = split_frontmatter(content)
    lines = _LineMap(split.normalized, content.startswith("\ufeff"))
    if not split.yaml_text:
        return Frontmatter({}, split.body, split, None, lines)
    result = parse_yaml(split.yaml_text)
    data: Any = {} if result.value is None else result.value
    if result.error is not None:
        data = {}
    return Frontmatter(data, split.body, split, result, lines)


def strip_frontmatter(content: str) -> str:
    """Pi's ``stripFrontmatter``: the body (trimmed only when there was frontmatter)."""
    return parse_frontmatter(content).body
