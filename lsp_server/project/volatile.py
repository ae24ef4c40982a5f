"""``prompt/volatile-content`` counted in the assembled prompt: how much of it follows a finding.

The rule (:mod:`lsp_server.rules.volatile_content`) checks one file and can only count the tokens
that follow a volatile line *in that file*. The provider's cache breaks at the first differing
byte of the whole request, so what misses the cache is everything after the finding in the system
prompt: the rest of the file, then every later section. Where the prompt is known (the language
server's folder prompts, ``pi-context check`` with its project), :func:`place_volatile` rewrites
those findings with that count.

The prompt part after a file is taken from a build of the prompt, and the part inside the file from
the text that was checked, so a file being edited (its buffer newer than the last build) is still
counted exactly as long as the rest of the prompt is unchanged.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace

from lsp_server.base.findings import Finding
from lsp_server.js.strings import js_len, strip_bom
from lsp_server.project.prompt_state import PromptSnapshot
from lsp_server.rules.registry import RULES
from lsp_server.rules.volatile_content import CODE, placed_after
from lsp_server.tokens.pi import pi_tokens_for_chars
from lsp_server.vocabulary.profiles import ProfileId


def _key(path: str) -> str:
    return os.path.realpath(path)


def _sourced_texts(snapshot: PromptSnapshot, section: str) -> list[tuple[str, str, str]]:
    """(path, the marker before the file's text in the section, the file's text) for one section."""
    files = snapshot.resources.prompt_files
    if section == "preamble" and files.system is not None and files.system.source_path:
        return [(files.system.source_path, "", files.system.text)]
    if section == "addendum":
        return [(source.source_path, "", source.text) for source in files.append if source.source_path]
    if section == "project_context":
        return [
            (file.path, f'<project_instructions path="{file.path}">\n', file.content)
            for file in snapshot.resources.context.files
        ]
    return []


def chars_after_files(snapshot: PromptSnapshot) -> dict[str, int]:
    """UTF-16 units of the rendered prompt after each file's text (SYSTEM.md, APPEND_SYSTEM.md, context files).

    A forced prompt (an extension's ``systemPrompt``) holds none of them; a file whose text cannot be
    found in its section is left out (its findings keep the count within the file).
    """
    prompt = snapshot.prompt
    if prompt.forced:
        return {}
    text = prompt.text
    total = js_len(text)
    found: dict[str, int] = {}
    cursor = 0
    for section in prompt.sections:
        if not section.text:
            continue
        start = text.find(section.text, cursor)
        if start < 0:
            continue
        cursor = start + len(section.text)
        inner = 0
        for path, marker, body in _sourced_texts(snapshot, section.name):
            at = section.text.find(marker + body, inner)
            if at < 0:
                continue
            inner = at + len(marker) + len(body)
            end = start + inner
            found[_key(path)] = total - js_len(text[:end])
    return found


def _line_starts(text: str) -> list[int]:
    """Code-point offsets where each line starts, lines split as the rule splits them (CRLF, CR, LF)."""
    starts = [0]
    index, size = 0, len(text)
    while index < size:
        char = text[index]
        if char == "\r":
            index += 2 if index + 1 < size and text[index + 1] == "\n" else 1
            starts.append(index)
            continue
        index += 1
        if char == "\n":
            starts.append(index)
    return starts


def place_volatile(
    findings: Sequence[Finding], text: str | None, after_file: Mapping[str, int], profile: ProfileId
) -> list[Finding]:
    """The findings with each ``prompt/volatile-content`` counted to the end of the prompt.

    ``text``: the file as it was checked; ``after_file``: :func:`chars_after_files` of a prompt build.
    A file that is not part of that prompt keeps its findings as they are.
    """
    if text is None or not any(f.code == CODE for f in findings):
        return list(findings)
    out: list[Finding] = []
    content = strip_bom(text)
    starts: list[int] | None = None
    for finding in findings:
        data = finding.data
        tail = after_file.get(_key(finding.path))
        line, end = data.get("line"), data.get("end")
        if finding.code != CODE or tail is None or not isinstance(line, int) or not isinstance(end, int):
            out.append(finding)
            continue
        if starts is None:
            starts = _line_starts(content)
        if line >= len(starts):
            out.append(finding)
            continue
        offset = starts[line] + end
        tokens = pi_tokens_for_chars(js_len(content[offset:]) + tail)
        facts = {**data.get("facts", {}), "after": placed_after(tokens)}
        message = RULES[CODE].message(profile, facts)
        placed = {**data, "tokensAfter": tokens, "counted": "prompt"}
        out.append(replace(finding, message=message, data=placed))
    return out


def place_in_snapshots(
    findings: Sequence[Finding], text: str | None, snapshots: Iterable[PromptSnapshot], profile: ProfileId
) -> list[Finding]:
    """:func:`place_volatile` against the first prompt that holds the file (none: unchanged)."""
    if text is None or not findings or not any(f.code == CODE for f in findings):
        return list(findings)
    key = _key(findings[0].path)
    for snapshot in snapshots:
        tails = chars_after_files(snapshot)
        if key in tails:
            return place_volatile(findings, text, tails, profile)
    return list(findings)
