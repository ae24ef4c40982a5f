"""Nodes from a YAML parser's event stream, with ``yaml``'s composition rules and pi-context's limits.

The composer walks the events of libyaml (through PyYAML's ``CParser``, the fast reader) or of
ruamel (the full reader), whose events carry the same start and end marks, and builds
:mod:`~lsp_server.context.yaml.nodes` with their source ranges, resolving scalars with the core
schema (:mod:`~lsp_server.context.yaml.schema`): only the parsers' structure is used, never their
YAML 1.1 resolvers. It also enforces what ``yaml`` checks while composing and neither parser
does: unique keys (by JavaScript ``===`` on the key's value, so ``1`` and ``1.0`` collide and two
``.nan`` keys do not), a single document, quoted scalars and flow collections indented deeper
than their block parent, comments separated by white space, known collection tags. Where
libyaml's events differ from ruamel's (the place of an empty value, a few shapes only libyaml
accepts), the composer gives ruamel's answer or raises :class:`Unsure`. Every check is linear:
duplicate keys are found with a set. Composition stops with a limit error at the node that
crosses one of :mod:`~lsp_server.context.yaml.limits` (the expanded size is only recorded here
and reported after the conversion); the nesting limit also bounds the recursion of this walk and
of every later walk over the nodes.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeGuard

from lsp_server.context.yaml import limits
from lsp_server.context.yaml.errors import Failure, YamlWarning, end_of_line, parse_failure, start_of_line
from lsp_server.context.yaml.nodes import AliasNode, MapNode, ScalarNode, SeqNode, YamlNode
from lsp_server.context.yaml.reader import unmask
from lsp_server.context.yaml.schema import TAG_PREFIX, resolve_plain, resolve_tagged
from lsp_server.js.values import strict_equality_key

# A block scalar's header as ruamel reads it: indicators, then blanks and a comment, or the line's end.
_BLOCK_HEADER = re.compile(r"[|>](?:[1-9][+-]?|[+-][1-9]?)?(?: +#[^\n]*| *)(?:\n|\Z)")
# The tags the fast reader takes as libyaml resolves them: ``!``, ``!name``, ``!!name`` (and the
# same written ``!<...>``); libyaml and ruamel split odd ones such as ``!!!binary`` differently.
_PLAIN_TAG = re.compile(r"(?:!|tag:yaml\.org,2002:)?[A-Za-z0-9-]*")
_KNOWN_COLLECTION_TAGS = frozenset({TAG_PREFIX + "set", TAG_PREFIX + "omap", TAG_PREFIX + "pairs"})


def limit_failure(limit: limits.Limit, start: int, end: int | None = None) -> Failure:
    return parse_failure(limit.code, limit.text(), start, end)


@dataclass(frozen=True)
class EventTypes:
    """One parser library's event classes (PyYAML's and ruamel's have the same names and fields).

    A scalar's ``style`` is ``None`` (ruamel) or ``""`` (PyYAML) when plain; ``tag`` is the
    resolved tag text or ``None`` in both.
    """

    stream_start: type[Any]
    stream_end: type[Any]
    document_start: type[Any]
    alias: type[Any]
    scalar: type[Any]
    sequence_start: type[Any]
    mapping_start: type[Any]
    collection_end: tuple[type[Any], type[Any]]
    # libyaml's events (the fast reader): where they differ from ruamel's, the composer gives the
    # nodes ruamel's places, or raises :class:`Unsure` when only libyaml would accept the text.
    libyaml: bool = False


def ruamel_event_types() -> EventTypes:
    from ruamel.yaml import events

    return EventTypes(
        events.StreamStartEvent,
        events.StreamEndEvent,
        events.DocumentStartEvent,
        events.AliasEvent,
        events.ScalarEvent,
        events.SequenceStartEvent,
        events.MappingStartEvent,
        (events.MappingEndEvent, events.SequenceEndEvent),
    )


def pyyaml_event_types() -> EventTypes:
    from yaml import events

    return EventTypes(
        events.StreamStartEvent,
        events.StreamEndEvent,
        events.DocumentStartEvent,
        events.AliasEvent,
        events.ScalarEvent,
        events.SequenceStartEvent,
        events.MappingStartEvent,
        (events.MappingEndEvent, events.SequenceEndEvent),
        libyaml=True,
    )


class Unsure(Exception):
    """The fast reader's events leave a node's place in doubt: the full parser must read the text."""


class Composer:
    """One document's nodes from the events ``next_event`` returns one by one; ``compose`` raises
    :class:`Failure` on a broken rule (and whatever the parser raises on a syntax error)."""

    def __init__(
        self,
        text: str,
        next_event: Callable[[], Any],
        restore: dict[str, str],
        original: str,
        types: EventTypes,
    ) -> None:
        self.text = text
        self._get = next_event
        self.types = types
        self.restore = restore
        # ``text`` may have had tabs swapped for spaces so ruamel accepts them; plain scalars
        # covering a swapped tab take their characters from the original.
        self.original = original
        self._unchanged = not restore and original is text  # a plain scalar's value is the parser's
        self.anchors: dict[str, YamlNode] = {}
        self.warnings: list[YamlWarning] = []
        self._block_columns: list[int] = []  # columns of the enclosing block collections
        self._flow_depth = 0
        self._depth = 0  # collections open around the current node
        self._nodes = 0
        self._expanded = 0  # nodes so far, each alias counting as its target's expanded size
        self._sizes: dict[int, int] = {}  # expanded size of each finished anchored node, by id
        # Where the expanded size first crossed its limit. Reported only after the conversion,
        # so that yaml's own rule for aliases used too often (which Pi reports) goes first.
        self.expanded_overflow: Failure | None = None

    def compose(self) -> YamlNode | None:
        types, get = self.types, self._get
        event = get()
        assert isinstance(event, types.stream_start)
        if isinstance(get(), types.stream_end):
            return None
        # after the DocumentStart event: the root node, then DocumentEnd
        root = self._node(get())
        get()
        following = get()
        if isinstance(following, types.document_start):
            pos = following.start_mark.index
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

    def _node(self, event: Any) -> YamlNode:
        """The node ``event`` starts (the events of its content are read from the parser)."""
        types = self.types
        start, end = event.start_mark.index, event.end_mark.index
        if isinstance(event, types.scalar):
            self._nodes += 1
            if self._nodes > limits.NODES.value:
                raise limit_failure(limits.NODES, start, end)
            self._expanded += 1
            if self._expanded > limits.EXPANDED.value and self.expanded_overflow is None:
                self.expanded_overflow = limit_failure(limits.EXPANDED, start, end)
            if not event.style and event.tag is None and event.anchor is None and self._unchanged:
                # nearly every scalar: plain, no properties, nothing masked or replaced in the text
                source = event.value
                return ScalarNode(start, end, source=source, value=resolve_plain(source), value_start=start)
            node = self._scalar(event, start, end)
            if node.anchor is not None:
                self._register(node)
            return node
        if isinstance(event, types.alias):
            return self._alias(event, start, end)
        if isinstance(event, types.sequence_start):
            return self._sequence(event, start, end)
        if isinstance(event, types.mapping_start):
            return self._mapping(event, start, end)
        # pragma: no cover - the parser emits nothing else inside a document
        raise parse_failure("IMPOSSIBLE", f"Unexpected event {type(event).__name__}", start)

    def _sequence(self, event: Any, start: int, end: int) -> SeqNode:
        if self.types.libyaml:
            self._check_properties(event, start, end)
        seq = SeqNode(start, end, anchor=event.anchor, tag=event.tag, flow=bool(event.flow_style))
        before = self._open(seq, event)
        get, node, ends, items = self._get, self._node, self.types.collection_end, seq.items
        while not isinstance(event := get(), ends):
            items.append(node(event))
        seq.end = event.end_mark.index
        self._close(seq, before)
        self._check_collection_tag(seq, "seq")
        return seq

    def _mapping(self, event: Any, start: int, end: int) -> MapNode:
        if self.types.libyaml:
            self._check_properties(event, start, end)
        mapping = MapNode(start, end, anchor=event.anchor, tag=event.tag, flow=bool(event.flow_style))
        before = self._open(mapping, event)
        get, node, ends, pairs = self._get, self._node, self.types.collection_end, mapping.pairs
        libyaml = self.types.libyaml
        max_keys = limits.KEYS.value
        names: set[str] = set()  # string keys so far (a string is === only to an equal string)
        seen: set[tuple[Any, ...]] = set()  # the others, by strict_equality_key
        empty: ScalarNode | None = None  # an empty block value whose place is the next event's
        while True:
            event = get()
            if empty is not None:
                self._place_empty_block_value(empty, event.start_mark.index)
                empty = None
            if isinstance(event, ends):
                break
            key = node(event)
            if len(pairs) >= max_keys:
                raise limit_failure(limits.KEYS, key.start, key.end)
            name = key.value if isinstance(key, ScalarNode) and not key.js_object else None
            if isinstance(name, str):  # nearly every key: a string (a set of strings is the fast check)
                if name in names:
                    raise parse_failure("DUPLICATE_KEY", "Map keys must be unique", self._key_offset(mapping, key))
                names.add(name)
            elif self._is_duplicate(seen, key):
                raise parse_failure("DUPLICATE_KEY", "Map keys must be unique", self._key_offset(mapping, key))
            value = node(get())
            if libyaml and value.start == value.end and _is_empty(value):
                if mapping.flow:
                    self._place_empty_flow_value(key, value)
                else:
                    empty = value
            pairs.append((key, value))
        mapping.end = event.end_mark.index
        self._close(mapping, before)
        self._check_collection_tag(mapping, "map")
        return mapping

    def _check_properties(self, event: Any, start: int, end: int) -> None:
        """libyaml's tag and anchor are ruamel's (raises :class:`Unsure` when they may not be)."""
        if event.tag is not None:
            _check_plain_tag(event.tag)
        if event.anchor is not None:
            if event.tag is not None and self.text[start : start + 1] != "&":
                raise Unsure  # a tag before the anchor: ruamel starts the node at the anchor, libyaml at the tag
            at = self.text.find("&" + event.anchor, start, max(end, start + 1))
            if at < 0:
                raise Unsure
            _check_name_end(self.text, at, event.anchor)

    # libyaml and ruamel place a mapping's empty value differently; the nodes keep ruamel's place.

    def _place_empty_block_value(self, value: ScalarNode, following: int) -> None:
        """ruamel puts an empty block mapping value at the token after it (the next key or the
        mapping's end), libyaml right after the colon. Only blanks and comments may stand between
        (anything else, say an explicit ``?`` key, raises :class:`Unsure`)."""
        between = self.text[value.start : following]
        if any(line.lstrip(" ")[:1] not in ("", "#") for line in between.split("\n")):
            raise Unsure
        value.start = value.end = value.value_start = following

    def _place_empty_flow_value(self, key: YamlNode, value: ScalarNode) -> None:
        """ruamel puts an empty flow mapping value right after its colon, libyaml at the next token
        (without a colon both at the next token). Only blanks may stand between."""
        between = self.text[key.end : value.start]
        if "#" in between:
            raise Unsure
        colon = between.find(":")
        if colon >= 0:
            if between[colon + 1 :].strip(" \n"):
                raise Unsure
            value.start = value.end = value.value_start = key.end + colon + 1

    def _alias(self, event: Any, start: int, end: int) -> AliasNode:
        if self.types.libyaml:
            _check_name_end(self.text, start, event.anchor)
        target = self.anchors.get(event.anchor)
        # An alias to a collection still open around it (a cycle) counts as one node.
        size = self._sizes.get(id(target), 1) if target is not None else 1
        self._count(start, end, size)
        return AliasNode(start, end, name=unmask(event.anchor, self.restore), target=target)

    def _scalar(self, event: Any, start: int, end: int) -> ScalarNode:
        tag, anchor, style = event.tag, event.anchor, event.style or None  # plain: None (ruamel), "" (PyYAML)
        if self.types.libyaml:
            self._check_properties(event, start, end)
        value_start = _skip_props(self.text, start, end) if tag is not None or anchor is not None else start
        source = unmask(event.value, self.restore)
        if style is None and self.original is not self.text and "\t" in self.original[start:end]:
            source = unmask(_plain_from_original(self.original, value_start, end), self.restore)
        if style in ("|", ">") and self.types.libyaml and not _BLOCK_HEADER.match(self.text, value_start):
            raise Unsure  # libyaml also takes a comment right after the indicators (``|+#c``)
        if style in ("|", ">") and end >= len(self.text) and not self.text.endswith("\n"):
            source = _final_line_break(self.text, value_start, source)
        js_object = False
        if tag is not None:
            tagged = resolve_tagged(source, tag)
            if tagged.failure is not None:
                tag_start, tag_end = _tag_token(self.text, start, value_start)
                raise parse_failure("TAG_RESOLVE_FAILED", tagged.failure, tag_start, tag_end)
            value, js_object = tagged.value, tagged.js_object
            if tagged.unresolved:
                self.warnings.append(YamlWarning(f"Unresolved tag: {tag}", start, value_start))
        elif style is None:
            value = resolve_plain(source)
        else:
            value = source
        if style in ("'", '"'):
            _check_comment_separation(self.text, end)
            if self._block_columns and self._flow_depth == 0:
                bad = _quoted_indent_violation(self.text, start, end, self._block_columns[-1])
                if bad is not None:
                    raise parse_failure("MISSING_CHAR", f"Missing closing {style}quote", bad)
        return ScalarNode(
            start,
            end,
            anchor=anchor,
            tag=tag,
            source=source,
            style=style,
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
    def _is_duplicate(seen: set[tuple[Any, ...]], key: YamlNode) -> bool:
        """``yaml``'s unique keys: two scalar keys whose values are ``===`` (aliases never collide)."""
        if not isinstance(key, ScalarNode) or key.js_object:
            return False  # a Date or Buffer key is a new object, equal to no other key
        canonical = strict_equality_key(key.value)
        if canonical is None:
            return False
        if canonical in seen:
            return True
        seen.add(canonical)
        return False

    def _key_offset(self, mapping: MapNode, key: YamlNode) -> int:
        """Where ``yaml`` reports a problem with a block mapping's key: at the key, except after a pair
        whose value was left out on the line right before (``o:`` then ``o: 1``), where yaml's offset
        is still the end of that line (the left-out value ends there, and nothing stands between)."""
        at = key.value_start if isinstance(key, ScalarNode) else key.start
        if mapping.flow or not mapping.pairs or not _is_empty(mapping.pairs[-1][1]):
            return at
        line_start = start_of_line(self.text, at)
        if line_start == 0 or self.text[line_start:at].strip(" "):
            return at
        previous_key = mapping.pairs[-1][0]
        if previous_key.end < start_of_line(self.text, line_start - 1):
            return at  # the left-out value's line is not the one right before
        return line_start - 1 if self.text[previous_key.end : line_start - 1].rstrip(" ") == ":" else at


def _check_name_end(text: str, indicator: int, name: str) -> None:
    """An anchor or alias name (``&name``, ``*name`` at ``indicator``) ends where ruamel ends it too.

    libyaml ends a name at the first character that is not a letter, digit, ``_`` or ``-``; YAML
    1.2 (ruamel, ``yaml``) only at a blank or a flow indicator (``&http://x`` is one anchor).
    """
    after = indicator + 1 + len(name)
    if after < len(text) and text[after] not in _NAME_ENDS:
        raise Unsure


_NAME_ENDS = frozenset(" \n,[]{}")


def _check_plain_tag(tag: str) -> None:
    if not _PLAIN_TAG.fullmatch(tag):
        raise Unsure


def _is_empty(node: YamlNode) -> TypeGuard[ScalarNode]:
    """An empty plain scalar without properties: one the parser made up where a value was left out."""
    return (
        isinstance(node, ScalarNode)
        and node.start == node.end
        and node.style is None
        and node.anchor is None
        and node.tag is None
    )


def _tag_token(text: str, start: int, content: int) -> tuple[int, int]:
    """Where a node's ``!tag`` is written among its properties (``text[start:content]``)."""
    pos = start
    while pos < content:
        token_end = pos
        while token_end < content and not text[token_end].isspace():
            token_end += 1
        if text[pos] == "!":
            return pos, token_end
        pos = token_end
        while pos < content and text[pos].isspace():
            pos += 1
    # a tag written before the anchor: ruamel starts the node at the anchor, after the tag
    before = text[:start].rstrip()
    tag_start = max(before.rfind(" "), before.rfind("\t"), before.rfind("\n")) + 1
    if before[tag_start:].startswith("!"):
        return tag_start, len(before)
    return start, max(start + 1, content)


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
    """First content on a continuation line of a flow collection indented no deeper than its parent.

    Indentation is spaces only; tabs after them separate, so a line of blanks and tabs, or one whose
    content is a comment, is no continuation line (``yaml`` skips it)."""
    pos = text.find("\n", start, end)
    while pos >= 0:
        first = pos + 1
        indent = first
        while indent < len(text) and text[indent] == " ":
            indent += 1
        content = indent
        while content < len(text) and text[content] in " \t":
            content += 1
        if content >= end:
            return None
        if content < len(text) and text[content] not in "\n#" and indent - first <= parent_column:
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
