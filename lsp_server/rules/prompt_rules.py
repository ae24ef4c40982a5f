"""Rules for text that goes into the prompt: the ``prompt/*`` rules, one function per place.

Pi sends every context file, SYSTEM.md, APPEND_SYSTEM.md and every skill's name and description
with every request, and a skill's body whenever it is invoked. These rules look at that text
for what the model should not receive: forged prompt tags (:mod:`lsp_server.rules.forged_tags`) and
invisible characters (:mod:`lsp_server.rules.invisible_chars`) and secrets (:mod:`lsp_server.rules.secrets`).
Each function takes the file's lines and the ``at(line, start, end)`` that turns a code-point
span into a file range (it adds a BOM's column on the first line), so positions are exact.

A place is one of ``context`` (inside ``<project_instructions>``), ``system`` (SYSTEM.md: the
prompt's preamble), ``append`` (APPEND_SYSTEM.md: the ``<addendum>`` section), ``skill-body``
(inside ``<skill>`` when invoked) and ``description`` (inside ``<available_skills>``, where Pi
escapes ``<``, ``>`` and ``&``; the message says so).
"""

from __future__ import annotations

from collections.abc import Callable

from lsp_server.base.findings import Range
from lsp_server.prompt.inclusion import EVERY_REQUEST
from lsp_server.prompt.skills_block import escape_xml
from lsp_server.rules.forged_tags import code_span, find_forged_tags, visible
from lsp_server.rules.invisible_chars import find_invisible
from lsp_server.rules.registry import Emitter
from lsp_server.rules.secrets import find_secrets
from lsp_server.rules.volatile_content import check_volatile

At = Callable[[int, int, int], Range]
When = str | Callable[[int], str]  # when Pi sends the text: one clause, or one per line


def check_forged_tags(em: Emitter, lines: list[str], first: int, at: At, place: str) -> None:
    """``prompt/forged-tag`` for every prompt tag or role marker in ``lines`` (outside code spans), however
    it is spelled (the match runs on the text as the model reads it)."""
    if not em.enabled("prompt/forged-tag"):
        return
    for tag in find_forged_tags(lines, first):
        if place == "description":
            action = "imitates"
            sent = escape_xml(tag.text)
            if sent == tag.text:
                note = "Pi sends it unchanged in the skill list, and the model reads a tag"
            else:
                note = f"Pi escapes it as '{visible(sent)}' in the skill list, but the model still reads a tag"
        else:
            action = "closes" if tag.closing else "opens"
            note = "the model may read what follows as another part of the prompt"
        # A code span quotes the tag (and is not reported); it cannot hold a line break or sit in a fenced block.
        quotable = not tag.in_code_block and tag.last_line == tag.line
        fixes = ["code-span", "remove"] if quotable else ["remove"]
        read = f" (read as '{tag.read}')" if tag.read else ""
        facts = {"tag": visible(tag.text), "read": read, "action": action, "imitates": tag.imitates, "note": note}
        data = {"fix": "quote-or-remove-tag", "tag": tag.text, "fixes": fixes, "codeSpan": code_span(tag.text)}
        data["place"] = place
        where = at(tag.line, tag.start, tag.end)
        if tag.last_line != tag.line:
            where = Range(where.start, at(tag.last_line, tag.end, tag.end).end)
        em.emit("prompt/forged-tag", where, facts, data)


def check_invisible(em: Emitter, lines: list[str], first: int, at: At) -> None:
    """``prompt/invisible-characters`` for every run of invisible characters (bidi controls, zero-width and
    format characters, fillers, variation selectors, tag characters) outside their legitimate uses."""
    if not em.enabled("prompt/invisible-characters"):
        return
    for run in find_invisible(lines, first):
        count = len(run.chars)
        what = f"{count} invisible character{'s' if count != 1 else ''} ({run.describe()})"
        hidden = run.hidden()
        if hidden is not None:
            what += f' spelling the hidden text "{hidden}"'
        data = {"fix": "remove-invisible", "count": count, "codepoints": [f"U+{ord(c):04X}" for c in run.chars]}
        em.emit("prompt/invisible-characters", at(run.line, run.start, run.end), {"what": what}, data)


def check_secrets(
    em: Emitter, lines: list[str], first: int, at: At, yaml_lines: range = range(0), when: When = EVERY_REQUEST
) -> None:
    """``prompt/secret`` for every secret found (the kind only: the value is never shown).

    ``when`` says when Pi sends the text (:mod:`lsp_server.prompt.inclusion`): one clause for the
    file, or one per line (a skill's description is in every request, its body only when used).
    """
    if not em.enabled("prompt/secret"):
        return
    for hit in find_secrets(lines, first, yaml_lines=yaml_lines):
        facts = {"kind": hit.kind, "when": when if isinstance(when, str) else when(hit.line)}
        em.emit("prompt/secret", at(hit.line, hit.start, hit.end), facts, {"kind": hit.kind})


def check_prompt_text(
    em: Emitter, lines: list[str], first: int, at: At, place: str, when: When = EVERY_REQUEST
) -> None:
    """Every ``prompt/*`` rule over a whole file's text placed at ``place`` (skills: see ``check_skill_prompt``)."""
    check_forged_tags(em, lines, first, at, place)
    check_invisible(em, lines, first, at)
    check_secrets(em, lines, first, at, when=when)
    check_volatile(em, lines, first, at, place)  # after the secrets: it leaves their places to them
