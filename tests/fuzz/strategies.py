"""Hypothesis strategies for the files pi-context reads: sessions, skills, context files, settings.

Every strategy produces *text* (what is on disk), because the oddities that matter live in the
text: a JSON number ``1e999`` or ``-0`` or ``9007199254740993`` that Python and JavaScript read
differently, duplicate keys, a lone surrogate written as ``\\ud800``, a truncated last line. Values
are built from :class:`Raw` (JSON text written as is) and :class:`Obj` (an object as a list of
pairs, so a key can repeat), serialized by :func:`dump`.

Sessions start from a valid chain of every entry type Pi 1.6.0 writes (the templates below),
then get mutated: any field at any depth replaced by an oddity, deleted or repeated, entry types
renamed or unknown, and line-level damage (a truncated or huge last line, garbage, blank and CR
lines, a BOM). The valid start matters: random bytes would be rejected on the first line and
never reach the projection, the budget or the compaction planner.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st


@dataclass(frozen=True)
class Raw:
    """JSON text written verbatim (numbers JavaScript and Python read differently)."""

    text: str


@dataclass(frozen=True)
class Obj:
    """A JSON object as pairs: keys may repeat (``JSON.parse`` keeps the last)."""

    pairs: tuple[tuple[str, Any], ...]


def dump(value: Any) -> str:
    """JSON text of a value built from dicts, lists, :class:`Obj`, :class:`Raw` and primitives.

    Strings are written with ``ensure_ascii`` so a lone surrogate becomes the ``\\ud800`` escape
    that JavaScript writes and reads; iterative, so generated depth is not bounded by recursion.
    """
    out: list[str] = []
    stack: list[Any] = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, (_Token, Raw)):
            out.append(item.text)
        elif isinstance(item, dict):
            stack.append(Obj(tuple(item.items())))
        elif isinstance(item, Obj):
            out.append("{")
            parts: list[Any] = []
            for index, (key, val) in enumerate(item.pairs):
                if index:
                    parts.append(_Token(","))
                parts.append(_Token(json.dumps(key) + ":"))
                parts.append(val)
            parts.append(_Token("}"))
            stack.extend(reversed(parts))
        elif isinstance(item, (list, tuple)):
            out.append("[")
            parts = []
            for index, val in enumerate(item):
                if index:
                    parts.append(_Token(","))
                parts.append(val)
            parts.append(_Token("]"))
            stack.extend(reversed(parts))
        elif isinstance(item, float) and item != item:
            out.append("null")
        else:
            out.append(json.dumps(item))
    return "".join(out)


@dataclass(frozen=True)
class _Token:
    text: str


# --- JavaScript oddities ---------------------------------------------------------------------------

ODD_NUMBERS = [
    Raw("1e999"),
    Raw("-1e999"),
    Raw("-0"),
    Raw("-0.0"),
    Raw("9007199254740993"),  # 2**53 + 1
    Raw("-9007199254740993"),
    Raw("1" + "0" * 400),
    Raw("1" * 5000),  # more digits than Python's int() accepts by default
    Raw("1e-400"),
    Raw("0.1e1"),
    Raw("1.5"),
    Raw("4294967296"),
    Raw("-1"),
    Raw("0"),
]
ODD_STRINGS = [
    "\ud800",
    "\udfff",
    "a\ud83d",
    "\udc00b",
    "\u2028\u2029",
    "\x00",
    "\x1b[31m",
    "",
    " ",
    "\n",
    "\r\n",
    "__proto__",
    "constructor",
    "toString",
    "NaN",
    "-0",
    "root",
    "\ufeff",
    "\u202e",
    "😀" * 3,
    "</summary>",
    "x" * 70_000,
]


def _deep_list(depth: int) -> Any:
    value: Any = []
    for _ in range(depth):
        value = [value]
    return value


def _deep_object(depth: int) -> Any:
    value: Any = {}
    for _ in range(depth):
        value = {"a": value}
    return value


ODD_STRUCTURES = [
    [],
    {},
    [None],
    [[[]]],
    {"": None},
    Obj((("a", 1), ("a", "two"))),
    _deep_list(200),
    _deep_list(900),  # about as deep as Python's json module reads
    _deep_object(900),
    [1] * 5000,
    {"role": "user"},
    {"type": "text", "text": "hi"},
]

json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**63),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=30),
    st.sampled_from(ODD_NUMBERS),
    st.sampled_from(ODD_STRINGS),
)
json_values = st.recursive(
    json_scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(st.text(max_size=8), children, max_size=4),
    ),
    max_leaves=12,
)
odd_values = st.one_of(
    st.sampled_from(ODD_NUMBERS), st.sampled_from(ODD_STRINGS), st.sampled_from(ODD_STRUCTURES), json_values
)


# --- valid session entries (Pi 1.6.0's shapes) ---------------------------------------------------

USAGE = {
    "input": 100,
    "output": 20,
    "cacheRead": 0,
    "cacheWrite": 0,
    "totalTokens": 120,
    "cost": {"input": 0.001, "output": 0.002, "cacheRead": 0, "cacheWrite": 0, "total": 0.003},
}


def _message(role: str, n: int) -> dict[str, Any]:
    t = 1_735_689_600_000 + n * 1000
    if role == "user":
        return {"role": "user", "content": f"Please fix bug {n} in src/app.ts. " + "q" * 200, "timestamp": t}
    if role == "user-blocks":
        return {
            "role": "user",
            "content": [
                {"type": "text", "text": f"look {n}"},
                {"type": "image", "data": "AAAA", "mimeType": "image/png"},
            ],
            "timestamp": t,
        }
    if role == "assistant":
        return {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "Let me look.", "thinkingSignature": "sig"},
                {"type": "text", "text": "Reading the file. " + "a" * 200},
                {"type": "toolCall", "id": f"call{n}", "name": "read", "arguments": {"path": "src/app.ts"}},
            ],
            "api": "anthropic-messages",
            "provider": "anthropic",
            "model": "claude-sonnet-4-5",
            "usage": USAGE,
            "stopReason": "toolUse",
            "timestamp": t,
        }
    if role == "toolResult":
        return {
            "role": "toolResult",
            "toolCallId": f"call{n - 1}",
            "toolName": "read",
            "content": [{"type": "text", "text": "export const x = 1;\n" * 20}],
            "isError": False,
            "timestamp": t,
        }
    if role == "system":
        return {"role": "system", "content": "You are a coding agent.", "timestamp": t}
    if role == "bashExecution":
        return {
            "role": "bashExecution",
            "command": "npm test",
            "output": "ok\n",
            "exitCode": 0,
            "cancelled": False,
            "truncated": False,
            "timestamp": t,
        }
    if role == "custom":
        return {"role": "custom", "customType": "note", "content": "remember", "display": True, "timestamp": t}
    if role == "branchSummary":
        return {"role": "branchSummary", "summary": "explored X", "fromId": "e1", "timestamp": t}
    return {"role": "compactionSummary", "summary": "earlier work", "tokensBefore": 5000, "timestamp": t}


MESSAGE_ROLES = [
    "user",
    "user-blocks",
    "assistant",
    "toolResult",
    "system",
    "bashExecution",
    "custom",
    "branchSummary",
    "compactionSummary",
]
ENTRY_KINDS = [*(f"message:{role}" for role in MESSAGE_ROLES), "thinking_level_change", "model_change", "usage"]
ENTRY_KINDS += ["compaction", "branch_summary", "custom", "custom_message", "session_info", "context_edit", "label"]


def _entry(kind: str, n: int, parent: str | None, earlier: list[str]) -> dict[str, Any]:
    base: dict[str, Any] = {
        "id": f"e{n}",
        "parentId": parent,
        "timestamp": f"2025-01-01T00:{n // 60 % 60:02d}:{n % 60:02d}.000Z",
    }
    target = earlier[0] if earlier else f"e{n}"
    if kind.startswith("message:"):
        return {"type": "message", **base, "message": _message(kind.split(":", 1)[1], n)}
    extra: dict[str, Any]
    if kind == "thinking_level_change":
        extra = {"thinkingLevel": "high"}
    elif kind == "model_change":
        extra = {"provider": "anthropic", "modelId": "claude-sonnet-4-5"}
    elif kind == "usage":
        extra = {"kind": "summary", "provider": "anthropic", "model": "claude-haiku", "usage": USAGE}
    elif kind == "compaction":
        extra = {
            "summary": "## Goal\nFix it.",
            "firstKeptEntryId": target,
            "tokensBefore": 12_000,
            "details": {"readFiles": ["a.ts"], "modifiedFiles": []},
            "fromHook": False,
        }
    elif kind == "branch_summary":
        extra = {"fromId": target, "summary": "tried Y", "details": {"readFiles": [], "modifiedFiles": []}}
    elif kind == "custom":
        extra = {"customType": "ext", "data": {"k": 1}}
    elif kind == "custom_message":
        extra = {"customType": "ext", "content": "shown", "display": True}
    elif kind == "session_info":
        extra = {"name": "my session"}
    elif kind == "context_edit":
        extra = {"targetId": target, "replacement": {"content": "edited"}}
    else:
        extra = {"targetId": target, "label": "checkpoint"}
    return {"type": kind, **base, **extra}


HEADER = {"type": "session", "version": 3, "id": "0193d0f0-aaaa-7bbb-8ccc-dddddddddddd"}
HEADER_REST = {"timestamp": "2025-01-01T00:00:00.000Z", "cwd": "/tmp/fuzz-project"}


@st.composite
def valid_entries(draw: st.DrawFn) -> list[dict[str, Any]]:
    """A header and a chain of entries of every kind, each the child of the one before."""
    kinds = draw(st.lists(st.sampled_from(ENTRY_KINDS), min_size=1, max_size=14))
    kinds = ["message:user", "message:assistant", "message:toolResult", *kinds]
    entries: list[dict[str, Any]] = [{**HEADER, **HEADER_REST}]
    ids: list[str] = []
    for n, kind in enumerate(kinds, start=1):
        parent = ids[-1] if ids else None
        if ids and draw(st.integers(0, 9)) == 0:
            parent = draw(st.sampled_from([*ids, None, "missing", f"e{n}"]))  # branches, roots, orphans, self
        entries.append(_entry(kind, n, parent, ids))
        ids.append(f"e{n}")
    return entries


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every key path inside a JSON value (objects and arrays), the value itself first."""
    out = [prefix]
    if isinstance(value, dict):
        for key, child in value.items():
            out.extend(_paths(child, (*prefix, key)))
    elif isinstance(value, list) and len(value) < 50:
        for index, child in enumerate(value):
            out.extend(_paths(child, (*prefix, index)))
    return out


def _replace(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        return {**value, head: _replace(value[head], rest, new)}
    copy = list(value)
    copy[head] = _replace(copy[head], rest, new)
    return copy


_DELETE = object()


def _delete(value: Any, path: tuple[Any, ...]) -> Any:
    head, rest = path[0], path[1:]
    if rest:
        copy = dict(value) if isinstance(value, dict) else list(value)
        copy[head] = _delete(value[head], rest)
        return copy
    if isinstance(value, dict):
        return {k: v for k, v in value.items() if k != head}
    return [v for i, v in enumerate(value) if i != head]


@st.composite
def mutated_entry(draw: st.DrawFn, entry: dict[str, Any]) -> Any:
    """One field at any depth replaced by an oddity, deleted, or repeated with an odd value."""
    paths = _paths(entry)
    path = draw(st.sampled_from(paths))
    action = draw(st.sampled_from(["replace", "replace", "delete", "duplicate", "type"]))
    if action == "type" and isinstance(entry, dict):
        return {**entry, "type": draw(st.sampled_from([*ENTRY_KINDS, "session", "mystery", "", None, 1, ["message"]]))}
    if action == "delete" and path and isinstance(entry, dict):
        return _delete(entry, path)
    if action == "duplicate" and path and isinstance(entry, dict) and len(path) == 1:
        pairs = tuple(entry.items())
        return Obj((*pairs, (path[0], draw(odd_values))))
    return _replace(entry, path, draw(odd_values))


@st.composite
def session_texts(draw: st.DrawFn) -> str:
    """A session file's text: a valid chain, some entries mutated, some lines damaged."""
    entries: list[Any] = list(draw(valid_entries()))
    for _ in range(draw(st.integers(0, 4))):
        index = draw(st.integers(0, len(entries) - 1))
        if index == 0 and draw(st.integers(0, 3)):  # the header less often: it stops everything after it
            continue
        entries[index] = draw(mutated_entry(entries[index]))
    lines = [dump(entry) for entry in entries]
    for _ in range(draw(st.integers(0, 2))):
        damage = draw(
            st.sampled_from(["garbage", "blank", "cr", "unknown", "huge", "array", "scalar", "long-number", "dup-line"])
        )
        at = draw(st.integers(1, len(lines)))
        if damage == "garbage":
            lines.insert(at, draw(st.text(max_size=40)).replace("\n", " "))
        elif damage == "blank":
            lines.insert(at, draw(st.sampled_from(["", "   ", "\t"])))
        elif damage == "cr":
            lines[at - 1] += "\r"
        elif damage == "unknown":
            lines.insert(at, dump({"type": "from-the-future", "id": "zz", "parentId": None, "x": [1, 2]}))
        elif damage == "huge":
            lines.insert(at, dump({**_entry("message:user", 999, "e1", ["e1"]), "pad": "h" * 300_000}))
        elif damage == "array":
            lines.insert(at, "[1,2,3]")
        elif damage == "scalar":
            lines.insert(at, draw(st.sampled_from(["1e999", "null", '"text"', "true", "-0"])))
        elif damage == "long-number":
            lines.insert(at, '{"type":"label","id":"n1","parentId":null,"timestamp":' + "9" * 5000 + "}")
        else:
            lines.insert(at, lines[at - 1])  # the same id twice
    text = "\n".join(lines)
    ending = draw(st.sampled_from(["\n", "\n", "", "truncated", "\r\n"]))
    if ending == "truncated":
        cut = draw(st.integers(1, max(1, len(lines[-1]) - 1)))
        text = text[: len(text) - len(lines[-1]) + cut]
    else:
        text += ending
    if draw(st.integers(0, 19)) == 0:
        text = "\ufeff" + text
    return text


# --- YAML frontmatter, SKILL.md, context files ---------------------------------------------------

YAML_PIECES = [
    "name: my-skill",
    "description: Does a thing.",
    "description: >\n  folded\n  text",
    "description: |\n  literal\n  text",
    "name: My_Skill",
    "name: 123",
    "name: [a, b]",
    "name: {a: 1}",
    "description: ''",
    "description: null",
    "description: ~",
    "license: MIT",
    "allowed-tools: Read Write",
    "disable-model-invocation: true",
    "disable-model-invocation: yes",
    "metadata: {a: 1, b: [1, 2]}",
    "a: &anchor [1, 2]",
    "b: *anchor",
    "c: *missing",
    "d: !!binary aGVsbG8=",
    "e: !custom tag",
    "f: 1e999",
    "g: -0",
    "h: 9007199254740993",
    "i: 0x1F",
    "j: 2025-01-01",
    "k: .inf",
    "l: .nan",
    '"quoted key": "\\ud800"',
    "name: x\nname: y",
    "? complex\n: key",
    "<<: {merged: 1}",
    "[unclosed",
    "{unclosed: 1",
    "key: 'unterminated",
    "\tname: tab",
    "- a list",
    "just a scalar",
    "%YAML 1.2",
    "---",
    "...",
    "name: " + "n" * 100,
    "description: " + "d" * 1100,
    "x: [" * 50 + "]" * 50,
    "y: [" * 300,
    "z: " + "&a [*a, " * 20,
]


@st.composite
def yaml_texts(draw: st.DrawFn) -> str:
    pieces = draw(st.lists(st.sampled_from(YAML_PIECES), max_size=8))
    if draw(st.booleans()):
        pieces.append(draw(st.text(max_size=60)))
    sep = draw(st.sampled_from(["\n", "\r\n", "\r", "\n\n"]))
    return sep.join(pieces)


BODY_PIECES = [
    "# Title",
    "Use [the guide](references/guide.md).",
    "See [missing](does/not/exist.md) and [abs](/etc/passwd) and [up](../../x.md).",
    "![img](data:image/png;base64,AAAA)",
    "```\ncode\n```",
    "```unclosed",
    "<available_skills>",
    "</project_instructions>",
    "\u202eevil\u202c",
    "zero\u200bwidth",
    "\U000e0041\U000e0042",
    # issue 18's disguises: tags and keys the rules read through, invisible characters they report
    "&lt;/project_context&gt; &#60;system&#x3e; ＜/skill＞ ﹤tools﹥ </ rules >",
    "</project\u00ad_context\n> and <\n/system",
    "😀\ufe00\ufe01\U000e0100\U000e01ef ❤️ 1️⃣ 🏴\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f",
    "\u3164\u115f\u1160\u180e\u2028\u2029\ufff9\u034f\u17b4",
    "ANTHROPIC_API_KEY=sk-ant-api03-Q9xY2mL7vK4pR8tN1wB6zC3dF5gH0jS-aLqWeRtYuI_o",
    "Authorization: Basic ZGVwbG95OnNrLWFudC1hcGkwMy1ROXhZMm1MN3ZLNHBSOHROMXdCNnpDM2RGNWdIMGpT",
    "https://u:p4ss@h.example.com/x?key=AIzaSyD3xK9mP2qR7vL4tN8wB1cF6hJ0sZ5yUaE&k=%73%6b",
    "qpdf --password=mypassword --decrypt a.pdf b.pdf; export TOKEN=${TOKEN}",
    "---",
    "----",
    "[ref]: <> ",
    "\ud800",
    "x" * 5000,
]


@st.composite
def markdown_bodies(draw: st.DrawFn) -> str:
    pieces = draw(st.lists(st.one_of(st.sampled_from(BODY_PIECES), st.text(max_size=40)), max_size=8))
    return "\n".join(pieces)


@st.composite
def skill_texts(draw: st.DrawFn) -> str:
    """A whole SKILL.md: a fence (or a broken one), YAML, a closing fence (or not), a body."""
    opening = draw(st.sampled_from(["---\n", "---\n", "---\r\n", "--- \n", "---name: x\n", "", "\ufeff---\n"]))
    closing = draw(st.sampled_from(["\n---\n", "\n---\n", "\n---", "\n----\n", "\n---x\n", "", "\n...\n"]))
    return opening + draw(yaml_texts()) + closing + draw(markdown_bodies())


@st.composite
def context_texts(draw: st.DrawFn) -> str:
    """An AGENTS.md / CLAUDE.md: markdown, sometimes with a frontmatter of its own."""
    body = draw(markdown_bodies())
    if draw(st.booleans()):
        body = "---\n" + draw(yaml_texts()) + "\n---\n" + body
    return body


# --- settings JSON -------------------------------------------------------------------------------

PI_SETTING_KEYS = [
    "compaction",
    "branchSummary",
    "skills",
    "enableSkillCommands",
    "defaultProvider",
    "defaultModel",
    "defaultThinkingLevel",
    "modelOverrides",
    "packages",
    "extensions",
    "prompts",
    "themes",
    "retry",
    "shellPath",
    "quietStartup",
    "theme",
]
PI_CONTEXT_KEYS = ["rules", "profile", "tokens", "summarizer", "budget", "limits", "pi", "trust", "python"]
SETTINGS_SHAPES = [
    {"compaction": {"enabled": True, "reserveTokens": 16384, "keepRecentTokens": 20000}},
    {"compaction": {"keepRecentTokens": Raw("1e999")}},
    {"modelOverrides": {"anthropic/claude": {"compaction": {"keepRecentTokens": -0.0}}}},
    {"skills": ["./skills", "~/x", "/", "", None]},
    {"branchSummary": {"reserveTokens": Raw("9007199254740993")}},
    {"summarizer": {"mode": "endpoint", "url": "http://[::1", "model": "m"}},
    {"summarizer": {"mode": "endpoint", "url": "http://127.0.0.1:99999", "model": "m"}},
    {"budget": {"windows": {"x/y": Raw("-1")}}},
    {"limits": {"skillMaxBytes": Raw("1e999")}},
    {"profile": "nonexistent"},
]


@st.composite
def settings_texts(draw: st.DrawFn, keys: list[str]) -> str:
    """A settings file: known keys with odd values, known shapes, raw damage."""
    choice = draw(st.integers(0, 9))
    if choice == 0:
        return draw(
            st.sampled_from(["", " ", "null", "[]", "1", '"x"', "{", "{,}", '{"a":1,}', "// c\n{}", "\ufeff{}"])
        )
    if choice == 1:
        return dump(draw(st.sampled_from(SETTINGS_SHAPES)))
    pairs: list[tuple[str, Any]] = []
    for _ in range(draw(st.integers(0, 6))):
        key = draw(st.one_of(st.sampled_from(keys), st.text(max_size=10)))
        pairs.append((key, draw(odd_values)))
    text = dump(Obj(tuple(pairs)))
    if draw(st.integers(0, 9)) == 0:
        text = text[: draw(st.integers(0, len(text)))]
    return text
