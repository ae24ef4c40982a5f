"""Generated frontmatter for the differential test of the YAML fast path against the full parser.

Most documents are of the simple shape the fast path reads; many are near misses (a comment, a
tab, a quote with an escape, a ``:`` in a value, a duplicate key, an odd indentation, an unusual
character), so both the fast path and its fallback are exercised, at every position.
"""

from __future__ import annotations

import random

KEYS = [
    "name",
    "description",
    "license",
    "metadata",
    "owner",
    "version",
    "a",
    "_k",
    "key-x",
    "k1",
    "allowed-tools",
    "true",
    "null",
    "Null",
    "yes",
    "on",
    "1",
    "0x1",
    "a b",
    "é",
    "'q'",
    '"d"',
    "~",
    "x.y",
    "<<",
    "-k",
    "?k",
]
VALUES = [
    "demo",
    "Does things.",
    "Skill number 7, used when the task mentions topic 7.",
    "1",
    "-1",
    "+1",
    "012",
    "0o17",
    "0x1F",
    "1e3",
    "1.0",
    "1.5",
    ".inf",
    "-.inf",
    ".nan",
    "yes",
    "no",
    "on",
    "true",
    "True",
    "FALSE",
    "null",
    "~",
    "Null",
    "NULL",
    "2024-01-01",
    "1_000",
    "C#",
    "a #c",
    "a: b",
    "a:b",
    "http://x.y/z",
    "it's",
    'say "hi"',
    "'q'",
    "''",
    '""',
    '"d"',
    "'it''s'",
    '"e\\n"',
    '"a\\"b"',
    "'a",
    '"b',
    "[1, 2]",
    "{a: 1}",
    "|",
    ">",
    "|-",
    "&a x",
    "*a",
    "!tag x",
    "!!str 1",
    "x ",
    "x  ",
    "é ü",
    "日本語",
    "a\u00a0b",
    "a\u2028b",
    "a\u3000b",
    "\ufeffx",
    "- x",
    "-x",
    "%x",
    "@x",
    "`x",
    "a\tb",
    "a  b",
    "a,b",
    "a]b",
    "a}b",
    "x:",
    "... x",
    "--- x",
    "?",
    ":",
    "-",
    "a'b",
    'a"b',
    "#x",
    "a\x7fb",
    "a\x01b",
    "MIT",
    "0",
    "-0",
    "1e999",
    "9007199254740993",
]
SEPARATORS = [": ", ": ", ": ", ":  ", ":", ":\t", " : ", ": \t"]
INDENTS = [2, 2, 2, 4, 1, 3]
SAFE_KEYS = KEYS[:10]
SAFE_VALUES = [v for v in VALUES[:28] if not v.startswith(("-", "+"))] + ["C#", "http://x.y/z", "it's", "'q'", '"d"']


def _pairs(rng: random.Random, indent: int, depth: int, lines: list[str], tricky: float) -> None:
    keys = set()
    for _ in range(rng.randint(1, 5)):
        odd = rng.random() < tricky
        key = rng.choice(KEYS if odd else SAFE_KEYS)
        if not odd and key in keys:
            continue
        keys.add(key)
        roll = rng.random()
        if roll < 0.2 and depth < 3:
            lines.append(" " * indent + key + ":" + (rng.choice(["", " "]) if odd else ""))
            _pairs(rng, indent + rng.choice(INDENTS), depth + 1, lines, tricky)
        elif roll < 0.25:
            lines.append(" " * indent + key + ":")
        else:
            separator = rng.choice(SEPARATORS) if rng.random() < tricky else ": "
            lines.append(" " * indent + key + separator + rng.choice(VALUES if odd else SAFE_VALUES))
        noise = rng.random() if rng.random() < tricky else 1.0
        if noise < 0.03:
            lines.append("")
        elif noise < 0.05:
            lines.append(" " * indent + "# a comment")
        elif noise < 0.06:
            lines.append(" " * (indent + 1) + rng.choice(VALUES))  # a continuation or an error
        elif noise < 0.07:
            lines.append(" " * max(indent - 1, 0) + rng.choice(KEYS) + ": x")  # a bad indentation


def frontmatter(rng: random.Random) -> str:
    """One generated frontmatter text (the YAML between the ``---`` lines)."""
    lines: list[str] = []
    _pairs(rng, 0, 0, lines, tricky=rng.choice([0.0, 0.0, 0.05, 0.2, 0.6]))
    text = "\n".join(lines)
    ending = rng.random() if rng.random() < 0.3 else 0.0
    if ending < 0.7:
        text += "\n"
    elif ending < 0.75:
        text += "\n\n"
    elif ending < 0.8:
        text = text.replace("\n", "\r\n") + "\r\n"
    elif ending < 0.82:
        text = "  " + text
    return text
