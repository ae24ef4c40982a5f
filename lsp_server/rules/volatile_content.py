"""``prompt/volatile-content``: text in the stable part of the prompt that changes between sessions or runs.

A provider's prompt cache only hits on a byte-identical prefix, and Pi's system prompt is the start
of every request: SYSTEM.md is its preamble, APPEND_SYSTEM.md its ``<addendum>``, the context files
its ``<project_context>``, followed by the skills and the cwd. A date, a generated timestamp, a build
number, a commit hash or a temporary folder's path written into one of them (usually by a script
that regenerates the file) makes the prompt differ from that point on, so every new session pays
for everything after it again instead of reading it from the cache. The finding says how much that
is: here the tokens after it in the file, and :mod:`lsp_server.project.volatile` recounts them to the
end of the assembled prompt where the prompt is known. Where such facts belong instead is in
docs/cost.md ("Volatile content").

Detection is by pattern, one finding per line (the first match), at most :data:`MAX_FINDINGS` per
file; each pattern is anchored on words or shapes that are rarely stable (a time of day, a label
such as ``Generated:``, a 40-digit hash).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from lsp_server.base.findings import Range
from lsp_server.js.strings import js_len
from lsp_server.rules.registry import Emitter
from lsp_server.tokens.pi import pi_tokens_for_chars

At = Callable[[int, int, int], Range]
MAX_FINDINGS: Final = 20
CODE: Final = "prompt/volatile-content"

_DATE = r"\d{4}-\d{2}-\d{2}"
_TIME = r"\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?"
_MONTH = r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)[a-z]*\.?"

# (what, pattern): the first matching pattern names the finding. Case-insensitive.
_PATTERNS: Final[tuple[tuple[str, re.Pattern[str]], ...]] = tuple(
    (what, re.compile(pattern, re.IGNORECASE))
    for what, pattern in (
        ("today's date", r"\b(?:today is|today's date|the current (?:date|time)|current date(?:/time)?|the date is)\b"),
        ("a timestamp", rf"\b{_DATE}[T ]{_TIME}(?:Z|[+-]\d{{2}}:?\d{{2}})?(?![\d:])"),
        ("a timestamp", rf"\b{_MONTH} \d{{1,2}},? \d{{4}},? (?:at )?{_TIME}\b"),
        (
            "a generated date",
            rf"\b(?:generated|last updated|updated|built|build date|timestamp|as of|date)\b[^\n\d]{{0,12}}"
            rf"(?:{_DATE}|\d{{1,2}} {_MONTH} \d{{4}}|{_MONTH} \d{{1,2}},? \d{{4}}|\d{{10,13}}\b)",
        ),
        ("a build number", r"\b(?:build|build (?:number|id|no\.?)|run (?:number|id)|pipeline)\s*[#:=]\s*\d+\b"),
        (
            "a commit hash",
            # hex with a digit and a letter: a word ("decade") or a run of one digit is not a hash
            r"\b(?:commit|sha|sha1|revision|rev|head)\b\s*[:=@]?\s*`?(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}\b"
            r"|(?<![0-9a-z])(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{40}(?![0-9a-z])",
        ),
        (
            "a temporary folder's path",
            r"(?<![\w./~-])(?:/tmp/|/var/tmp/|/var/folders/|/private/var/folders/|/private/tmp/)[^\s`'\"),;]+"
            r"|\b[A-Za-z]:\\Users\\[^\\\s]+\\AppData\\Local\\Temp\\[^\s`'\"),;]*",
        ),
    )
)

# What follows each place in Pi's section order (preamble, tools, rules, docs, addendum,
# project_context, skills, cwd): the rest of the prompt that misses the cache with it.
_LATER: Final = {
    "system": "every section after the preamble (the whole prompt)",
    "append": "the context files, skills and cwd after the addendum",
    "context": "the later context files, the skills and the cwd",
}


@dataclass(frozen=True)
class VolatileMatch:
    line: int
    start: int  # code points
    end: int
    what: str
    text: str


def find_volatile(lines: list[str]) -> list[VolatileMatch]:
    """The first volatile-looking text of each line, at most :data:`MAX_FINDINGS`."""
    found: list[VolatileMatch] = []
    for number, line in enumerate(lines):
        best: tuple[int, int, str] | None = None
        for what, pattern in _PATTERNS:
            match = pattern.search(line)
            if match is not None and (best is None or match.start() < best[0]):
                best = (match.start(), match.end(), what)
        if best is not None:
            found.append(VolatileMatch(number, best[0], best[1], best[2], line[best[0] : best[1]]))
            if len(found) >= MAX_FINDINGS:
                break
    return found


def in_file_after(tokens: int, place: str) -> str:
    """The ``after`` fact when only the file is known: its own tokens after the finding, then the rest named."""
    return f"the {tokens:,} tokens after it here, and {_LATER[place]},"


def placed_after(tokens: int) -> str:
    """The ``after`` fact when the assembled prompt is known (:mod:`lsp_server.project.volatile`)."""
    return f"the {tokens:,} tokens after it in the system prompt"


def check_volatile(em: Emitter, lines: list[str], first: int, at: At, place: str) -> None:
    """``prompt/volatile-content`` for each match, with the tokens after it in this file.

    The finding's data keeps the match's line and end (code points, ``lines``' coordinates) and its
    facts, so a caller that knows the assembled prompt can count to the prompt's end instead.
    """
    if not em.enabled(CODE) or place not in _LATER:
        return
    matches = find_volatile(lines)
    if not matches:
        return
    # UTF-16 length of the text after each line's end (lines joined by "\n", as Pi sends them).
    lengths = [js_len(line) for line in lines]
    after_line = [0] * len(lines)
    running = 0
    for index in range(len(lines) - 1, -1, -1):
        after_line[index] = running
        running += lengths[index] + 1
    # A match inside a secret (a hex key looks like a commit hash) is left to prompt/secret's finding, which
    # says more and never shows the value; this one would quote it.
    secrets = [f.range for f in em.findings if f.code == "prompt/secret"]
    for match in matches:
        where = at(first + match.line, match.start, match.end)
        if any(r.start.line == where.start.line and r.start < where.end and where.start < r.end for r in secrets):
            continue
        rest_of_line = js_len(lines[match.line][match.end :])
        after = pi_tokens_for_chars(rest_of_line + after_line[match.line])
        shown = match.text if len(match.text) <= 60 else match.text[:57] + "..."
        facts = {"what": match.what, "text": shown}
        line = first + match.line
        data = {"tokensAfter": after, "counted": "file", "line": line, "end": match.end, "facts": facts}
        em.emit(CODE, where, {**facts, "after": in_file_after(after, place)}, data)
