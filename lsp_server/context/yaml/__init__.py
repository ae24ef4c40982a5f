"""YAML 1.2 (core schema) as Pi's ``yaml`` npm package reads frontmatter, with source positions.

Pi parses skill frontmatter with ``yaml``'s ``parse()``: YAML 1.2 core schema, unique keys,
values converted to plain JavaScript. PyYAML and ruamel.yaml's constructors follow YAML 1.1
habits (``yes`` is a boolean, ``2024-01-01`` a date), so a skill whose ``description: yes`` Pi
rejects would look valid. We therefore use ruamel.yaml only as a parser and build the values
ourselves, keeping every node's source range so a finding can point at what the user wrote.
One job per module:

- :mod:`~lsp_server.context.yaml.parse`: :func:`parse_yaml`, the entry point, never raising.
- :mod:`~lsp_server.context.yaml.reader`: ruamel.yaml set up as the parser; masked characters.
- :mod:`~lsp_server.context.yaml.compose`: nodes from ruamel's events; ``yaml``'s composition rules.
- :mod:`~lsp_server.context.yaml.schema`: the core schema's value of a scalar.
- :mod:`~lsp_server.context.yaml.nodes`: the node types.
- :mod:`~lsp_server.context.yaml.to_js`: the JavaScript value and property names.
- :mod:`~lsp_server.context.yaml.translate`: ruamel's syntax errors as ``yaml``'s.
- :mod:`~lsp_server.context.yaml.errors`: the error value and ``yaml``'s pretty message.
- :mod:`~lsp_server.context.yaml.limits`: how much pi-context reads before it stops.
"""

from __future__ import annotations

from lsp_server.context.yaml.errors import YamlError, YamlWarning
from lsp_server.context.yaml.nodes import AliasNode, MapNode, ScalarNode, SeqNode, YamlNode
from lsp_server.context.yaml.parse import parse_yaml
from lsp_server.context.yaml.result import YamlResult
from lsp_server.context.yaml.schema import resolve_plain
from lsp_server.context.yaml.to_js import property_name

__all__ = [
    "AliasNode",
    "MapNode",
    "ScalarNode",
    "SeqNode",
    "YamlError",
    "YamlNode",
    "YamlResult",
    "YamlWarning",
    "parse_yaml",
    "property_name",
    "resolve_plain",
]
