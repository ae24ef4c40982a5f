"""Hover help on SKILL.md frontmatter: what a key does, who honours it, and what Pi makes of it here.

VS Code's own skill hovers say one sentence about ``name`` and ``description``. Ours answer the
questions a user has when one file serves several agents: which agents read this key and how
(:mod:`lsp_server.editing.keys`), the limit and the current value's length in the units the
agents count, and for the keys Pi reads, what Pi does with *this* file: the name it will use
(the folder name when the frontmatter's is missing or not a string), whether it loads the skill,
whether ``disable-model-invocation`` really hides it (only the YAML boolean ``true`` does).

Content is written once as Markdown; :func:`to_plaintext` strips the markup for clients that
only show plain text.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from lsp_server.base.findings import Position, Range
from lsp_server.context.context_files import choose_context_file
from lsp_server.context.frontmatter import FieldLocation, Frontmatter, parse_frontmatter
from lsp_server.context.skills import SkillFileResult, load_skill_from_text, validate_name
from lsp_server.context.yaml import ScalarNode
from lsp_server.editing.keys import AGENT_LABELS, AGENTS, IGNORED, KeyInfo, key_info
from lsp_server.js.strings import js_len
from lsp_server.prompt.inclusion import ContextInclusion, Inclusions
from lsp_server.rules.secrets import could_hold_secret
from lsp_server.tokens.pi import pi_tokens_for_chars
from lsp_server.vocabulary.pi_files import CONTEXT_FILE_CANDIDATES
from lsp_server.vocabulary.profiles import CLAUDE_CODE_BOOLEANS, DEFAULT_PROFILE, AgentId, ProfileId, get_profile


@dataclass(frozen=True)
class HoverInfo:
    """What to show and over which range (code points)."""

    range: Range
    markdown: str

    @property
    def plaintext(self) -> str:
        return to_plaintext(self.markdown)


def to_plaintext(markdown: str) -> str:
    """The hover without Markdown markup (bold, code spans)."""
    return markdown.replace("**", "").replace("`", "")


def _contains(where: Range, position: Position) -> bool:
    return where.start <= position <= where.end


def _agents_first(profile: ProfileId) -> list[AgentId]:
    active = get_profile(profile).agent
    return [a for a in AGENTS if a == active] + [a for a in AGENTS if a != active]


def key_markdown(info: KeyInfo, profile: ProfileId = DEFAULT_PROFILE) -> str:
    """The key's documentation: summary, value type, limit, and every agent's handling."""
    head = f"**`{info.name}`** · {info.value_type}"
    if info.limit_note:
        head += f" · limit {info.limit_note}"
    lines = [head, "", info.summary, ""]
    for agent in _agents_first(profile):
        lines.append(f"- **{AGENT_LABELS[agent]}**: {info.handling(agent)}")
    return "\n".join(lines)


def unknown_key_markdown(name: str, profile: ProfileId) -> str:
    lines = [f"**`{name}`** · not a key of the spec, Pi, Claude Code or VS Code", ""]
    for agent in _agents_first(profile):
        lines.append(f"- **{AGENT_LABELS[agent]}**: {IGNORED[agent]}")
    return "\n".join(lines)


def _describe(value: Any) -> str:
    if isinstance(value, bool):
        return "the boolean `true`" if value else "the boolean `false`"
    if value is None:
        return "null"
    if isinstance(value, str):
        return "a string that may be a secret (not shown)" if could_hold_secret(value) else f'the string "{value}"'
    if isinstance(value, (int, float)):
        return f"the number {value}"
    return "a list" if isinstance(value, list) else "a mapping"


def _length_line(value: Any, limit: int | None, tokens: bool = False) -> str | None:
    if not isinstance(value, str) or limit is None:
        return None
    units, chars = js_len(value), len(value)
    counted = f"{units} of {limit} UTF-16 units"
    if chars != units:
        counted += f" ({chars} characters)"
    over = " · **over the limit**" if units > limit or chars > limit else ""
    line = f"Length: {counted}{over}"
    if tokens:
        line += f" · about {pi_tokens_for_chars(units)} tokens in every request (Pi's estimate: characters / 4)"
    return line


def _pi_name_lines(pi: SkillFileResult, folder: str, loads: str | None = None) -> list[str]:
    lines = []
    if pi.name is not None:
        source = "from the frontmatter" if pi.name_from_frontmatter else "the folder name"
        lines.append(f"Pi uses the name `{pi.name}` ({source}).")
        warnings = validate_name(pi.name)
        if warnings:
            lines.append("Pi warns: " + "; ".join(warnings) + ".")
    elif pi.frontmatter is not None and pi.frontmatter.error is None:
        lines.append(f"Pi would use the folder name `{folder}`.")
    lines.append(loads or _pi_loads(pi))
    return lines


def _pi_loads(pi: SkillFileResult) -> str:
    if pi.skill is not None:
        hidden = (
            " but hides it from the model (`disable-model-invocation: true`)"
            if pi.skill.disable_model_invocation
            else ""
        )
        return f"Pi loads this skill{hidden}."
    if pi.frontmatter is not None and pi.frontmatter.error is not None:
        return "Pi does not load this skill: the frontmatter is not valid YAML."
    if not pi.is_declared:
        return "Pi ignores this file: a loose .md skill needs a description."
    return "Pi does not load this skill: the description is missing or blank."


def _disable_value_lines(value: Any) -> list[str]:
    if value is True:
        return [
            "`true`: Pi leaves this skill out of the skill listing, so the model never loads it by itself; "
            "`/skill:<name>` still runs it."
        ]
    if value is False:
        return ["`false`: the skill is listed and the model may load it (the default)."]
    shown = _describe(value)
    lines = [f"This is {shown}, not the boolean `true`: Pi keeps the skill in the listing."]
    if isinstance(value, str) and CLAUDE_CODE_BOOLEANS.read(value) is True:
        lines.append("Claude Code reads it as true. Write `true` (unquoted) for Pi and VS Code.")
    return lines


def _user_invocable_value_lines(value: Any) -> list[str]:
    if value is True:
        return ["`true`: the skill is offered as a slash command (the default)."]
    if value is False:
        return ["`false`: Claude Code and VS Code hide the slash command; the model can still load the skill."]
    return [f"This is {_describe(value)}, not a boolean: VS Code rejects it."]


_VALUE_MEANINGS = {"disable-model-invocation": _disable_value_lines, "user-invocable": _user_invocable_value_lines}


def value_meaning(key: str, value: Any) -> list[str]:
    """What a value of ``key`` does (for keys whose values change what agents do), else nothing."""
    explain = _VALUE_MEANINGS.get(key)
    return explain(value) if explain is not None else []


def _field_extras(
    located: FieldLocation, fm: Frontmatter, pi: SkillFileResult, folder: str, loads: str | None = None
) -> list[str]:
    """What this file's value means, for the keys where it matters."""
    info = key_info(located.key)
    value = located.value
    lines: list[str] = []
    if located.key == "name":
        length = _length_line(value, info.limit if info else None)
        if length:
            lines.append(length)
        if not (isinstance(value, str) and value):
            lines.append(f"This is {_describe(value)}: Pi ignores it and uses the folder name.")
        lines.extend(_pi_name_lines(pi, folder, loads))
    elif located.key == "description":
        length = _length_line(value, info.limit if info else None, tokens=True)
        if length:
            lines.append(length)
        elif not isinstance(value, str):
            lines.append(f"This is {_describe(value)}, not a string: Pi treats the description as missing.")
        lines.append(loads or _pi_loads(pi))
    elif located.key in _VALUE_MEANINGS:
        lines.extend(value_meaning(located.key, value))
    elif info is not None and info.limit is not None:
        length = _length_line(value, info.limit)
        if length:
            lines.append(length)
    return lines


def hover_at(
    path: str, text: str, position: Position, profile: ProfileId = DEFAULT_PROFILE, loads: str | None = None
) -> HoverInfo | None:
    """The hover for ``position`` in a skill file, or None outside the frontmatter's keys and values.

    ``loads`` is whether Pi loads the skill in its project and why (the server passes the code
    lens's own sentence, ``FileRole.load_sentence``); without a project, what the file alone says.
    """
    fm = parse_frontmatter(text)
    if fm.mapping is None or fm.error is not None:
        return None
    for located in fm.fields():
        on_key = _contains(located.key_range, position)
        on_value = not on_key and _contains(located.value_range, position) and _value_is_there(located)
        if not (on_key or on_value):
            continue
        info = key_info(located.key)
        pi = load_skill_from_text(path, text, "path")
        folder = os.path.basename(os.path.dirname(path))
        body = key_markdown(info, profile) if info is not None else unknown_key_markdown(located.key, profile)
        extras = "\n\n".join(_field_extras(located, fm, pi, folder, loads))
        if extras:  # on a value, what this value means comes first
            body = f"{extras}\n\n---\n\n{body}" if on_value else f"{body}\n\n---\n\n{extras}"
        where = located.key_range if on_key else located.value_range
        return HoverInfo(where, body)
    return None


def _value_is_there(located: FieldLocation) -> bool:
    """An empty value's range sits at the next line's start: hovering there is not hovering the value."""
    node = located.node
    return not (isinstance(node, ScalarNode) and node.source == "" and node.style is None)


# ---------------------------------------------------------------------------------------------
# Context files: which candidate Pi takes in this folder


_STATUS = {
    "chosen": "used",
    "outranked": "ignored: an earlier name wins",
    "not-a-file": "skipped: not a regular file",
    "unreadable": "skipped: cannot be read",
}


def context_file_hover(
    path: str, text: str, position: Position, inclusion: ContextInclusion | None = None
) -> HoverInfo | None:
    """On a context file's first line: the candidate Pi takes in this folder, and when it sends this file.

    ``inclusion`` is the file's place in its project's prompt (the server passes the code lens's,
    ``FileRole.inclusion``); without a project the file's own folder stands for the cwd.
    """
    if position.line != 0:
        return None
    choice = choose_context_file(os.path.dirname(path))
    place = inclusion or Inclusions.own_folder(os.path.dirname(os.path.abspath(path))).context(path)
    name = os.path.basename(path)
    tokens = pi_tokens_for_chars(js_len(text.lstrip("\ufeff")))
    winner = f"`{os.path.basename(place.winner)}`" if place.winner is not None else "another file"
    if place.kind == "shadowed":
        verdict = f"Pi ignores this file: {winner} in the same folder comes first."
    elif place.kind == "same-file":
        verdict = f"Pi ignores this name: it is the same file as {winner}, which Pi takes for this folder."
    elif place.folder_file:
        verdict = f"Pi takes this file for its folder: {place.clause()}; about {tokens} tokens (Pi's estimate)."
    else:
        verdict = f"{place.clause()}."
    lines = [f"**`{name}`** · context file", "", verdict, "", "Pi takes the first regular, readable file of:"]
    statuses = {candidate.name: candidate.status for candidate in choice.candidates}
    for candidate in CONTEXT_FILE_CANDIDATES:
        status = statuses.get(candidate)
        shown = _STATUS[status] if status is not None else "absent"
        lines.append(f"- `{candidate}`: {shown}")
    first_line = text.split("\n", 1)[0].rstrip("\r")
    return HoverInfo(Range(Position(0, 0), Position(0, len(first_line))), "\n".join(lines))
