"""The composed YAML document: one node per scalar, collection and alias, with its source range.

Nodes are what a finding points at (the ``name`` value, the second ``description`` key), so each
keeps its start and end as code-point offsets into the YAML text, its ``&anchor`` and ``!tag``,
and for scalars both the text the user wrote (after un-escaping and folding) and the value the
core schema gives it. Aliases keep their target node; the JavaScript value is built from the
nodes afterwards (:mod:`lsp_server.context.yaml.to_js`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(slots=True)
class YamlNode:
    """A composed node. ``start``/``end`` are code-point offsets into the YAML text."""

    start: int
    end: int
    anchor: str | None = field(default=None, kw_only=True)
    tag: str | None = field(default=None, kw_only=True)


@dataclass(slots=True)
class ScalarNode(YamlNode):
    source: str = ""  # the scalar's text after YAML un-escaping/folding
    style: str | None = None  # None (plain), "'", '"', "|", ">"
    value: Any = None  # core-schema value (str, bool, int, float, None, or a Buffer-like dict)
    value_start: int = 0  # where the scalar itself starts (after anchor/tag properties)
    js_object: bool = False  # the value is a JS object (a Date or a Buffer): equal only to itself


@dataclass(slots=True)
class MapNode(YamlNode):
    pairs: list[tuple[YamlNode, YamlNode]] = field(default_factory=list)
    flow: bool = False


@dataclass(slots=True)
class SeqNode(YamlNode):
    items: list[YamlNode] = field(default_factory=list)
    flow: bool = False


@dataclass(slots=True)
class AliasNode(YamlNode):
    name: str = ""
    target: YamlNode | None = None
