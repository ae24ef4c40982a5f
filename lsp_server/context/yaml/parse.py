"""``parse_yaml``: text in, the value Pi would get, the nodes with positions, and never an exception.

The steps, in ``yaml``'s order of complaints: whitespace-only text is an empty document; text
libyaml reads as the full parser would, without an error, is read by libyaml's events under our
composer (in C where it is built and sure; without the C module a simple block mapping of
one-line scalars is read by regular expressions first: the same result all); otherwise the full
parser: deep flow nesting is
refused before ruamel's quadratic scanner sees it; ``%`` directives are checked; characters
ruamel refuses are masked; ruamel parses and the composer builds nodes (stopping at
pi-context's limits); the nodes become the JavaScript value. A syntax
error ruamel raises is translated to ``yaml``'s; a tab between tokens, which only ruamel rejects,
is replaced by a space and the text read again (a bounded number of times, see
:func:`~lsp_server.context.yaml.limits.tabs_allowed`).
"""

from __future__ import annotations

import warnings

from lsp_server.context.yaml import limits
from lsp_server.context.yaml.compose import Composer, limit_failure, ruamel_event_types
from lsp_server.context.yaml.errors import Failure, parse_failure, render_error
from lsp_server.context.yaml.fast import parse_simple
from lsp_server.context.yaml.libyaml import native_composer, parse_fast
from lsp_server.context.yaml.prescan import flow_depth_overflow
from lsp_server.context.yaml.reader import mask_unprintable, ruamel_parser
from lsp_server.context.yaml.result import YamlResult
from lsp_server.context.yaml.to_js import to_js
from lsp_server.context.yaml.translate import (
    directive_failure,
    empty_document_end,
    replace_separating_tab,
    translate_ruamel_error,
)


def parse_yaml(text: str, *, fast: bool = True) -> YamlResult:
    """Parse ``text`` like ``yaml.parse`` (core schema, unique keys) without ever raising.

    On failure ``error`` says why and where; ``value`` is then None. ``fast``: try the fast
    readers first, each giving the full parser's result when it answers: libyaml's events
    (:mod:`~lsp_server.context.yaml.libyaml`), composed in C where the C module is built; without
    it, the plain ``key: value`` shape by regular expressions first
    (:mod:`~lsp_server.context.yaml.fast`: about 0.6x the Python composer's time on that shape,
    2.4x the C composer's); ``False`` runs the full parser only (the differential tests compare them).
    """
    if not text.strip(" \t\n"):
        # Whitespace only: an empty document (null). Comment-only text goes through the parser.
        return YamlResult(None, None)
    if len(text) > limits.CHARACTERS.value:
        return _failed(text, limit_failure(limits.CHARACTERS, limits.CHARACTERS.value))
    if fast:
        if native_composer() is None:  # without the C composer the regular expressions come first
            simple = parse_simple(text)
            if simple is not None:
                return YamlResult(simple[1], simple[0])
        read = parse_fast(text)
        if read is not None:
            return read
    return _parse_full(text)


def _parse_full(text: str) -> YamlResult:
    """ruamel's events under the composer, with every error worded and placed as ``yaml`` does."""
    # only a bracket opens a flow collection: text without one needs no scan
    deep = flow_depth_overflow(text, limits.DEPTH.value) if "[" in text or "{" in text else None
    if deep is not None:  # ruamel's scanner is quadratic in flow nesting: refuse before it reads
        return _failed(text, limit_failure(limits.DEPTH, deep))
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
                events = iter(ruamel_parser().parse(source)).__next__
                composer = Composer(source, events, restore, original, ruamel_event_types())
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
