"""Tool-output truncation exactly as Pi's tools apply it (``core/tools/truncate.js``).

The read tool keeps the head of a file, bash keeps the tail of its output, grep cuts each match
line. What the model sees of a tool result is the truncated text, so a context view that shows
"what was sent" (and its size) must cut the same way: two independent limits, whichever is hit
first, whole lines only (bash's tail may keep a partial last line), bytes counted in UTF-8 the
way Node counts them and characters in UTF-16 units.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from lsp_server.js.numbers import js_to_fixed
from lsp_server.js.strings import js_len, js_slice, js_slice_head, node_utf8, utf8_len
from lsp_server.js.values import js_to_string
from lsp_server.vocabulary.pi_releases import CURRENT, PiRules

DEFAULT_MAX_LINES = 2000
DEFAULT_MAX_BYTES = 50 * 1024
GREP_MAX_LINE_LENGTH = 500

TruncatedBy = Literal["lines", "bytes"]


@dataclass(frozen=True)
class TruncationResult:
    """Pi's ``TruncationResult``; :meth:`to_json` gives its keys in Pi's order."""

    content: str
    truncated: bool
    truncated_by: TruncatedBy | None
    total_lines: int
    total_bytes: int
    output_lines: int
    output_bytes: int
    last_line_partial: bool
    first_line_exceeds_limit: bool
    max_lines: int
    max_bytes: int

    def to_json(self) -> dict[str, Any]:
        return {
            "content": self.content,
            "truncated": self.truncated,
            "truncatedBy": self.truncated_by,
            "totalLines": self.total_lines,
            "totalBytes": self.total_bytes,
            "outputLines": self.output_lines,
            "outputBytes": self.output_bytes,
            "lastLinePartial": self.last_line_partial,
            "firstLineExceedsLimit": self.first_line_exceeds_limit,
            "maxLines": self.max_lines,
            "maxBytes": self.max_bytes,
        }


@dataclass(frozen=True)
class LineTruncation:
    text: str
    was_truncated: bool

    def to_json(self) -> dict[str, Any]:
        return {"text": self.text, "wasTruncated": self.was_truncated}


def split_lines_for_counting(content: str) -> list[str]:
    """Lines as Pi counts them: none for "", and a final newline does not start an empty line."""
    if not content:
        return []
    lines = content.split("\n")
    if content.endswith("\n"):
        lines.pop()
    return lines


def _untruncated(content: str, total_lines: int, total_bytes: int, max_lines: int, max_bytes: int) -> TruncationResult:
    return TruncationResult(
        content=content,
        truncated=False,
        truncated_by=None,
        total_lines=total_lines,
        total_bytes=total_bytes,
        output_lines=total_lines,
        output_bytes=total_bytes,
        last_line_partial=False,
        first_line_exceeds_limit=False,
        max_lines=max_lines,
        max_bytes=max_bytes,
    )


def truncate_head(
    content: str, max_lines: int = DEFAULT_MAX_LINES, max_bytes: int = DEFAULT_MAX_BYTES
) -> TruncationResult:
    """Keep the beginning, whole lines only (the read tool).

    When the first line alone is over ``max_bytes`` nothing is kept and
    ``first_line_exceeds_limit`` is set; the trailing newline of untruncated content is kept.
    """
    total_bytes = utf8_len(content)
    lines = split_lines_for_counting(content)
    total_lines = len(lines)
    if total_lines <= max_lines and total_bytes <= max_bytes:
        return _untruncated(content, total_lines, total_bytes, max_lines, max_bytes)
    if utf8_len(lines[0] if lines else "") > max_bytes:
        return TruncationResult(
            content="",
            truncated=True,
            truncated_by="bytes",
            total_lines=total_lines,
            total_bytes=total_bytes,
            output_lines=0,
            output_bytes=0,
            last_line_partial=False,
            first_line_exceeds_limit=True,
            max_lines=max_lines,
            max_bytes=max_bytes,
        )
    kept: list[str] = []
    used = 0
    truncated_by: TruncatedBy = "lines"
    for index, line in enumerate(lines):
        if index >= max_lines:
            break
        line_bytes = utf8_len(line) + (1 if index > 0 else 0)
        if used + line_bytes > max_bytes:
            truncated_by = "bytes"
            break
        kept.append(line)
        used += line_bytes
    if len(kept) >= max_lines and used <= max_bytes:
        truncated_by = "lines"
    output = "\n".join(kept)
    return TruncationResult(
        content=output,
        truncated=True,
        truncated_by=truncated_by,
        total_lines=total_lines,
        total_bytes=total_bytes,
        output_lines=len(kept),
        output_bytes=utf8_len(output),
        last_line_partial=False,
        first_line_exceeds_limit=False,
        max_lines=max_lines,
        max_bytes=max_bytes,
    )


def _tail_bytes(line: str, max_bytes: int) -> str:
    """The last ``max_bytes`` bytes of ``line``, moved forward to a UTF-8 character start."""
    data = node_utf8(line)
    if len(data) <= max_bytes:
        return line
    start = len(data) - max_bytes
    while start < len(data) and (data[start] & 0xC0) == 0x80:
        start += 1
    return data[start:].decode("utf-8")


def truncate_tail(
    content: str, max_lines: int = DEFAULT_MAX_LINES, max_bytes: int = DEFAULT_MAX_BYTES
) -> TruncationResult:
    """Keep the end (bash output); a last line longer than ``max_bytes`` keeps its final bytes."""
    total_bytes = utf8_len(content)
    lines = split_lines_for_counting(content)
    total_lines = len(lines)
    if total_lines <= max_lines and total_bytes <= max_bytes:
        return _untruncated(content, total_lines, total_bytes, max_lines, max_bytes)
    kept: list[str] = []  # reversed: last line first
    used = 0
    truncated_by: TruncatedBy = "lines"
    last_line_partial = False
    for line in reversed(lines):
        if len(kept) >= max_lines:
            break
        line_bytes = utf8_len(line) + (1 if kept else 0)
        if used + line_bytes > max_bytes:
            truncated_by = "bytes"
            if not kept:
                partial = _tail_bytes(line, max_bytes)
                kept.append(partial)
                used = utf8_len(partial)
                last_line_partial = True
            break
        kept.append(line)
        used += line_bytes
    if len(kept) >= max_lines and used <= max_bytes:
        truncated_by = "lines"
    output = "\n".join(reversed(kept))
    return TruncationResult(
        content=output,
        truncated=True,
        truncated_by=truncated_by,
        total_lines=total_lines,
        total_bytes=total_bytes,
        output_lines=len(kept),
        output_bytes=utf8_len(output),
        last_line_partial=last_line_partial,
        first_line_exceeds_limit=False,
        max_lines=max_lines,
        max_bytes=max_bytes,
    )


def truncate_line(line: str, max_chars: int = GREP_MAX_LINE_LENGTH, rules: PiRules = CURRENT) -> LineTruncation:
    """Cut one line to ``max_chars`` UTF-16 units + ``... [truncated]``; never inside a surrogate pair
    from Pi 1.5.1 (before, ``line.slice`` could keep half of one: docs/pi-versions.md)."""
    if js_len(line) <= max_chars:
        return LineTruncation(line, False)
    head = js_slice_head(line, max_chars) if rules.has("surrogate-safe-cuts") else js_slice(line, 0, max_chars)
    return LineTruncation(f"{head}... [truncated]", True)


def format_size(size: float) -> str:
    """``512B``, ``50.0KB``, ``1.5MB``: Pi's human-readable byte counts."""
    if size < 1024:
        return f"{js_to_string(size)}B"
    if size < 1024 * 1024:
        return f"{js_to_fixed(size / 1024, 1)}KB"
    return f"{js_to_fixed(size / (1024 * 1024), 1)}MB"
