"""Nodes to the JavaScript value Pi's ``yaml`` package gives (``doc.toJS()``), and key names.

Mappings become plain objects, so every key becomes a property name: ``String(value)`` for a
scalar (``null`` gives ``""``, ``1.0`` gives ``"1"``, a Buffer its UTF-8 text), ``yaml``'s flow
text for a collection (``[ a, b ]``), and the last of two keys with the same name wins. An alias
shares the anchored value (the same list or dict object, as in JavaScript), and ``yaml``'s
resource-exhaustion rule applies: an alias whose uses times its own alias count exceed 100
fails with ``ReferenceError`` (a "billion laughs" document). The walk recurses once per nesting
level, which the composer's depth limit bounds; re-counting the aliases under a target is charged
to the expanded-size limit, so a document full of self-referencing aliases cannot make it slow.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from lsp_server.context.yaml import limits
from lsp_server.context.yaml.errors import Failure
from lsp_server.context.yaml.nodes import AliasNode, MapNode, ScalarNode, SeqNode, YamlNode
from lsp_server.js.values import js_to_string

MAX_ALIAS_COUNT = 100  # yaml's maxAliasCount default


@dataclass
class _AnchorData:
    res: Any = None
    done: bool = False
    count: int = 0
    alias_count: int = 0


def to_js(node: YamlNode | None) -> Any:
    """The JS-like value of a composed document (``None`` for an empty one); raises :class:`Failure`."""
    return _ToJs().convert(node)


class _ToJs:
    """``node.toJS()``: shared objects for aliases, yaml's alias-count limit (100)."""

    def __init__(self) -> None:
        self.anchors: dict[int, _AnchorData] = {}
        self._recount_budget = limits.EXPANDED.value  # nodes visited re-counting aliases

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
        convert = self.convert
        for key, value in node.pairs:
            if key.__class__ is ScalarNode and key.value.__class__ is str:  # nearly every key
                mapping[key.value] = convert(value)
                continue
            named = key.target if isinstance(key, AliasNode) and key.target is not None else key
            if not isinstance(named, ScalarNode):
                convert(named)  # aliases inside a collection key still count
            mapping[property_name(key)] = convert(value)
        return mapping

    def _alias(self, node: AliasNode) -> Any:
        target = node.target
        if target is None:
            raise Failure(
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
            # yaml counts again while the count is 0 (a target of empty collections or cycles).
            data.alias_count = self._alias_count(target, node)
        if data.count * data.alias_count > MAX_ALIAS_COUNT:
            raise Failure(
                "ReferenceError",
                "RESOURCE_EXHAUSTION",
                "Excessive alias count indicates a resource exhaustion attack",
                -1,
            )
        return data.res

    def _alias_count(self, node: YamlNode, alias: AliasNode) -> int:
        self._recount_budget -= 1
        if self._recount_budget < 0:
            raise Failure("YAMLParseError", limits.EXPANDED.code, limits.EXPANDED.text(), alias.start, alias.end)
        if isinstance(node, AliasNode):
            data = self.anchors.get(id(node.target)) if node.target is not None else None
            return data.count * data.alias_count if data else 0
        if isinstance(node, SeqNode):
            return max((self._alias_count(item, alias) for item in node.items), default=0)
        if isinstance(node, MapNode):
            return max(
                (max(self._alias_count(k, alias), self._alias_count(v, alias)) for k, v in node.pairs), default=0
            )
        return 1


def property_name(key: YamlNode) -> str:
    """The property name a key becomes in a JS object (``String(value)``; ``null`` -> "")."""
    if isinstance(key, AliasNode) and key.target is not None:
        key = key.target
    if isinstance(key, ScalarNode):
        return _key_string(key.value)
    return flow_string(key)


def _key_string(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, dict) and value.get("type") == "Buffer":
        return bytes(value.get("data") or []).decode("utf-8", errors="replace")  # Buffer#toString()
    return js_to_string(value)


def flow_string(node: YamlNode) -> str:
    """A collection key stringified as ``yaml`` does for JS object keys (``[ a, b ]``, ``{ x: 1 }``)."""
    if isinstance(node, AliasNode):
        return f"*{node.name}"
    if isinstance(node, ScalarNode):
        if node.style is None:
            return node.source
        return json.dumps(node.source, ensure_ascii=False)
    if isinstance(node, SeqNode):
        if not node.items:
            return "[]"
        return "[ " + ", ".join(flow_string(item) for item in node.items) + " ]"
    assert isinstance(node, MapNode)
    if not node.pairs:
        return "{}"
    parts = [f"{flow_string(k)}: {flow_string(v)}" for k, v in node.pairs]
    return "{ " + ", ".join(parts) + " }"
