"""``parse_yaml``: text in, the value Pi would get, the nodes with positions, and never an exception.

The steps, in ``yaml``'s order of complaints: whitespace-only text is an empty document; a
simple block mapping of one-line scalars is read by the fast path (same result); ``%``
directives are checked; characters ruamel refuses are masked; ruamel parses and the composer
builds nodes (stopping at pi-context's limits); the nodes become the JavaScript value. A syntax
error ruamel raises is translated to ``yaml``'s; a tab between tokens, which only ruamel rejects,
is replaced by a space and the text read again (a bounded number of times, see
:func:`~lsp_server.context.yaml.limits.tabs_allowed`).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

from lsp_server.context.yaml import limits
from lsp_server.context.yaml.compose import Composer, limit_failure
from lsp_server.context.yaml.errors import Failure, YamlError, YamlWarning, parse_failure, render_error
from lsp_server.context.yaml.fast import parse_simple
from lsp_server.context.yaml.nodes import YamlNode
from lsp_server.context.yaml.prescan import flow_depth_overflow
from lsp_server.context.yaml.reader import mask_unprintable, ruamel_parser
from lsp_server.context.yaml.to_js import to_js
from lsp_server.context.yaml.translate import (
    directive_failure,
    empty_document_end,
    replace_separating_tab,
    translate_ruamel_error,
)


@dataclass(frozen=True)
class YamlResult:
    value: Any  # JS-like value: dict[str, Any] | list | str | int | float | bool | None
    node: YamlNode | None
    error: YamlError | None = None
    warnings: tuple[YamlWarning, ...] = ()

    @property
    def ok(self) -> bool:
        return self.error is None


def parse_yaml(text: str, *, fast: bool = True) -> YamlResult:
    """Parse ``text`` like ``yaml.parse`` (core schema, unique keys) without ever raising.

    On failure ``error`` says why and where; ``value`` is then None. ``fast``: try the fast
    path for simple block mappings first (:mod:`~lsp_server.context.yaml.fast`, the same
    result); ``False`` runs the full parser (the differential tests compare the two).
    """
    if not text.strip(" \t\n"):
        # Whitespace only: an empty document (null). Comment-only text goes through the parser.
        return YamlResult(None, None)
    if len(text) > limits.CHARACTERS.value:
        return _failed(text, limit_failure(limits.CHARACTERS, limits.CHARACTERS.value))
    deep = flow_depth_overflow(text, limits.DEPTH.value)
    if deep is not None:  # ruamel's scanner is quadratic in flow nesting: refuse before it reads
        return _failed(text, limit_failure(limits.DEPTH, deep))
    if fast:
        simple = parse_simple(text)
        if simple is not None:
            return YamlResult(simple[1], simple[0])
    from ruamel.yaml.error import MarkedYAMLError, YAMLError

    directive_error = directive_failure(text)
    if directive_error is not None:
        return _failed(text, directive_error)
    source, restore = mask_unprintable(text)
    original = source
    tabs = limits.tabs_allowed(len(text))
    for _attempt in range(tabs + 1):  # each retry replaces one separating tab by a space
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                composer = Composer(source, ruamel_parser().parse(source), restore, original)
                node = composer.compose()
                value = to_js(node)
            if composer.expanded_overflow is not None:
                return _failed(text, composer.expanded_overflow)
            return YamlResult(value, node, None, tuple(composer.warnings))
        except Failure as failure:
            return _failed(text, failure)
        except MarkedYAMLError as exc:
            fixed = replace_separating_tab(source, exc)
            if fixed is not None:
                if _attempt == tabs:
                    return _failed(
                        text, parse_failure(limits.TABS.code, limits.TABS.text(tabs), exc.problem_mark.index)
                    )
                source = fixed
                continue
            empty = empty_document_end(source, exc)
            if empty is not None:
                if isinstance(empty, Failure):
                    return _failed(text, empty)
                return YamlResult(None, None)
            return _failed(text, translate_ruamel_error(source, exc))
        except (YAMLError, RecursionError, ValueError) as exc:
            return _failed(text, parse_failure("SYNTAX", str(exc).strip() or type(exc).__name__, 0))
    raise AssertionError("unreachable: the last attempt returns")  # pragma: no cover


def _failed(text: str, failure: Failure) -> YamlResult:
    return YamlResult(None, None, render_error(text, failure))
