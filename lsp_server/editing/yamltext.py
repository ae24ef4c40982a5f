"""Writing into frontmatter without changing what the rest of it means.

A fix that writes ``name: 2024`` gives YAML's number 2024, not the string the user wanted; one
that writes ``description: Use when: x`` breaks the YAML. :func:`yaml_scalar` therefore writes a
plain scalar only when YAML 1.2 reads it back as the same string, and a double-quoted one
otherwise. :class:`FieldSpan` locates a whole top-level field (from its key's line through the
last line of its value, nested blocks and block scalars included), so a key can be removed or its
value replaced in place; new fields are inserted as whole lines with the mapping's indentation
and the file's own line break.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lsp_server.base.findings import Position, Range
from lsp_server.context.frontmatter import FieldLocation, Frontmatter
from lsp_server.context.yaml import AliasNode, ScalarNode, resolve_plain
from lsp_server.editing.text import LineIndex, TextEdit

_PLAIN_FIRST = re.compile(r"[A-Za-z0-9_./(\u00a0-\U0010ffff]")
_PLAIN_BODY = re.compile(r"[^\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff\ud800-\udfff]*")


def is_plain_safe(value: str) -> bool:
    """Whether ``value`` written as a plain scalar reads back as the same string."""
    if not value or value != value.strip(" \t") or not _PLAIN_FIRST.match(value[0]):
        return False
    if not _PLAIN_BODY.fullmatch(value) or "\t" in value:
        return False
    if ": " in value or " #" in value or value.endswith(":"):
        return False
    return resolve_plain(value) == value and isinstance(resolve_plain(value), str)


def _escape(ch: str) -> str:
    simple = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r"}
    if ch in simple:
        return simple[ch]
    code = ord(ch)
    printable = 0x20 <= code <= 0x7E or 0xA0 <= code <= 0xD7FF or 0xE000 <= code <= 0xFFFD or code > 0xFFFF
    if printable and code not in (0x2028, 0x2029, 0xFEFF):  # line separators: escaped, to be safe
        return ch
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def double_quoted(value: str) -> str:
    """A YAML double-quoted scalar for ``value`` (escapes what YAML does not allow raw)."""
    return '"' + "".join(_escape(ch) for ch in value) + '"'


def yaml_scalar(value: str) -> str:
    """``value`` as a one-line YAML scalar that YAML 1.2 reads back as exactly ``value``."""
    return value if is_plain_safe(value) else double_quoted(value)


@dataclass(frozen=True)
class FieldSpan:
    """A top-level frontmatter field's lines and where its value can be rewritten."""

    field: FieldLocation
    key_line: int
    last_line: int  # last line holding part of the value (the key line for an empty value)
    colon: Position  # the ':' after the key
    empty: bool  # ``key:`` with nothing after it (YAML null)


def _is_empty(located: FieldLocation) -> bool:
    node = located.node
    return isinstance(node, ScalarNode) and node.style is None and node.source == "" and node.tag is None


def field_span(fm: Frontmatter, located: FieldLocation, index: LineIndex) -> FieldSpan | None:
    """The span of a field in a block mapping; ``None`` when its layout is not one we can edit safely."""
    mapping = fm.mapping
    if mapping is None or mapping.flow:
        return None
    key_line = located.key_range.start.line
    if key_line == 0:
        return None  # ``---key: value`` on the fence line: leave such files alone
    line = index.line(key_line)
    if line[: located.key_range.start.column].strip(" "):
        return None  # something before the key (an explicit ``?`` key, a flow collection)
    rest = line[located.key_range.end.column :]
    stripped = rest.lstrip(" \t")
    if not stripped.startswith(":"):
        return None
    colon = Position(key_line, located.key_range.end.column + len(rest) - len(stripped))
    empty = _is_empty(located)
    if empty and located.node.anchor is not None:
        return None
    last = key_line if empty else max(key_line, located.value_range.end.line)
    return FieldSpan(located, key_line, last, colon, empty)


def replace_value(fm: Frontmatter, span: FieldSpan, index: LineIndex, scalar: str) -> TextEdit:
    """Rewrite the field's value as ``scalar`` (an anchor on it is kept, a tag dropped)."""
    located = span.field
    after_colon = Position(span.colon.line, span.colon.column + 1)
    if span.empty:
        rest = index.line(span.key_line)[after_colon.column :]
        if rest.strip(" \t"):
            return TextEdit(Range(after_colon, after_colon), " " + scalar)  # keeps a trailing comment
        return TextEdit(Range(after_colon, index.line_end(span.key_line)), " " + scalar)
    node = located.node
    anchor = "" if isinstance(node, AliasNode) or node.anchor is None else f"&{node.anchor} "
    end = located.value_range.end
    if located.value_range.start.line > span.key_line:
        return TextEdit(Range(after_colon, end), " " + anchor + scalar)
    return TextEdit(Range(fm.yaml_position(node.start), end), anchor + scalar)


def mapping_indent(fm: Frontmatter) -> str:
    """The indentation of the top-level keys (YAML allows an indented top-level mapping)."""
    for located in fm.fields():
        if located.key_range.start.line > 0:
            return " " * located.key_range.start.column
    return ""


def fence_line_is_plain(index: LineIndex) -> bool:
    """Whether line 0 is just ``---`` (after a BOM), so new lines can go right below it."""
    return index.line(0).lstrip("\ufeff").rstrip(" \t") == "---"
