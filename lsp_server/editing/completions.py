"""Completion inside SKILL.md frontmatter: key names, boolean values, a name for ``name:``.

Frontmatter being typed is usually not valid YAML yet (``---`` then ``na``), so the context is
read from the lines, not from a parse: the region runs from the line after the opening ``---`` to
the closing fence (or, while the block is still unclosed, to the first blank line). On a line that
holds only an identifier at the mapping's indentation we offer the keys the active rule profile
accepts (under ``pi``, every key we know, Pi's three first), minus those already present; after
``key:`` we offer that key's values: ``true``/``false`` for booleans (never YAML 1.1's
``yes``/``on``, which Pi reads as strings), the listed values of enumerated keys, and a valid name
derived from the folder for ``name``. Outside the frontmatter there is nothing to complete.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from lsp_server.base.findings import Position, Range
from lsp_server.editing.hovers import key_markdown, value_meaning
from lsp_server.editing.keys import AGENT_LABELS, AGENTS, KeyInfo, key_info, keys_for_profile
from lsp_server.editing.text import LineIndex
from lsp_server.editing.triggers import TRIGGER_CHARACTERS as TRIGGER_CHARACTERS
from lsp_server.editing.yamltext import yaml_scalar
from lsp_server.rules.skill_rules import suggest_name
from lsp_server.vocabulary.pi_files import SKILL_FILE_NAME
from lsp_server.vocabulary.profiles import DEFAULT_PROFILE, ProfileId

_KEY_LINE = re.compile(r"^([ \t]*)([A-Za-z0-9_][A-Za-z0-9_.-]*|\"[^\"]*\"|'[^']*')[ \t]*:(?:[ \t]|$)")
_KEY_PREFIX = re.compile(r"([ ]*)([A-Za-z0-9_-]*)")
_VALUE_PREFIX = re.compile(r"([ ]*)([A-Za-z0-9_-]+)[ \t]*:([ \t]*)([A-Za-z0-9_-]*)")
_WORD_AFTER = re.compile(r"[A-Za-z0-9_-]*")


@dataclass(frozen=True)
class Completion:
    """One completion item in code points; ``snippet`` is the insert text for snippet-capable clients."""

    label: str
    kind: str  # "key" or "value"
    range: Range  # what the item replaces
    text: str  # plain insert text
    snippet: str | None
    detail: str
    documentation: str  # Markdown
    sort_text: str
    preselect: bool = False


def _frontmatter_lines(index: LineIndex) -> range | None:
    """Line numbers inside the frontmatter (after the opening fence, before the closing one)."""
    if not index.line(0).lstrip("\ufeff").startswith("---"):
        return None
    for number in range(1, len(index)):
        if index.line(number).startswith("---"):
            return range(1, number)
    end = next((n for n in range(1, len(index)) if not index.line(n).strip()), len(index))
    return range(1, end)


def _top_level_keys(index: LineIndex, lines: range) -> tuple[str, dict[str, int]]:
    """The mapping's indentation and its keys (key -> line)."""
    found: list[tuple[str, str, int]] = []
    for number in lines:
        match = _KEY_LINE.match(index.line(number))
        if match:
            found.append((match.group(1), match.group(2).strip("\"'"), number))
    if not found:
        return "", {}
    indent = min((entry[0] for entry in found), key=len)
    return indent, {key: number for prefix, key, number in found if prefix == indent}


def _word_length_at(line: str, column: int) -> int:
    match = _WORD_AFTER.match(line, column)
    return len(match.group(0)) if match else 0


def _read_by(info: KeyInfo) -> str:
    agents = [AGENT_LABELS[a] for a in AGENTS if info.honoured_by(a) and a != "agentskills"]
    if info.honoured_by("agentskills"):
        agents.append("the spec")
    return "read by " + ", ".join(agents) if agents else "read by no agent we know"


def _key_snippet(info: KeyInfo, name_value: str) -> str:
    if info.kind == "boolean":
        return f"{info.name}: ${{1|true,false|}}"
    if info.values:
        return f"{info.name}: ${{1|{','.join(info.values)}|}}"
    if info.name == "name":
        return f"name: ${{1:{name_value}}}"
    return f"{info.name}: $0"


def _name_suggestions(path: str) -> list[tuple[str, str]]:
    """(name, detail): the folder's name (what Pi uses without ``name:``), made valid first when it is not.

    A loose ``.md`` skill gets its file name instead (Pi would use the skills folder's name).
    """
    if os.path.basename(path) != SKILL_FILE_NAME:
        stem = os.path.splitext(os.path.basename(path))[0]
        return [(suggest_name(stem), "from the file name")]
    folder = os.path.basename(os.path.dirname(path))
    valid = suggest_name(folder)
    if valid == folder:
        return [(folder, "the folder name")]
    return [(valid, "the folder name, made valid"), (folder, "the folder name as written")]


def _key_items(
    path: str, index: LineIndex, position: Position, indent: str, present: dict[str, int], profile: ProfileId
) -> list[Completion]:
    line = index.line(position.line)
    prefix = line[: position.column]
    match = _KEY_PREFIX.fullmatch(prefix)
    if match is None or match.group(1) != indent:
        return []
    word_end = position.column + _word_length_at(line, position.column)
    has_colon = line[word_end:].lstrip(" \t").startswith(":")
    where = Range(Position(position.line, len(indent)), Position(position.line, word_end))
    name_value = _name_suggestions(path)[0][0]
    items = []
    for order, info in enumerate(keys_for_profile(profile)):
        if present.get(info.name, position.line) != position.line:
            continue  # already in the frontmatter (on another line)
        text = info.name if has_colon else f"{info.name}: "
        snippet = None if has_colon else _key_snippet(info, name_value)
        items.append(
            Completion(
                label=info.name,
                kind="key",
                range=where,
                text=text,
                snippet=snippet,
                detail=f"{info.value_type} · {_read_by(info)}",
                documentation=key_markdown(info, profile),
                sort_text=f"{order:02d}",
            )
        )
    return items


def _value_items(path: str, index: LineIndex, position: Position, indent: str) -> list[Completion]:
    line = index.line(position.line)
    match = _VALUE_PREFIX.fullmatch(line[: position.column])
    if match is None or match.group(1) != indent:
        return []
    info = key_info(match.group(2))
    if info is None:
        return []
    details: list[str] = []
    if info.kind == "boolean":
        values = ["true", "false"]
    elif info.values:
        values = list(info.values)
    elif info.name == "name":
        names = _name_suggestions(path)
        values = [yaml_scalar(name) for name, _ in names]
        details = [detail for _, detail in names]
    else:
        return []
    typed = match.group(4)
    end = position.column + _word_length_at(line, position.column)
    start = position.column - len(typed)
    lead = "" if match.group(3) or typed else " "
    where = Range(Position(position.line, start), Position(position.line, end))
    items = []
    for order, value in enumerate(values):
        meaning = value_meaning(info.name, value == "true" if info.kind == "boolean" else value)
        documentation = "\n\n".join(meaning) if meaning else key_markdown(info)
        detail = details[order] if info.name == "name" else f"{info.name}: {value}"
        items.append(
            Completion(
                label=value,
                kind="value",
                range=where,
                text=lead + value,
                snippet=None,
                detail=detail,
                documentation=documentation,
                sort_text=f"{order:02d}",
                preselect=order == 0,
            )
        )
    return items


def completions_at(path: str, text: str, position: Position, profile: ProfileId = DEFAULT_PROFILE) -> list[Completion]:
    """Completion items at ``position`` (code points) in a skill file's text."""
    index = LineIndex(text)
    lines = _frontmatter_lines(index)
    if lines is None or position.line not in lines:
        return []
    indent, present = _top_level_keys(index, lines)
    items = _value_items(path, index, position, indent)
    return items or _key_items(path, index, position, indent, present, profile)
