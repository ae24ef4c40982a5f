"""ruamel's view of a syntax error, translated to ``yaml``'s message and position.

Syntax errors come from ruamel, whose wording and sometimes whose chosen position differ from
``yaml``'s. :func:`translate_ruamel_error` maps the error classes users actually hit (unclosed
flow collections and quotes, ``a: b: c``, keys without a value, multi-line implicit keys (as
``yaml``'s lexer reads a key on into the next line), tabs as indentation,
reserved characters, bad indentation, bad escapes) onto ``yaml``'s text and offset, by reading
ruamel's problem and context strings and, where ruamel points elsewhere, the text itself.
A few document-level rules are decided before or instead of ruamel: ``%`` directives without a
``---`` line, a ``...`` line ending an empty document, and tabs between tokens, which ruamel
rejects and ``yaml`` accepts (:func:`replace_separating_tab`). Residual differences are listed
in ``docs/rules.md`` and in the tests.
"""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass
from typing import Any

from lsp_server.context.yaml.compose import flow_indent_violation, flow_message
from lsp_server.context.yaml.errors import Failure, end_of_line, parse_failure, start_of_line
from lsp_server.context.yaml.prescan import quoted_end
from lsp_server.context.yaml.reader import ruamel_parser


def directive_failure(text: str) -> Failure | None:
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
                return parse_failure("MISSING_CHAR", "Missing directives-end/doc-start indicator line", pos)
            return None
        pos = end + 1
    if seen:
        return parse_failure("MISSING_CHAR", "Missing directives-end indicator line", len(text.rstrip("\n")))
    return None


def empty_document_end(text: str, exc: Any) -> Failure | bool | None:
    """A ``...`` line before any content ends an empty document (null); more content is a 2nd document.

    ``None`` when ``exc`` is not about such a line, ``True`` for an empty document, else the failure.
    """
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
            return parse_failure(
                "MULTIPLE_DOCS",
                "Source contains multiple documents; please use YAML.parseAllDocuments()",
                offset,
                end_of_line(text, offset),
            )
        pos = end if end < len(text) else -1
    return True


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


def _after_properties(text: str, pos: int) -> int:
    """Where the node itself starts after its ``!tag`` and ``&anchor`` on the same line (``yaml``
    places an error about the node there)."""
    line_end = end_of_line(text, pos)
    while pos < line_end and text[pos] in "!&":
        after = pos
        while after < line_end and text[after] not in " \t":
            after += 1
        while after < line_end and text[after] in " \t":
            after += 1
        if after >= line_end:
            return pos
        pos = after
    return pos


def _runs_on(text: str, key: int, node: int) -> bool | None:
    """Whether ``yaml``'s lexer reads the key at ``key`` (its node at ``node``, after properties) as
    going on past its line, which makes the error "Implicit keys need to be on a single line".

    A quoted scalar goes on when its closing quote is not on the line. A plain one goes on over
    blank lines to the next line holding content (not a comment) that is indented at least as far
    as the lexer then expects: the key's own column when the line's second character is not blank
    (``yaml`` lowers its expected indentation there: ``cc``, ``&a c``), else one column deeper
    (``c``, ``c d``). ``None`` for a key after ``-``/``?`` indicators, which this does not model.
    """
    opener = text[node : node + 1]
    if opener in ("'", '"'):
        return _closing_quote(text, node) is None
    if opener in ("[", "{"):
        return _closing_bracket(text, node) is None
    if opener == "*":
        return False  # an alias ends with its name
    line_start = start_of_line(text, key)
    if text[line_start:key].strip(" "):
        return None
    indent = key - line_start
    threshold = indent if text[key + 1 : key + 2] not in ("", " ", "\t", "\n", "\r") else indent + 1
    pos = end_of_line(text, key) + 1
    while pos < len(text):
        line_end = end_of_line(text, pos)
        line = text[pos:line_end]
        content = line.lstrip(" ")
        if content and not content.startswith("#"):
            document_marker = line[:3] in ("---", "...") and line[3:4] in ("", " ", "\t")
            return len(line) - len(content) >= threshold and not (threshold == 0 and document_marker)
        if content:  # a comment ends the scalar before it
            return False
        pos = line_end + 1
    return False


def _at_mapping_key(text: str, pos: int) -> bool:
    """Whether ``pos`` starts a line's content at the column of a block mapping entry above it (the
    nearest line not indented deeper, blank and comment lines skipped): where that mapping's next key goes."""
    line_start = start_of_line(text, pos)
    if text[line_start:pos].strip(" ") or line_start == 0:
        return False
    indent = pos - line_start
    before = text[: line_start - 1].split("\n")
    for line in reversed(before):
        content = line.lstrip(" ")
        column = len(line) - len(content)
        if not content or content.startswith("#") or column > indent:
            continue  # blank, a comment, or inside a deeper collection
        entry = ": " in content or content.rstrip(" ").endswith(":")
        return entry and column == indent
    return False


def _closing_quote(text: str, pos: int) -> int | None:
    """The closing quote of the quoted scalar opening at ``pos``, when it is on the same line."""
    after = quoted_end(text, pos, end_of_line(text, pos))
    return None if after is None else after - 1


def _single_line_node_end(text: str, pos: int) -> int:
    """End of the scalar or flow collection starting at ``pos``, as far as its line goes: after a
    closing quote or bracket, else the plain token's end (before a comment and trailing blanks)."""
    line_end = end_of_line(text, pos)
    opener = text[pos : pos + 1]
    if opener in ("'", '"'):
        close = _closing_quote(text, pos)
        return line_end if close is None else close + 1
    if opener in ("[", "{"):
        close = _closing_bracket(text, pos)
        return line_end if close is None else close + 1
    return _token_end(text, pos)


def _closing_bracket(text: str, pos: int) -> int | None:
    """The bracket closing the flow collection opening at ``pos``, when it is on the same line."""
    depth = 0
    for index in range(pos, end_of_line(text, pos)):
        if text[index] in "[{":
            depth += 1
        elif text[index] in "]}":
            depth -= 1
            if depth == 0:
                return index
    return None


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


# What ruamel names a node's first token in "expected <block end>, but found ..."
_NODE_STARTS = ("<scalar>", "[", "{", "<alias>", "<anchor>", "<tag>")


def _line_after_content_before(text: str, line_start: int) -> int:
    """Start of the line after the last line before ``line_start`` that holds more than blanks and a comment."""
    pos = line_start
    while pos > 0:
        previous = start_of_line(text, pos - 1)
        line = text[previous : pos - 1].strip(" \t")
        if line and not line.startswith("#"):
            return pos
        pos = previous
    return pos


def _unexpected_scalar(text: str, pos: int) -> Failure:
    char = text[pos] if pos < len(text) else ""
    if char in "'\"":
        close = text.find(char, pos + 1)
        end = close + 1 if close >= 0 else end_of_line(text, pos)
        kind = "single-quoted-scalar" if char == "'" else "double-quoted-scalar"
        return parse_failure("UNEXPECTED_TOKEN", f"Unexpected {kind} at node end", pos, end)
    return parse_failure("UNEXPECTED_TOKEN", "Unexpected scalar at node end", pos, _token_end(text, pos))


def _is_tab_error(exc: Any) -> bool:
    problem = str(getattr(exc, "problem", "") or "")
    return "'\\t'" in problem or "\t" in problem


def replace_separating_tab(text: str, exc: Any) -> str | None:
    """ruamel rejects a tab between tokens (``a:\\tb``); yaml accepts it there. Retry with a space."""
    mark = getattr(exc, "problem_mark", None)
    if mark is None or not _is_tab_error(exc):
        return None
    pos = mark.index
    if pos >= len(text) or text[pos] != "\t":
        return None
    line_start = start_of_line(text, pos)
    if not text[line_start:pos].strip(" \t") and not (
        _blank_or_comment_line(text, pos) and not _after_block_scalar(text, line_start)
    ):
        return None  # a tab in the indentation: yaml rejects it too (unless the line holds no content)
    return text[:pos] + " " + text[pos + 1 :]


def _blank_or_comment_line(text: str, pos: int) -> bool:
    """Whether the line holding ``pos`` has only blanks, or blanks and a comment, from ``pos`` on."""
    rest = text[pos : end_of_line(text, pos)].lstrip(" \t")
    return not rest or rest.startswith("#")


_BLOCK_SCALAR_HEADER = re.compile(r"(?:^|[ \t])[|>][1-9+-]{0,2}[ \t]*(?:#.*)?$")


def _after_block_scalar(text: str, line_start: int) -> bool:
    """Whether the line at ``line_start`` comes where a block scalar (``|``, ``>``) may go on: right
    after its header, or after its content lines with only blank lines between. ``yaml`` reads such
    a line as a content line that is less indented than the first (an error), not as a comment."""
    lines = text[: max(line_start - 1, 0)].split("\n") if line_start else []
    content_indent: int | None = None  # the least indentation of the lines after the one looked at
    for line in reversed(lines):
        stripped = line.lstrip(" ")
        if not stripped.strip(" \t"):
            continue
        indent = len(line) - len(stripped)
        if content_indent is not None and indent >= content_indent:
            continue  # deeper or as deep: still inside what the content lines belong to
        if _BLOCK_SCALAR_HEADER.search(line) and (content_indent is None or indent < content_indent):
            return True
        if content_indent is not None:
            return False  # the content lines belong to a line that opens no block scalar
        content_indent = indent
    return False


def _scalar_start_before(text: str, pos: int) -> int:
    """Start of the last scalar token ruamel scanned before ``pos`` (multi-line plain scalars included).

    ruamel reports ``mapping values are not allowed here`` at the colon; ``yaml`` reports the start
    of the scalar that swallowed the line break or the colon. Re-scanning the text up to the error
    gives that scalar's start mark.
    """
    from ruamel.yaml.error import YAMLError
    from ruamel.yaml.tokens import ScalarToken

    start = start_of_line(text, pos)
    last_end = start
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for token in ruamel_parser().scan(text):
                if token.start_mark.index >= pos:
                    break
                if isinstance(token, ScalarToken) and token.end_mark.index <= pos:
                    start, last_end = token.start_mark.index, token.end_mark.index
    except YAMLError:
        pass
    if ":" in text[last_end:pos].replace("::", ""):
        return pos  # no scalar between the previous ':' and this one (``key: : value``)
    return start


def translate_ruamel_error(text: str, exc: Any) -> Failure:
    """``yaml``'s error for the syntax error ruamel raised on ``text`` (a ``MarkedYAMLError``)."""
    problem = str(getattr(exc, "problem", "") or "")
    context = str(getattr(exc, "context", "") or "")
    mark = getattr(exc, "problem_mark", None)
    pos = mark.index if mark is not None else 0
    pos = min(pos, len(text))
    ctx_mark = getattr(exc, "context_mark", None)

    if "found undefined alias" in problem:
        name = problem.split("'")[1] if "'" in problem else problem
        return Failure(
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
        return parse_failure("UNEXPECTED_TOKEN", f'Unexpected {kind} token in YAML document: "{closer}"', pos)
    if ("while scanning an anchor" in context or "while scanning an alias" in context) and ctx_mark is not None:
        what = "Anchor" if "anchor" in context else "Alias"
        return parse_failure("BAD_ALIAS", f"{what} cannot be an empty string", ctx_mark.index)
    if "while parsing a flow sequence" in context or "while parsing a flow mapping" in context:
        is_seq = "sequence" in context
        start = ctx_mark.index if ctx_mark is not None else 0
        line_start = start_of_line(text, start)
        in_block = bool(text[:start].strip(" \t\n"))
        if in_block:
            parent = _key_column(text, line_start, start)
            bad = flow_indent_violation(text, start, len(text), parent)
            return parse_failure("MISSING_CHAR", flow_message(is_seq, True), pos if bad is None else bad)
        return parse_failure("MISSING_CHAR", flow_message(is_seq, False), pos)
    if "while scanning a quoted scalar" in context and "end of stream" in problem:
        start = ctx_mark.index if ctx_mark is not None else pos
        quote = text[start] if start < len(text) else '"'
        if text[start_of_line(text, start) : start].rstrip(" ").endswith(("'", '"', "]", "}")):
            # a stray quote after a finished flow node (``d: 'x' "``): yaml stops at the second node first
            kind = "single-quoted-scalar" if quote == "'" else "double-quoted-scalar"
            return parse_failure(
                "UNEXPECTED_TOKEN", f"Unexpected {kind} at node end", start, len(text), lines_until=start
            )
        if "\n" in text[start:] and _at_mapping_key(text, start):
            # an unclosed quote where a key goes: yaml reads it to the end as a multi-line implicit key
            return parse_failure("MULTILINE_IMPLICIT_KEY", "Implicit keys need to be on a single line", start)
        return parse_failure("MISSING_CHAR", f"Missing closing {quote}quote", len(text))
    if "mapping values are not allowed here" in problem:
        start = _scalar_start_before(text, pos)
        line_start = start_of_line(text, start)
        after_value_indicator = text[line_start:start].rstrip(" \t").endswith(":")
        multi_line = "\n" in text[start:pos]
        if multi_line and not after_value_indicator:
            return parse_failure("MULTILINE_IMPLICIT_KEY", "Implicit keys need to be on a single line", start)
        return parse_failure(
            "BLOCK_AS_IMPLICIT_KEY",
            "Nested mappings are not allowed in compact mappings",
            start,
        )
    if _is_tab_error(exc):
        line_start = start_of_line(text, pos)
        if _blank_or_comment_line(text, pos) and _after_block_scalar(text, line_start):
            return parse_failure(
                "BAD_INDENT", "Block scalar lines must not be less indented than their first line", pos
            )
        return parse_failure("TAB_AS_INDENT", "Tabs are not allowed as indentation", line_start)
    if "cannot start any token" in problem and pos < len(text):
        char = text[pos]
        if char in "@`":
            return parse_failure("BAD_SCALAR_START", f"Plain value cannot start with reserved character {char}", pos)
        if char == "%":
            return parse_failure(
                "BAD_SCALAR_START",
                "Plain value cannot start with directive indicator character %",
                pos,
            )
    if "mapping keys are not allowed here" in problem:
        return parse_failure("BLOCK_AS_IMPLICIT_KEY", "Nested mappings are not allowed in compact mappings", pos)
    if "expected escape sequence of" in problem:
        backslash = text.rfind("\\", 0, pos)
        if backslash >= 0:
            width = {"x": 2, "u": 4, "U": 8}.get(text[backslash + 1 : backslash + 2], 2)
            sequence = text[backslash : backslash + 2 + width]
            return parse_failure("BAD_DQ_ESCAPE", f"Invalid escape sequence {sequence}", backslash)
    if "while scanning a block scalar" in context and "expected a comment or a line break" in problem:
        rest = text[pos : end_of_line(text, pos)]
        return parse_failure("UNEXPECTED_TOKEN", f"Not a YAML token: {rest}", pos, end_of_line(text, pos))
    if "sequence entries are not allowed here" in problem:
        return parse_failure("UNEXPECTED_TOKEN", "Unexpected block-seq-ind on same line with key", pos)
    if "found unknown escape character" in problem:
        char = text[pos] if pos < len(text) else ""
        return parse_failure("BAD_DQ_ESCAPE", f"Invalid escape sequence \\{char}", max(pos - 1, 0))
    if "expected <block end>" in problem:
        line_start = start_of_line(text, pos)
        if "found ']'" in problem or "found '}'" in problem:
            closer = text[pos] if pos < len(text) else "]"
            kind = "flow-seq-end" if closer == "]" else "flow-map-end"
            return parse_failure("UNEXPECTED_TOKEN", f'Unexpected {kind} token in YAML stream: "{closer}"', pos)
        in_mapping = "block mapping" in context
        if "<block sequence start>" in problem:
            if in_mapping:
                return parse_failure(
                    "BLOCK_AS_IMPLICIT_KEY",
                    "A block sequence may not be used as an implicit map key",
                    line_start,
                )
            return parse_failure("BAD_INDENT", "All sequence items must start at the same column", pos)
        if "<block mapping start>" in problem and in_mapping:
            return parse_failure("BAD_INDENT", "All mapping items must start at the same column", line_start)
        if "found '-'" in problem and in_mapping:
            return parse_failure("MULTILINE_IMPLICIT_KEY", "Implicit keys need to be on a single line", line_start)
        if "found '?'" in problem and not in_mapping and pos > line_start:
            return parse_failure("BAD_INDENT", "All mapping items must start at the same column", line_start)
        node_found = any(f"found '{what}'" in problem for what in _NODE_STARTS)
        after_previous = _line_after_content_before(text, line_start)
        previous_line = text[start_of_line(text, max(after_previous - 1, 0)) : max(after_previous - 1, 0)]
        if (
            node_found
            and pos > line_start
            and not text[line_start:pos].strip(" ")
            and not _BLOCK_SCALAR_HEADER.search(previous_line)  # an empty block scalar: its own error
        ):
            # a node starting a line indented deeper than the collection's items (``d: 'x'`` then ``  c``):
            # yaml reports the item at the start of the line after the previous node's last line
            if in_mapping:
                return parse_failure("BAD_INDENT", "All mapping items must start at the same column", after_previous)
            if "block collection" in context:
                return parse_failure("MISSING_CHAR", "Sequence item without - indicator", after_previous)
        return _unexpected_scalar(text, pos)
    if "could not find expected ':'" in problem and "simple key" in context and ctx_mark is not None:
        # A key on its own line (``a: b`` / ``c``): ruamel stops at the line's end, ``yaml`` points at the key.
        start = _after_properties(text, ctx_mark.index)
        runs_on = _runs_on(text, ctx_mark.index, start)
        if runs_on or (runs_on is None and "\n" in text[start:pos]):
            return parse_failure("MULTILINE_IMPLICIT_KEY", "Implicit keys need to be on a single line", start)
        end = _single_line_node_end(text, start)
        return parse_failure("MISSING_CHAR", "Implicit map keys need to be followed by map values", start, end)
    if "expected '<document start>'" in problem:
        return _unexpected_scalar(text, pos)
    text_out = problem or str(exc).strip().splitlines()[0]
    if context:
        text_out = f"{text_out} ({context})"
    return parse_failure("SYNTAX", text_out[:1].upper() + text_out[1:], pos)
