"""File references in Markdown instructions: links the model will follow, with their positions.

Skills and context files point the model at other files (``[guide](references/guide.md)``); the
model is told to resolve them against the file's folder. We find relative link targets (inline
links, images, reference definitions) outside fenced code blocks, and backslash paths in code
spans, so rules can report missing files and Windows separators exactly where they are written.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from urllib.parse import unquote

_INLINE_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*(<[^>\n]*>|[^)\s]+)(?:\s+(?:\"[^\"]*\"|'[^']*'))?\s*\)")
_REF_DEFINITION = re.compile(r"^ {0,3}\[[^\]]+\]:\s*(<[^>\n]*>|\S+)")
_CODE_SPAN = re.compile(r"(`+)(.+?)\1")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_BACKSLASH_PATH = re.compile(r"^(?:\.{1,2}\\)?[\w.-]+(?:\\[\w.-]+)+$")
_IMPORT = re.compile(r"(?<![\w@`/])@((?:~/|\.{1,2}/)?[\w.-]+(?:/[\w.-]+)*)")


@dataclass(frozen=True)
class Reference:
    """A path written in the text: 0-based line, code-point columns [start, end) of the target."""

    target: str  # as written (without <> brackets)
    path: str  # the file part: fragment/query removed, %-escapes decoded
    line: int
    start: int
    end: int
    kind: str  # "link", "code" (a code span) or "import" (@path)

    @property
    def has_backslash(self) -> bool:
        return "\\" in self.target


def _code_free(line: str) -> str:
    """The line with inline code spans blanked out (same length, so columns stay)."""
    return _CODE_SPAN.sub(lambda m: " " * len(m.group(0)), line)


def _relative_target(target: str) -> str | None:
    """The local relative path a link target names, or None for URLs, anchors, absolute paths."""
    if not target or target.startswith(("#", "/", "~", "{", "$", "%")):
        return None
    if _SCHEME.match(target) and not re.match(r"^[A-Za-z]:\\", target):
        return None
    path = re.split(r"[#?]", target, maxsplit=1)[0]
    if not path:
        return None
    return unquote(path)


def iter_lines_outside_code(lines: list[str], first_line: int = 0) -> Iterator[tuple[int, str]]:
    """(line number, text) for lines not inside fenced code blocks."""
    fence: str | None = None
    for offset, line in enumerate(lines):
        match = _FENCE.match(line)
        if fence is not None:
            if match and match.group(1)[0] == fence[0] and len(match.group(1)) >= len(fence):
                fence = None
            continue
        if match:
            fence = match.group(1)
            continue
        yield first_line + offset, line


def find_references(lines: list[str], first_line: int = 0) -> list[Reference]:
    """Relative link targets and backslash code-span paths, in reading order."""
    found: list[Reference] = []
    for number, line in iter_lines_outside_code(lines, first_line):
        plain = _code_free(line)
        for match in _INLINE_LINK.finditer(plain):
            _add_link(found, match.group(1), number, match.start(1))
        definition = _REF_DEFINITION.match(plain)
        if definition:
            _add_link(found, definition.group(1), number, definition.start(1))
        for span in _CODE_SPAN.finditer(line):
            body = span.group(2).strip()
            if _BACKSLASH_PATH.match(body) and "." in body.rsplit("\\", 1)[-1]:
                start = span.start(2) + span.group(2).index(body)
                found.append(Reference(body, body, number, start, start + len(body), "code"))
    return found


def _add_link(found: list[Reference], raw: str, line: int, column: int) -> None:
    target = raw
    if target.startswith("<") and target.endswith(">"):
        target, column = target[1:-1], column + 1
    path = _relative_target(target)
    if path is None:
        return
    found.append(Reference(target, path, line, column, column + len(target), "link"))


def find_imports(lines: list[str], first_line: int = 0) -> list[Reference]:
    """Claude Code ``@path`` imports outside code (a path with a ``/`` or a file extension)."""
    found: list[Reference] = []
    for number, line in iter_lines_outside_code(lines, first_line):
        plain = _code_free(line)
        for match in _IMPORT.finditer(plain):
            target = match.group(1).rstrip(".")
            if "/" not in target and "." not in target:
                continue
            found.append(Reference(target, target, number, match.start(1), match.start(1) + len(target), "import"))
    return found
