"""A YAML failure as Pi reports it: ``yaml``'s error name, code, text, and its pretty message.

``yaml`` renders a positioned error as ``<text> at line L, column C:`` followed by the offending
line (with the previous one when the error sits in the indentation), trimmed around the column
to 80 characters, and a caret line under the error's extent; lines and columns are 1-based and
columns count UTF-16 units. Pi shows that message as the skill's warning. The parse raises
:class:`Failure` wherever a rule is broken; :func:`render_error` turns it into the
:class:`YamlError` value callers get. Limits of our own (:mod:`lsp_server.context.yaml.limits`)
use the same shape, with ``LIMIT_*`` codes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lsp_server.js.strings import from_code_units, js_len, to_code_units


@dataclass(frozen=True)
class YamlError:
    """A parse failure as Pi reports it.

    ``message`` is the full text (``yaml``'s pretty form when positioned: ``<text> at line L,
    column C:\\n\\n<excerpt>\\n<caret>\\n``). ``start``/``end`` are code-point offsets into the YAML
    text, or -1 for errors without a position (``yaml``'s alias ReferenceErrors).
    """

    name: str  # "YAMLParseError" or "ReferenceError", as Pi's error object names it
    code: str  # yaml's error code (DUPLICATE_KEY, ...) or ours (SYNTAX, LIMIT_*)
    text: str  # the message without position
    message: str
    start: int
    end: int
    line: int = 0  # 1-based line in the YAML text (0 when unpositioned)
    column: int = 0  # 1-based UTF-16 column, as Pi prints it (0 when unpositioned)

    @property
    def positioned(self) -> bool:
        return self.start >= 0

    @property
    def is_limit(self) -> bool:
        """One of pi-context's own limits, not a rule of YAML: Pi may still read this text."""
        return self.code.startswith("LIMIT_")


@dataclass(frozen=True)
class YamlWarning:
    text: str
    start: int
    end: int


class Failure(Exception):
    """Raised inside the parse where ``yaml`` would report an error; ``start`` -1 = no position."""

    def __init__(
        self, name: str, code: str, text: str, start: int, end: int | None = None, *, lines_until: int | None = None
    ) -> None:
        super().__init__(text)
        self.name = name
        self.code = code
        self.text = text
        self.start = start
        self.end = start + 1 if end is None else end
        # yaml's line counter knows no line start after this offset (a quoted scalar left open runs to
        # the end as one token): the excerpt and the carets then run on over the later lines.
        self.lines_until = lines_until


def parse_failure(
    code: str, text: str, start: int, end: int | None = None, *, lines_until: int | None = None
) -> Failure:
    return Failure("YAMLParseError", code, text, start, end, lines_until=lines_until)


def start_of_line(text: str, pos: int) -> int:
    return text.rfind("\n", 0, pos) + 1


def end_of_line(text: str, pos: int) -> int:
    end = text.find("\n", pos)
    return len(text) if end < 0 else end


def _utf16_col(text: str, first: int, pos: int) -> int:
    return js_len(text[first:pos]) + 1


def render_error(text: str, failure: Failure) -> YamlError:
    """Render ``yaml``'s pretty error message (``prettifyError``) for our failure."""
    if failure.start < 0:
        return YamlError(failure.name, failure.code, failure.text, failure.text, -1, -1)
    start = min(failure.start, len(text))
    end = max(start + 1, min(failure.end, len(text) + 1))
    line = text.count("\n", 0, start) + 1
    first = start_of_line(text, start)
    col = _utf16_col(text, first, start)
    message = f"{failure.text} at line {line}, column {col}"
    next_nl = text.find("\n", start)
    unknown_lines = failure.lines_until is not None and next_nl >= failure.lines_until
    if unknown_lines:
        next_nl = len(text.rstrip("\n\r"))
    line_str = to_code_units(text[first : len(text) if next_nl < 0 else next_nl])
    ci = col - 1
    if ci >= 60 and len(line_str) > 80:
        trim_start = min(ci - 39, len(line_str) - 79)
        line_str = "…" + line_str[trim_start:]
        ci -= trim_start - 1
    if len(line_str) > 80:
        line_str = line_str[:79] + "…"
    if line > 1 and re.fullmatch(r" *", line_str[:ci]):
        prev_start = start_of_line(text, first - 1)
        prev = to_code_units(text[prev_start:first])
        if len(prev) > 80:
            prev = prev[:79] + "…\n"
        line_str = prev + line_str
    if re.search(r"[^ ]", line_str):
        count = 1
        end_line = line if unknown_lines else text.count("\n", 0, min(end, len(text))) + 1
        if end_line == line:
            end_col = _utf16_col(text, first, min(end, len(text)))
            if end_col > col:
                count = max(1, min(end_col - col, 80 - ci))
        pointer = " " * ci + "^" * count
        message += f":\n\n{from_code_units(line_str)}\n{pointer}\n"
    return YamlError(failure.name, failure.code, failure.text, message, start, end, line, col)
