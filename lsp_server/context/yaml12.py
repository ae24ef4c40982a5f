"""YAML 1.2 (core schema) as Pi's ``yaml`` npm package reads frontmatter, with source positions.

Pi parses skill frontmatter with ``yaml``'s ``parse()``: YAML 1.2 core schema, unique keys, values
converted to plain JavaScript. PyYAML and ruamel.yaml's constructors follow YAML 1.1 habits
(``yes`` is a boolean, ``2024-01-01`` a date, ``1_000`` an integer, ``0b11`` binary), so a skill
whose ``description: yes`` Pi rejects would look valid. We therefore use ruamel.yaml only as a
tokenizer/parser (its event stream carries start and end marks) and build the values ourselves
with the core schema's resolution rules, keeping every node's source range so a finding can
point at the key or value the user wrote.

Syntax errors come from ruamel, whose wording and sometimes whose chosen position differ from
``yaml``'s. :func:`parse_yaml` maps the error classes users actually hit (unclosed flow
collections and quotes, ``a: b: c``, multi-line implicit keys, tabs as indentation, reserved
characters, bad indentation, duplicate keys) onto ``yaml``'s message and position, and renders
the message as ``yaml`` does (``... at line L, column C:`` + excerpt + caret; columns in UTF-16
units). Residual differences are listed in ``docs/rules.md`` and in the tests.
"""

from __future__ import annotations

import base64
import binascii
import math
import re
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC
from typing import Any

from lsp_server.js.numbers import js_number_to_string
from lsp_server.js.strings import js_len

# ---------------------------------------------------------------------------------------------
# Nodes


@dataclass
class YamlNode:
    """A composed node. ``start``/``end`` are code-point offsets into the YAML text."""

    start: int
    end: int
    anchor: str | None = field(default=None, kw_only=True)
    tag: str | None = field(default=None, kw_only=True)


@dataclass
class ScalarNode(YamlNode):
    source: str = ""  # the scalar's text after YAML un-escaping/folding
    style: str | None = None  # None (plain), "'", '"', "|", ">"
    value: Any = None  # core-schema value (str, bool, int, float, None, or a Buffer-like dict)
    value_start: int = 0  # where the scalar itself starts (after anchor/tag properties)


@dataclass
class MapNode(YamlNode):
    pairs: list[tuple[YamlNode, YamlNode]] = field(default_factory=list)
    flow: bool = False

    def find(self, key: str) -> tuple[YamlNode, YamlNode] | None:
        """The pair whose JS property name is ``key`` (the last one wins, as in a JS object)."""
        found = None
        for pair in self.pairs:
            if _string_key_of(pair[0]) == key:
                found = pair
        return found

    def key_names(self) -> list[tuple[str, YamlNode]]:
        return [(_string_key_of(k), k) for k, _ in self.pairs]


@dataclass
class SeqNode(YamlNode):
    items: list[YamlNode] = field(default_factory=list)
    flow: bool = False


@dataclass
class AliasNode(YamlNode):
    name: str = ""
    target: YamlNode | None = None


# ---------------------------------------------------------------------------------------------
# Errors


@dataclass(frozen=True)
class YamlError:
    """A parse failure as Pi reports it.

    ``message`` is the full text (``yaml``'s pretty form when positioned: ``<text> at line L,
    column C:\\n\\n<excerpt>\\n<caret>\\n``). ``start``/``end`` are code-point offsets into the YAML
    text, or -1 for errors without a position (``yaml``'s alias ReferenceErrors).
    """

    name: str  # "YAMLParseError" or "ReferenceError", as Pi's error object names it
    code: str  # yaml's error code (DUPLICATE_KEY, ...) or ours (SYNTAX)
    text: str  # the message without position
    message: str
    start: int
    end: int
    line: int = 0  # 1-based line in the YAML text (0 when unpositioned)
    column: int = 0  # 1-based UTF-16 column, as Pi prints it (0 when unpositioned)

    @property
    def positioned(self) -> bool:
        return self.start >= 0


@dataclass(frozen=True)
class YamlWarning:
    text: str
    start: int
    end: int


@dataclass(frozen=True)
class YamlResult:
    value: Any  # JS-like value: dict[str, Any] | list | str | int | float | bool | None
    node: YamlNode | None
    error: YamlError | None = None
    warnings: tuple[YamlWarning, ...] = ()

    @property
    def ok(self) -> bool:
        return self.error is None


class _Failure(Exception):
    def __init__(self, name: str, code: str, text: str, start: int, end: int | None = None) -> None:
        super().__init__(text)
        self.name = name
        self.code = code
        self.text = text
        self.start = start
        self.end = start + 1 if end is None else end


# ---------------------------------------------------------------------------------------------
# Core schema


_NULL_RE = re.compile(r"(?:~|[Nn]ull|NULL)?")
_BOOL_RE = re.compile(r"(?:[Tt]rue|TRUE|[Ff]alse|FALSE)")
_INT_OCT_RE = re.compile(r"0o[0-7]+")
_INT_RE = re.compile(r"[-+]?[0-9]+")
_INT_HEX_RE = re.compile(r"0x[0-9a-fA-F]+")
_FLOAT_NAN_RE = re.compile(r"(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)")
_FLOAT_EXP_RE = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+")
_FLOAT_RE = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)")

_MAX_SAFE = 2**53
_TAG_PREFIX = "tag:yaml.org,2002:"


def _js_number(value: float | int) -> int | float:
    """A JavaScript number: integral finite values as ``int`` (so ``1.0`` is ``1``), else float."""
    if isinstance(value, int):
        return value if abs(value) <= _MAX_SAFE else float(value)
    if math.isfinite(value) and value == int(value) and abs(value) <= _MAX_SAFE:
        return int(value)
    return value


def _parse_int(text: str, radix: int) -> int | float:
    return _js_number(int(text, radix))


def _resolve_null(_: str) -> None:
    return None


def _resolve_bool(text: str) -> bool:
    return text[0] in "tT"


def _resolve_nan(text: str) -> float:
    if text[-3:].lower() == "nan":
        return math.nan
    return -math.inf if text[0] == "-" else math.inf


def _resolve_float(text: str) -> int | float:
    return _js_number(float(text))


# (tag, test, resolve) in the order of yaml's core schema tag list.
_CORE_TESTS: tuple[tuple[str, re.Pattern[str], Any], ...] = (
    ("null", _NULL_RE, _resolve_null),
    ("bool", _BOOL_RE, _resolve_bool),
    ("int", _INT_OCT_RE, lambda s: _parse_int(s[2:], 8)),
    ("int", _INT_RE, lambda s: _parse_int(s, 10)),
    ("int", _INT_HEX_RE, lambda s: _parse_int(s[2:], 16)),
    ("float", _FLOAT_NAN_RE, _resolve_nan),
    ("float", _FLOAT_EXP_RE, _resolve_float),
    ("float", _FLOAT_RE, _resolve_float),
)


def resolve_plain(text: str) -> Any:
    """The core-schema value of an untagged plain scalar (``yes`` stays a string)."""
    for _, pattern, resolver in _CORE_TESTS:
        if pattern.fullmatch(text):
            return resolver(text)
    return text


def _resolve_tagged(text: str, tag: str, start: int, end: int, warns: list[YamlWarning]) -> Any:
    """A scalar with an explicit tag, as ``findScalarTagByName`` resolves it."""
    if tag == "!":
        return text
    short = tag[len(_TAG_PREFIX) :] if tag.startswith(_TAG_PREFIX) else None
    if short == "str":
        return text
    if short in ("null", "bool", "int", "float"):
        for name, pattern, resolver in _CORE_TESTS:
            if name == short and pattern.fullmatch(text):
                return resolver(text)
    if short == "timestamp":
        stamp = _timestamp(text)
        if stamp is not None:
            return stamp
    if short == "binary":
        try:
            data = base64.b64decode(re.sub(r"[\s]", "", text), validate=False)
        except (binascii.Error, ValueError):
            data = b""
        return {"type": "Buffer", "data": list(data)}
    warns.append(YamlWarning(f"Unresolved tag: {tag}", start, end))
    return text


_TIMESTAMP_RE = re.compile(
    r"([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})"
    r"(?:(?:t|T|[ \t]+)([0-9]{1,2}):([0-9]{1,2}):([0-9]{1,2}(?:\.[0-9]+)?)"
    r"(?:[ \t]*(Z|[-+][012]?[0-9](?::[0-9]{2})?))?)?"
)


def _timestamp(text: str) -> str | None:
    """``!!timestamp`` as the Date yaml builds, serialized like ``Date.toJSON`` (UTC, milliseconds)."""
    from datetime import datetime, timedelta

    match = _TIMESTAMP_RE.fullmatch(text)
    if match is None:
        return None
    year, month, day, hour, minute, second, zone = match.groups()
    secs = float(second) if second else 0.0
    try:
        stamp = datetime(int(year), int(month), int(day), int(hour or 0), int(minute or 0), tzinfo=UTC)
    except ValueError:
        return None
    stamp += timedelta(milliseconds=int(secs * 1000))
    if zone and zone != "Z":
        sign = -1 if zone[0] == "-" else 1
        hours, _, mins = zone[1:].partition(":")
        stamp -= sign * timedelta(hours=int(hours), minutes=int(mins or 0))
    return stamp.strftime("%Y-%m-%dT%H:%M:%S.") + f"{stamp.microsecond // 1000:03d}Z"


# ---------------------------------------------------------------------------------------------
# Composition from ruamel events


def _yaml_parser() -> Any:
    from ruamel.yaml import YAML

    loader = YAML(typ="safe", pure=True)
    loader.version = (1, 2)
    return loader


def _strict_equal(a: Any, b: Any) -> bool:
    """JavaScript ``===`` between two scalar values."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a is b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return bool(a == b)  # NaN != NaN, as in JS
    if isinstance(a, dict) or isinstance(b, dict):
        return a is b
    return type(a) is type(b) and bool(a == b)


def _skip_props(text: str, pos: int, end: int) -> int:
    """Offset of a node's content after its ``&anchor`` / ``!tag`` properties."""
    while pos < end and text[pos] in "&!":
        while pos < end and not text[pos].isspace():
            pos += 1
        while pos < end and text[pos] in " \t\n":
            pos += 1
    return pos


class _Composer:
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
            raise _Failure(
                "YAMLParseError",
                "MULTIPLE_DOCS",
                "Source contains multiple documents; please use YAML.parseAllDocuments()",
                pos,
                _line_end(self.text, pos),
            )
        return root

    def _node(self) -> YamlNode:
        from ruamel.yaml.events import AliasEvent, MappingStartEvent, ScalarEvent, SequenceStartEvent

        event = self._next()
        start, end = event.start_mark.index, event.end_mark.index
        if isinstance(event, AliasEvent):
            return AliasNode(start, end, name=event.anchor, target=self.anchors.get(event.anchor))
        tag = str(event.ctag) if getattr(event, "ctag", None) is not None else None
        node: YamlNode
        if isinstance(event, ScalarEvent):
            value_start = _skip_props(self.text, start, end)
            source = _unmask(event.value, self.restore)
            if event.style is None and self.original is not self.text and "\t" in self.original[start:end]:
                source = _unmask(_plain_from_original(self.original, value_start, end), self.restore)
            if event.style in ("|", ">") and end >= len(self.text) and not self.text.endswith("\n"):
                source = _final_line_break(self.text, value_start, source)
            if tag is not None:
                value = _resolve_tagged(source, tag, start, value_start, self.warnings)
            elif event.style is None:
                value = resolve_plain(source)
            else:
                value = source
            if event.style in ("'", '"'):
                _check_comment_separation(self.text, end)
                if self._block_columns and self._flow_depth == 0:
                    bad = _quoted_indent_violation(self.text, start, end, self._block_columns[-1])
                    if bad is not None:
                        raise _Failure("YAMLParseError", "MISSING_CHAR", f"Missing closing {event.style}quote", bad)
            node = ScalarNode(
                start,
                end,
                anchor=event.anchor,
                tag=tag,
                source=source,
                style=event.style,
                value=value,
                value_start=value_start,
            )
        elif isinstance(event, SequenceStartEvent):
            seq = SeqNode(start, end, anchor=event.anchor, tag=tag, flow=bool(event.flow_style))
            self._register(seq)
            self._enter(seq, event)
            while not self._is_end(self._peek()):
                seq.items.append(self._node())
            seq.end = self._next().end_mark.index
            self._leave(seq)
            self._check_collection_tag(seq, "seq")
            return seq
        elif isinstance(event, MappingStartEvent):
            mapping = MapNode(start, end, anchor=event.anchor, tag=tag, flow=bool(event.flow_style))
            self._register(mapping)
            self._enter(mapping, event)
            while not self._is_end(self._peek()):
                key = self._node()
                self._check_duplicate(mapping, key)
                value = self._node()
                mapping.pairs.append((key, value))
            mapping.end = self._next().end_mark.index
            self._leave(mapping)
            self._check_collection_tag(mapping, "map")
            return mapping
        else:  # pragma: no cover - the parser emits nothing else inside a document
            raise _Failure("YAMLParseError", "IMPOSSIBLE", f"Unexpected event {type(event).__name__}", start)
        self._register(node)
        return node

    def _enter(self, node: SeqNode | MapNode, event: Any) -> None:
        if node.flow:
            self._flow_depth += 1
        else:
            self._block_columns.append(event.start_mark.column)

    def _leave(self, node: SeqNode | MapNode) -> None:
        if not node.flow:
            self._block_columns.pop()
            return
        self._flow_depth -= 1
        if self._flow_depth == 0 and self._block_columns:
            # yaml: a flow collection inside a block one must keep its lines indented deeper.
            bad = _flow_indent_violation(self.text, node.start, node.end, self._block_columns[-1])
            if bad is not None:
                raise _Failure("YAMLParseError", "MISSING_CHAR", _flow_message(isinstance(node, SeqNode), True), bad)

    @staticmethod
    def _is_end(event: Any) -> bool:
        from ruamel.yaml.events import MappingEndEvent, SequenceEndEvent

        return isinstance(event, (MappingEndEvent, SequenceEndEvent))

    def _register(self, node: YamlNode) -> None:
        if node.anchor is not None:
            self.anchors[node.anchor] = node

    def _check_collection_tag(self, node: YamlNode, kind: str) -> None:
        tag = node.tag
        if tag is None or tag == "!" or tag == _TAG_PREFIX + kind:
            return
        known = {_TAG_PREFIX + "set", _TAG_PREFIX + "omap", _TAG_PREFIX + "pairs"}
        if tag not in known:
            self.warnings.append(YamlWarning(f"Unresolved tag: {tag}", node.start, node.start + 1))

    def _check_duplicate(self, mapping: MapNode, key: YamlNode) -> None:
        if not isinstance(key, ScalarNode):
            return
        for other, _ in mapping.pairs:
            if isinstance(other, ScalarNode) and _strict_equal(other.value, key.value):
                raise _Failure("YAMLParseError", "DUPLICATE_KEY", "Map keys must be unique", key.value_start)


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


def _flow_message(is_seq: bool, in_block: bool) -> str:
    kind, closer = ("Flow sequence", "]") if is_seq else ("Flow map", "}")
    if in_block:
        return f"{kind} in block collection must be sufficiently indented and end with a {closer}"
    return f"{kind} must end with a {closer}"


def _flow_indent_violation(text: str, start: int, end: int, parent_column: int) -> int | None:
    """First content on a continuation line of a flow collection indented no deeper than its parent."""
    pos = text.find("\n", start, end)
    while pos >= 0:
        line_start = pos + 1
        content = line_start
        while content < len(text) and text[content] == " ":
            content += 1
        if content >= end:
            return None
        if content < len(text) and text[content] not in "\n#" and content - line_start <= parent_column:
            return content
        pos = text.find("\n", line_start, end)
    return None


def _quoted_indent_violation(text: str, start: int, end: int, parent_column: int) -> int | None:
    """yaml ends a multi-line quoted scalar at a line indented no deeper than its block parent.

    Returns the offset of the line break before that line (where yaml reports the missing quote).
    """
    pos = text.find("\n", start, end)
    while pos >= 0:
        line_start = pos + 1
        content = line_start
        while content < end and text[content] == " ":
            content += 1
        if content < end and text[content] != "\n" and content - line_start <= parent_column:
            return pos
        pos = text.find("\n", line_start, end)
    return None


def _check_comment_separation(text: str, end: int) -> None:
    if end < len(text) and text[end] == "#":
        raise _Failure(
            "YAMLParseError",
            "MISSING_CHAR",
            "Comments must be separated from other tokens by white space characters",
            end,
            _line_end(text, end),
        )


# ---------------------------------------------------------------------------------------------
# Conversion to JS-like values


@dataclass
class _AnchorData:
    res: Any = None
    done: bool = False
    count: int = 0
    alias_count: int = 0


class _ToJs:
    """``node.toJS()``: shared objects for aliases, yaml's alias-count limit (100)."""

    MAX_ALIAS_COUNT = 100

    def __init__(self) -> None:
        self.anchors: dict[int, _AnchorData] = {}

    def convert(self, node: YamlNode | None) -> Any:
        if node is None:
            return None
        if isinstance(node, AliasNode):
            return self._alias(node)
        data: _AnchorData | None = None
        if node.anchor is not None:
            data = self.anchors.setdefault(id(node), _AnchorData())
        if isinstance(node, ScalarNode):
            result: Any = node.value
            if data is not None:
                data.res, data.done = result, True
            return result
        if isinstance(node, SeqNode):
            items: list[Any] = []
            if data is not None:
                data.res, data.done = items, True
            for item in node.items:
                items.append(self.convert(item))
            return items
        assert isinstance(node, MapNode)
        mapping: dict[str, Any] = {}
        if data is not None:
            data.res, data.done = mapping, True
        for key, value in node.pairs:
            name = _string_key_of(key, self)
            mapping[name] = self.convert(value)
        return mapping

    def _alias(self, node: AliasNode) -> Any:
        target = node.target
        if target is None:
            raise _Failure(
                "ReferenceError",
                "BAD_ALIAS",
                f"Unresolved alias (the anchor must be set before the alias): {node.name}",
                -1,
                -1,
            )
        data = self.anchors.get(id(target))
        if data is None or not data.done:
            self.convert(target)
            data = self.anchors.setdefault(id(target), _AnchorData())
        data.count += 1
        if data.alias_count == 0:
            data.alias_count = self._alias_count(target)
        if data.count * data.alias_count > self.MAX_ALIAS_COUNT:
            raise _Failure(
                "ReferenceError",
                "RESOURCE_EXHAUSTION",
                "Excessive alias count indicates a resource exhaustion attack",
                -1,
            )
        return data.res

    def _alias_count(self, node: YamlNode) -> int:
        if isinstance(node, AliasNode):
            data = self.anchors.get(id(node.target)) if node.target is not None else None
            return data.count * data.alias_count if data else 0
        if isinstance(node, SeqNode):
            return max((self._alias_count(item) for item in node.items), default=0)
        if isinstance(node, MapNode):
            return max((max(self._alias_count(k), self._alias_count(v)) for k, v in node.pairs), default=0)
        return 1


def _string_key_of(key: YamlNode, converter: _ToJs | None = None) -> str:
    """The property name a key becomes in a JS object (``String(value)``; ``null`` -> "")."""
    if isinstance(key, AliasNode):
        key = key.target if key.target is not None else key
    if isinstance(key, ScalarNode):
        return js_string(key.value)
    if converter is not None:
        converter.convert(key)  # aliases inside a collection key still count
    return flow_string(key)


def js_string(value: Any) -> str:
    """``String(value)`` for the scalar values this module produces (``null`` gives "")."""
    if value is None:
        return ""
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        return js_number_to_string(value)
    if isinstance(value, dict):
        return "[object Object]"
    return str(value)


def flow_string(node: YamlNode) -> str:
    """A collection key stringified as ``yaml`` does for JS object keys (``[ a, b ]``, ``{ x: 1 }``)."""
    if isinstance(node, AliasNode):
        return f"*{node.name}"
    if isinstance(node, ScalarNode):
        if node.style is None:
            return node.source
        return _quote(node.source)
    if isinstance(node, SeqNode):
        if not node.items:
            return "[]"
        return "[ " + ", ".join(flow_string(item) for item in node.items) + " ]"
    assert isinstance(node, MapNode)
    if not node.pairs:
        return "{}"
    parts = [f"{flow_string(k)}: {flow_string(v)}" for k, v in node.pairs]
    return "{ " + ", ".join(parts) + " }"


def _quote(text: str) -> str:
    import json

    return json.dumps(text, ensure_ascii=False)


# ---------------------------------------------------------------------------------------------
# Public entry point


def parse_yaml(text: str) -> YamlResult:
    """Parse ``text`` like ``yaml.parse`` (core schema, unique keys) without ever raising.

    On failure ``error`` says why and where; ``value`` is then None.
    """
    if not text.strip(" \t\n"):
        # Whitespace only: an empty document (null). Comment-only text goes through the parser.
        return YamlResult(None, None)
    from ruamel.yaml.error import MarkedYAMLError, YAMLError

    directive_error = _directive_failure(text)
    if directive_error is not None:
        return YamlResult(None, None, _make_error(text, directive_error))
    source, restore = _mask_unprintable(text)
    original = source
    for _attempt in range(64):  # each retry replaces one separating tab by a space
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                composer = _Composer(source, _yaml_parser().parse(source), restore, original)
                node = composer.compose()
                value = _ToJs().convert(node)
            return YamlResult(value, node, None, tuple(composer.warnings))
        except _Failure as failure:
            return YamlResult(None, None, _make_error(text, failure))
        except MarkedYAMLError as exc:
            fixed = _replace_separating_tab(source, exc)
            if fixed is not None:
                source = fixed
                continue
            empty = _empty_document_end(source, exc)
            if empty is not None:
                if isinstance(empty, _Failure):
                    return YamlResult(None, None, _make_error(text, empty))
                return YamlResult(None, None)
            return YamlResult(None, None, _make_error(text, _map_ruamel_error(source, exc)))
        except (YAMLError, RecursionError, ValueError) as exc:
            other = _Failure("YAMLParseError", "SYNTAX", str(exc).strip() or type(exc).__name__, 0)
            return YamlResult(None, None, _make_error(text, other))
    return YamlResult(None, None, _make_error(text, _Failure("YAMLParseError", "SYNTAX", "Too many tabs", 0)))


_UNPRINTABLE_RE = re.compile("[^\x09\x0a\x0d\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _mask_unprintable(text: str) -> tuple[str, dict[str, str]]:
    """Swap characters ruamel's reader refuses (C0/C1 controls, lone surrogates) for unused
    private-use stand-ins, one code point each, so positions stay the same; ``yaml`` accepts them."""
    found = set(_UNPRINTABLE_RE.findall(text))
    if not found:
        return text, {}
    table: dict[str, str] = {}
    candidate = 0xE000
    for char in sorted(found):
        while chr(candidate) in text:
            candidate += 1
        table[char] = chr(candidate)
        candidate += 1
    masked = "".join(table.get(ch, ch) for ch in text)
    return masked, {v: k for k, v in table.items()}


def _unmask(value: str, restore: dict[str, str]) -> str:
    if not restore:
        return value
    return "".join(restore.get(ch, ch) for ch in value)


def _directive_failure(text: str) -> _Failure | None:
    """``%YAML``/``%TAG`` lines need a ``---`` line after them, which frontmatter can never contain."""
    pos = 0
    seen = False
    while pos < len(text):
        end = text.find("\n", pos)
        end = len(text) if end < 0 else end
        line = text[pos:end]
        stripped = line.strip(" \t")
        if line.startswith("%"):
            seen = True
        elif stripped and not stripped.startswith("#"):
            if seen:
                return _Failure(
                    "YAMLParseError", "MISSING_CHAR", "Missing directives-end/doc-start indicator line", pos
                )
            return None
        pos = end + 1
    if seen:
        return _Failure(
            "YAMLParseError", "MISSING_CHAR", "Missing directives-end indicator line", len(text.rstrip("\n"))
        )
    return None


def _empty_document_end(text: str, exc: Any) -> _Failure | bool | None:
    """A ``...`` line before any content ends an empty document (null); more content is a 2nd document."""
    problem = str(getattr(exc, "problem", "") or "")
    mark = getattr(exc, "problem_mark", None)
    if "found '<document end>'" not in problem or mark is None:
        return None
    before = text[: mark.index]
    if any(line.strip() and not line.strip().startswith("#") for line in before.split("\n")):
        return None
    pos = text.find("\n", mark.index)
    while 0 <= pos < len(text):
        start = pos + 1
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
        stripped = text[start:end].strip()
        if stripped and not stripped.startswith("#"):
            offset = start + (len(text[start:end]) - len(text[start:end].lstrip()))
            return _Failure(
                "YAMLParseError",
                "MULTIPLE_DOCS",
                "Source contains multiple documents; please use YAML.parseAllDocuments()",
                offset,
                _line_end(text, offset),
            )
        pos = end if end < len(text) else -1
    return True


# ---------------------------------------------------------------------------------------------
# Error mapping: ruamel's view of a syntax error -> yaml's message and position


def _line_start(text: str, pos: int) -> int:
    return text.rfind("\n", 0, pos) + 1


def _line_end(text: str, pos: int) -> int:
    end = text.find("\n", pos)
    return len(text) if end < 0 else end


@dataclass(frozen=True)
class _Mark:
    index: int


def _unclosed_bracket(text: str, pos: int) -> int | None:
    """Offset of the innermost ``[``/``{`` still open at ``pos`` (quotes and comments skipped)."""
    stack: list[int] = []
    index = 0
    quote = ""
    while index < min(pos, len(text)):
        char = text[index]
        if quote:
            if char == "\\" and quote == '"':
                index += 1
            elif char == quote:
                quote = ""
        elif char in "'\"" and (index == 0 or text[index - 1] in " \t\n[{,:"):
            quote = char
        elif char == "#" and (index == 0 or text[index - 1] in " \t\n"):
            newline = text.find("\n", index)
            index = len(text) if newline < 0 else newline
            continue
        elif char in "[{":
            stack.append(index)
        elif char in "]}" and stack:
            stack.pop()
        index += 1
    return stack[-1] if stack else None


def _token_end(text: str, pos: int) -> int:
    """End of a plain token starting at ``pos``: the line's end, before a comment and trailing blanks."""
    end = text.find("\n", pos)
    end = len(text) if end < 0 else end
    for stop in (" #", ": ", ":\t"):
        found = text.find(stop, pos, end)
        if found >= 0:
            end = found
    if end > pos and text[end - 1] == ":":
        end -= 1
    while end > pos and text[end - 1] in " \t":
        end -= 1
    return max(end, pos + 1)


def _key_column(text: str, line_start: int, limit: int) -> int:
    """Column of the innermost block node starting on this line (after ``- `` / ``? `` indicators)."""
    pos = line_start
    while pos < limit and text[pos] == " ":
        pos += 1
    while pos + 1 < limit and text[pos] in "-?" and text[pos + 1] in " \t":
        pos += 2
        while pos < limit and text[pos] == " ":
            pos += 1
    return pos - line_start


def _unexpected_scalar(text: str, pos: int) -> _Failure:
    char = text[pos] if pos < len(text) else ""
    if char in "'\"":
        close = text.find(char, pos + 1)
        end = close + 1 if close >= 0 else _line_end(text, pos)
        kind = "single-quoted-scalar" if char == "'" else "double-quoted-scalar"
        return _Failure("YAMLParseError", "UNEXPECTED_TOKEN", f"Unexpected {kind} at node end", pos, end)
    return _Failure("YAMLParseError", "UNEXPECTED_TOKEN", "Unexpected scalar at node end", pos, _token_end(text, pos))


def _is_tab_error(exc: Any) -> bool:
    problem = str(getattr(exc, "problem", "") or "")
    return "'\\t'" in problem or "\t" in problem


def _replace_separating_tab(text: str, exc: Any) -> str | None:
    """ruamel rejects a tab between tokens (``a:\\tb``); yaml accepts it there. Retry with a space."""
    mark = getattr(exc, "problem_mark", None)
    if mark is None or not _is_tab_error(exc):
        return None
    pos = mark.index
    if pos >= len(text) or text[pos] != "\t":
        return None
    line_start = _line_start(text, pos)
    if not text[line_start:pos].strip(" \t"):
        return None  # a tab in the indentation: yaml rejects it too
    return text[:pos] + " " + text[pos + 1 :]


def _scalar_start_before(text: str, pos: int) -> int:
    """Start of the last scalar token ruamel scanned before ``pos`` (multi-line plain scalars included).

    ruamel reports ``mapping values are not allowed here`` at the colon; ``yaml`` reports the start
    of the scalar that swallowed the line break or the colon. Re-scanning the text up to the error
    gives that scalar's start mark.
    """
    from ruamel.yaml.error import YAMLError
    from ruamel.yaml.tokens import ScalarToken

    start = _line_start(text, pos)
    last_end = start
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for token in _yaml_parser().scan(text):
                if token.start_mark.index >= pos:
                    break
                if isinstance(token, ScalarToken) and token.end_mark.index <= pos:
                    start, last_end = token.start_mark.index, token.end_mark.index
    except YAMLError:
        pass
    if ":" in text[last_end:pos].replace("::", ""):
        return pos  # no scalar between the previous ':' and this one (``key: : value``)
    return start


def _map_ruamel_error(text: str, exc: Any) -> _Failure:
    problem = str(getattr(exc, "problem", "") or "")
    context = str(getattr(exc, "context", "") or "")
    mark = getattr(exc, "problem_mark", None)
    pos = mark.index if mark is not None else 0
    pos = min(pos, len(text))
    ctx_mark = getattr(exc, "context_mark", None)

    if "found undefined alias" in problem:
        name = problem.split("'")[1] if "'" in problem else problem
        return _Failure(
            "ReferenceError",
            "BAD_ALIAS",
            f"Unresolved alias (the anchor must be set before the alias): {name}",
            -1,
            -1,
        )
    if "while parsing a flow node" in context and ("<stream end>" in problem or "found '-'" in problem):
        opener = _unclosed_bracket(text, pos)
        if opener is not None:
            context = "while parsing a flow sequence" if text[opener] == "[" else "while parsing a flow mapping"
            ctx_mark = _Mark(opener)
    if "while parsing a block node" in context and ("found ']'" in problem or "found '}'" in problem):
        closer = "]" if "found ']'" in problem else "}"
        kind = "flow-seq-end" if closer == "]" else "flow-map-end"
        return _Failure(
            "YAMLParseError", "UNEXPECTED_TOKEN", f'Unexpected {kind} token in YAML document: "{closer}"', pos
        )
    if ("while scanning an anchor" in context or "while scanning an alias" in context) and ctx_mark is not None:
        what = "Anchor" if "anchor" in context else "Alias"
        return _Failure("YAMLParseError", "BAD_ALIAS", f"{what} cannot be an empty string", ctx_mark.index)
    if "while parsing a flow sequence" in context or "while parsing a flow mapping" in context:
        is_seq = "sequence" in context
        start = ctx_mark.index if ctx_mark is not None else 0
        line_start = _line_start(text, start)
        in_block = bool(text[:start].strip(" \t\n"))
        if in_block:
            parent = _key_column(text, line_start, start)
            bad = _flow_indent_violation(text, start, len(text), parent)
            return _Failure("YAMLParseError", "MISSING_CHAR", _flow_message(is_seq, True), pos if bad is None else bad)
        return _Failure("YAMLParseError", "MISSING_CHAR", _flow_message(is_seq, False), pos)
    if "while scanning a quoted scalar" in context and "end of stream" in problem:
        start = ctx_mark.index if ctx_mark is not None else pos
        quote = text[start] if start < len(text) else '"'
        return _Failure("YAMLParseError", "MISSING_CHAR", f"Missing closing {quote}quote", len(text))
    if "mapping values are not allowed here" in problem:
        start = _scalar_start_before(text, pos)
        line_start = _line_start(text, start)
        after_value_indicator = text[line_start:start].rstrip(" \t").endswith(":")
        multi_line = "\n" in text[start:pos]
        if multi_line and not after_value_indicator:
            return _Failure(
                "YAMLParseError", "MULTILINE_IMPLICIT_KEY", "Implicit keys need to be on a single line", start
            )
        return _Failure(
            "YAMLParseError",
            "BLOCK_AS_IMPLICIT_KEY",
            "Nested mappings are not allowed in compact mappings",
            start,
        )
    if _is_tab_error(exc):
        return _Failure(
            "YAMLParseError", "TAB_AS_INDENT", "Tabs are not allowed as indentation", _line_start(text, pos)
        )
    if "cannot start any token" in problem and pos < len(text):
        char = text[pos]
        if char in "@`":
            return _Failure(
                "YAMLParseError", "BAD_SCALAR_START", f"Plain value cannot start with reserved character {char}", pos
            )
        if char == "%":
            return _Failure(
                "YAMLParseError",
                "BAD_SCALAR_START",
                "Plain value cannot start with directive indicator character %",
                pos,
            )
    if "mapping keys are not allowed here" in problem:
        return _Failure(
            "YAMLParseError", "BLOCK_AS_IMPLICIT_KEY", "Nested mappings are not allowed in compact mappings", pos
        )
    if "expected escape sequence of" in problem:
        backslash = text.rfind("\\", 0, pos)
        if backslash >= 0:
            width = {"x": 2, "u": 4, "U": 8}.get(text[backslash + 1 : backslash + 2], 2)
            sequence = text[backslash : backslash + 2 + width]
            return _Failure("YAMLParseError", "BAD_DQ_ESCAPE", f"Invalid escape sequence {sequence}", backslash)
    if "while scanning a block scalar" in context and "expected a comment or a line break" in problem:
        rest = text[pos : _line_end(text, pos)]
        return _Failure("YAMLParseError", "UNEXPECTED_TOKEN", f"Not a YAML token: {rest}", pos, _line_end(text, pos))
    if "sequence entries are not allowed here" in problem:
        return _Failure("YAMLParseError", "UNEXPECTED_TOKEN", "Unexpected block-seq-ind on same line with key", pos)
    if "found unknown escape character" in problem:
        char = text[pos] if pos < len(text) else ""
        return _Failure("YAMLParseError", "BAD_DQ_ESCAPE", f"Invalid escape sequence \\{char}", max(pos - 1, 0))
    if "expected <block end>" in problem:
        line_start = _line_start(text, pos)
        if "found ']'" in problem or "found '}'" in problem:
            closer = text[pos] if pos < len(text) else "]"
            kind = "flow-seq-end" if closer == "]" else "flow-map-end"
            return _Failure(
                "YAMLParseError", "UNEXPECTED_TOKEN", f'Unexpected {kind} token in YAML stream: "{closer}"', pos
            )
        in_mapping = "block mapping" in context
        if "<block sequence start>" in problem:
            if in_mapping:
                return _Failure(
                    "YAMLParseError",
                    "BLOCK_AS_IMPLICIT_KEY",
                    "A block sequence may not be used as an implicit map key",
                    line_start,
                )
            return _Failure("YAMLParseError", "BAD_INDENT", "All sequence items must start at the same column", pos)
        if "<block mapping start>" in problem and in_mapping:
            return _Failure(
                "YAMLParseError", "BAD_INDENT", "All mapping items must start at the same column", line_start
            )
        if "found '-'" in problem and in_mapping:
            return _Failure(
                "YAMLParseError", "MULTILINE_IMPLICIT_KEY", "Implicit keys need to be on a single line", line_start
            )
        if "found '?'" in problem and not in_mapping and pos > line_start:
            return _Failure(
                "YAMLParseError", "BAD_INDENT", "All mapping items must start at the same column", line_start
            )
        return _unexpected_scalar(text, pos)
    if "expected '<document start>'" in problem:
        return _unexpected_scalar(text, pos)
    text_out = problem or str(exc).strip().splitlines()[0]
    if context:
        text_out = f"{text_out} ({context})"
    return _Failure("YAMLParseError", "SYNTAX", text_out[:1].upper() + text_out[1:], pos)


def _utf16_col(text: str, line_start: int, pos: int) -> int:
    return js_len(text[line_start:pos]) + 1


def _make_error(text: str, failure: _Failure) -> YamlError:
    """Render ``yaml``'s pretty error message (``prettifyError``) for our failure."""
    if failure.start < 0:
        return YamlError(failure.name, failure.code, failure.text, failure.text, -1, -1)
    start = min(failure.start, len(text))
    end = max(start + 1, min(failure.end, len(text) + 1))
    line = text.count("\n", 0, start) + 1
    line_start = _line_start(text, start)
    col = _utf16_col(text, line_start, start)
    message = f"{failure.text} at line {line}, column {col}"
    next_nl = text.find("\n", start)
    line_str = text[line_start : len(text) if next_nl < 0 else next_nl]
    line_str = _js_units(line_str)
    ci = col - 1
    if ci >= 60 and len(line_str) > 80:
        trim_start = min(ci - 39, len(line_str) - 79)
        line_str = "…" + line_str[trim_start:]
        ci -= trim_start - 1
    if len(line_str) > 80:
        line_str = line_str[:79] + "…"
    if line > 1 and re.fullmatch(r" *", line_str[:ci]):
        prev_start = _line_start(text, line_start - 1)
        prev = _js_units(text[prev_start:line_start])
        if len(prev) > 80:
            prev = prev[:79] + "…\n"
        line_str = prev + line_str
    if re.search(r"[^ ]", line_str):
        count = 1
        end_line = text.count("\n", 0, min(end, len(text))) + 1
        if end_line == line:
            end_col = _utf16_col(text, line_start, min(end, len(text)))
            if end_col > col:
                count = max(1, min(end_col - col, 80 - ci))
        pointer = " " * ci + "^" * count
        message += f":\n\n{_from_units(line_str)}\n{pointer}\n"
    return YamlError(failure.name, failure.code, failure.text, message, start, end, line, col)


def _js_units(text: str) -> str:
    """Text re-encoded so that ``len`` counts UTF-16 units (astral chars become surrogate pairs)."""
    if text.isascii():
        return text
    return "".join(_units_of(ch) for ch in text)


def _units_of(ch: str) -> str:
    code = ord(ch)
    if code <= 0xFFFF:
        return ch
    code -= 0x10000
    return chr(0xD800 + (code >> 10)) + chr(0xDC00 + (code & 0x3FF))


def _from_units(text: str) -> str:
    """Inverse of :func:`_js_units` (a pair cut in half by trimming stays a lone surrogate)."""
    if text.isascii():
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")
