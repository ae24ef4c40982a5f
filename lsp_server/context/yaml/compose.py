"""Nodes from ruamel's event stream, with ``yaml``'s composition rules and pi-context's limits.

The composer walks ruamel's events (which carry start and end marks) and builds
:mod:`~lsp_server.context.yaml.nodes` with their source ranges, resolving scalars with the core
schema (:mod:`~lsp_server.context.yaml.schema`). It also enforces what ``yaml`` checks while
composing and ruamel does not: unique keys (by JavaScript ``===`` on the key's value, so ``1``
and ``1.0`` collide and two ``.nan`` keys do not), a single document, quoted scalars and flow
collections indented deeper than their block parent, comments separated by white space, known
collection tags. Every check is linear: duplicate keys are found with a set. Composition stops
with a limit error at the node that crosses one of :mod:`~lsp_server.context.yaml.limits` (the
expanded size is only recorded here and reported after the conversion); the nesting limit also
bounds the recursion of this walk and of every later walk over the nodes.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from lsp_server.context.yaml import limits
from lsp_server.context.yaml.errors import Failure, YamlWarning, end_of_line, parse_failure
from lsp_server.context.yaml.nodes import AliasNode, MapNode, ScalarNode, SeqNode, YamlNode
from lsp_server.context.yaml.reader import unmask
from lsp_server.context.yaml.schema import TAG_PREFIX, resolve_plain, resolve_tagged
from lsp_server.js.values import strict_equality_key

_KNOWN_COLLECTION_TAGS = frozenset({TAG_PREFIX + "set", TAG_PREFIX + "omap", TAG_PREFIX + "pairs"})


def limit_failure(limit: limits.Limit, start: int, end: int | None = None) -> Failure:
    return parse_failure(limit.code, limit.text(), start, end)


class Composer:
    """One document's nodes from ``events``; ``compose`` raises :class:`Failure` on a broken rule."""

    def __init__(self, text: str, events: Iterator[Any], restore: dict[str, str], original: str) -> None:
        self.text = text
        self.events = events
        self.restore = restore
        # ``text`` may have had tabs swapped for spaces so ruamel accepts them; plain scalars
        # covering a swapped tab take their characters from the original.
        self.original = original
        self.anchors: dict[str, YamlNode] = {}
        self.warnings: list[YamlWarning] = []
        self._peeked: Any = None
        self._block_columns: list[int] = []  # columns of the enclosing block collections
        self._flow_depth = 0
        self._depth = 0  # collections open around the current node
        self._nodes = 0
        self._expanded = 0  # nodes so far, each alias counting as its target's expanded size
        self._sizes: dict[int, int] = {}  # expanded size of each finished anchored node, by id
        # Where the expanded size first crossed its limit. Reported only after the conversion,
        # so that yaml's own rule for aliases used too often (which Pi reports) goes first.
        self.expanded_overflow: Failure | None = None

    def _next(self) -> Any:
        if self._peeked is not None:
            event, self._peeked = self._peeked, None
            return event
        return next(self.events)

    def _peek(self) -> Any:
        if self._peeked is None:
            self._peeked = next(self.events)
        return self._peeked

    def compose(self) -> YamlNode | None:
        from ruamel.yaml.events import DocumentStartEvent, StreamEndEvent, StreamStartEvent

        event = self._next()
        assert isinstance(event, StreamStartEvent)
        if isinstance(self._peek(), StreamEndEvent):
            return None
        self._next()  # DocumentStart
        root = self._node()
        self._next()  # DocumentEnd
        nxt = self._peek()
        if isinstance(nxt, DocumentStartEvent):
            pos = nxt.start_mark.index
            raise parse_failure(
                "MULTIPLE_DOCS",
                "Source contains multiple documents; please use YAML.parseAllDocuments()",
                pos,
                end_of_line(self.text, pos),
            )
        return root

    # -- counting ---------------------------------------------------------------------------

    def _count(self, start: int, end: int, expanded: int) -> None:
        self._nodes += 1
        if self._nodes > limits.NODES.value:
            raise limit_failure(limits.NODES, start, end)
        self._expanded += expanded
        if self._expanded > limits.EXPANDED.value and self.expanded_overflow is None:
            self.expanded_overflow = limit_failure(limits.EXPANDED, start, end)

    # -- nodes ------------------------------------------------------------------------------

    def _node(self) -> YamlNode:
        from ruamel.yaml.events import AliasEvent, MappingStartEvent, ScalarEvent, SequenceStartEvent

        event = self._next()
        start, end = event.start_mark.index, event.end_mark.index
        if isinstance(event, AliasEvent):
            return self._alias(event, start, end)
        tag = str(event.ctag) if getattr(event, "ctag", None) is not None else None
        if isinstance(event, ScalarEvent):
            self._count(start, end, 1)
            node = self._scalar(event, start, end, tag)
            self._register(node)
            return node
        if isinstance(event, SequenceStartEvent):
            seq = SeqNode(start, end, anchor=event.anchor, tag=tag, flow=bool(event.flow_style))
            before = self._open(seq, event)
            while not self._is_end(self._peek()):
                seq.items.append(self._node())
            seq.end = self._next().end_mark.index
            self._close(seq, before)
            self._check_collection_tag(seq, "seq")
            return seq
        if isinstance(event, MappingStartEvent):
            mapping = MapNode(start, end, anchor=event.anchor, tag=tag, flow=bool(event.flow_style))
            before = self._open(mapping, event)
            seen: set[tuple[Any, ...]] = set()
            while not self._is_end(self._peek()):
                key = self._node()
                if len(mapping.pairs) >= limits.KEYS.value:
                    raise limit_failure(limits.KEYS, key.start, key.end)
                self._check_duplicate(seen, key)
                value = self._node()
                mapping.pairs.append((key, value))
            mapping.end = self._next().end_mark.index
            self._close(mapping, before)
            self._check_collection_tag(mapping, "map")
            return mapping
        # pragma: no cover - the parser emits nothing else inside a document
        raise parse_failure("IMPOSSIBLE", f"Unexpected event {type(event).__name__}", start)

    def _alias(self, event: Any, start: int, end: int) -> AliasNode:
        target = self.anchors.get(event.anchor)
        # An alias to a collection still open around it (a cycle) counts as one node.
        size = self._sizes.get(id(target), 1) if target is not None else 1
        self._count(start, end, size)
        return AliasNode(start, end, name=event.anchor, target=target)

    def _scalar(self, event: Any, start: int, end: int, tag: str | None) -> ScalarNode:
        value_start = _skip_props(self.text, start, end)
        source = unmask(event.value, self.restore)
        if event.style is None and self.original is not self.text and "\t" in self.original[start:end]:
            source = unmask(_plain_from_original(self.original, value_start, end), self.restore)
        if event.style in ("|", ">") and end >= len(self.text) and not self.text.endswith("\n"):
            source = _final_line_break(self.text, value_start, source)
        js_object = False
        if tag is not None:
            tagged = resolve_tagged(source, tag)
            value, js_object = tagged.value, tagged.js_object
            if tagged.unresolved:
                self.warnings.append(YamlWarning(f"Unresolved tag: {tag}", start, value_start))
        elif event.style is None:
            value = resolve_plain(source)
        else:
            value = source
        if event.style in ("'", '"'):
            _check_comment_separation(self.text, end)
            if self._block_columns and self._flow_depth == 0:
                bad = _quoted_indent_violation(self.text, start, end, self._block_columns[-1])
                if bad is not None:
                    raise parse_failure("MISSING_CHAR", f"Missing closing {event.style}quote", bad)
        return ScalarNode(
            start,
            end,
            anchor=event.anchor,
            tag=tag,
            source=source,
            style=event.style,
            value=value,
            value_start=value_start,
            js_object=js_object,
        )

    def _open(self, node: SeqNode | MapNode, event: Any) -> int:
        """Enter a collection; returns the expanded count before it (to size it on closing)."""
        self._depth += 1
        if self._depth > limits.DEPTH.value:
            raise limit_failure(limits.DEPTH, node.start)
        before = self._expanded
        self._count(node.start, node.start + 1, 1)
        self._register(node)
        if node.flow:
            self._flow_depth += 1
        else:
            self._block_columns.append(event.start_mark.column)
        return before

    def _close(self, node: SeqNode | MapNode, before: int) -> None:
        self._depth -= 1
        if node.anchor is not None:
            self._sizes[id(node)] = self._expanded - before
        if not node.flow:
            self._block_columns.pop()
            return
        self._flow_depth -= 1
        if self._flow_depth == 0 and self._block_columns:
            # yaml: a flow collection inside a block one must keep its lines indented deeper.
            bad = flow_indent_violation(self.text, node.start, node.end, self._block_columns[-1])
            if bad is not None:
                raise parse_failure("MISSING_CHAR", flow_message(isinstance(node, SeqNode), True), bad)

    @staticmethod
    def _is_end(event: Any) -> bool:
        from ruamel.yaml.events import MappingEndEvent, SequenceEndEvent

        return isinstance(event, (MappingEndEvent, SequenceEndEvent))

    def _register(self, node: YamlNode) -> None:
        if node.anchor is not None:
            self.anchors[node.anchor] = node
            if isinstance(node, ScalarNode):
                self._sizes[id(node)] = 1

    def _check_collection_tag(self, node: YamlNode, kind: str) -> None:
        tag = node.tag
        if tag is None or tag == "!" or tag == TAG_PREFIX + kind:
            return
        if tag not in _KNOWN_COLLECTION_TAGS:
            self.warnings.append(YamlWarning(f"Unresolved tag: {tag}", node.start, node.start + 1))

    @staticmethod
    def _check_duplicate(seen: set[tuple[Any, ...]], key: YamlNode) -> None:
        """``yaml``'s unique keys: two scalar keys whose values are ``===`` (aliases never collide)."""
        if not isinstance(key, ScalarNode) or key.js_object:
            return  # a Date or Buffer key is a new object, equal to no other key
        canonical = strict_equality_key(key.value)
        if canonical is None:
            return
        if canonical in seen:
            raise parse_failure("DUPLICATE_KEY", "Map keys must be unique", key.value_start)
        seen.add(canonical)


def _skip_props(text: str, pos: int, end: int) -> int:
    """Offset of a node's content after its ``&anchor`` / ``!tag`` properties."""
    while pos < end and text[pos] in "&!":
        while pos < end and not text[pos].isspace():
            pos += 1
        while pos < end and text[pos] in " \t\n":
            pos += 1
    return pos


def _final_line_break(text: str, header: int, value: str) -> str:
    """yaml keeps a block scalar's last line break even when the text ends without one.

    ruamel drops it at the end of the stream; unless the header strips (``|-``), add it back.
    """
    header_end = text.find("\n", header)
    indicators = text[header : len(text) if header_end < 0 else header_end].split("#", 1)[0]
    if "-" in indicators or not value or value.endswith("\n"):
        return value
    return value + "\n"


def _plain_from_original(text: str, start: int, end: int) -> str:
    """A plain scalar's value from its source: lines trimmed and folded (blank line -> newline)."""
    lines = [line.strip(" \t") for line in text[start:end].split("\n")]
    out = lines[0]
    for line in lines[1:]:
        if not line:
            out += "\n"
        elif out.endswith("\n") or not out:
            out += line
        else:
            out += " " + line
    return out


def flow_message(is_seq: bool, in_block: bool) -> str:
    kind, closer = ("Flow sequence", "]") if is_seq else ("Flow map", "}")
    if in_block:
        return f"{kind} in block collection must be sufficiently indented and end with a {closer}"
    return f"{kind} must end with a {closer}"


def flow_indent_violation(text: str, start: int, end: int, parent_column: int) -> int | None:
    """First content on a continuation line of a flow collection indented no deeper than its parent."""
    pos = text.find("\n", start, end)
    while pos >= 0:
        first = pos + 1
        content = first
        while content < len(text) and text[content] == " ":
            content += 1
        if content >= end:
            return None
        if content < len(text) and text[content] not in "\n#" and content - first <= parent_column:
            return content
        pos = text.find("\n", first, end)
    return None


def _quoted_indent_violation(text: str, start: int, end: int, parent_column: int) -> int | None:
    """yaml ends a multi-line quoted scalar at a line indented no deeper than its block parent.

    Returns the offset of the line break before that line (where yaml reports the missing quote).
    """
    pos = text.find("\n", start, end)
    while pos >= 0:
        first = pos + 1
        content = first
        while content < end and text[content] == " ":
            content += 1
        if content < end and text[content] != "\n" and content - first <= parent_column:
            return pos
        pos = text.find("\n", first, end)
    return None


def _check_comment_separation(text: str, end: int) -> None:
    if end < len(text) and text[end] == "#":
        raise parse_failure(
            "MISSING_CHAR",
            "Comments must be separated from other tokens by white space characters",
            end,
            end_of_line(text, end),
        )
