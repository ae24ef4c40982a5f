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


# --- the shapes of real skills ------------------------------------------------------------------

WORDS = [
    "review",
    "the",
    "diff",
    "and",
    "point",
    "out",
    "risky",
    "changes",
    "before",
    "merging",
    "generate",
    "release",
    "notes",
    "from",
    "commits",
]
UNICODE = ["naïve", "café", "日本語", "emoji 🚀", "→", "«q»", "Ωmega", "a\u0301", "\u00a0nbsp", "עברית", "😀😀"]
ESCAPES = [
    '\\"',
    "\\\\",
    "\\/",
    "\\n",
    "\\t",
    "\\r",
    "\\0",
    "\\a",
    "\\b",
    "\\e",
    "\\f",
    "\\v",
    "\\ ",
    "\\N",
    "\\_",
    "\\L",
    "\\P",
    "\\x41",
    "\\u00e9",
    "\\U0001F600",
    "\\ud83d\\ude00",
]
BAD_ESCAPES = ["\\'", "\\q", "\\x4", "\\u12", "\\ud800", "\\U00110000", "\\%"]
SCALARS = [
    "true",
    "False",
    "null",
    "~",
    "",
    "1",
    "-2",
    "0o17",
    "0x1F",
    "1.50",
    "1e3",
    ".inf",
    ".NaN",
    "yes",
    "on",
    "2024-01-01",
    "1_000",
    "012",
    "+1",
    "-.5",
    "0.",
    "C#",
    "x:y",
    "http://a.b/c?d=e#f",
    "-x",
    "?x",
    ":x",
]


def _words(rng: random.Random, low: int, high: int) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(low, high))]
    if rng.random() < 0.3:
        words.insert(rng.randrange(len(words) + 1), rng.choice(UNICODE))
    return " ".join(words)


def _plain(rng: random.Random) -> str:
    return rng.choice(SCALARS) if rng.random() < 0.3 else _words(rng, 1, 12)


def _double(rng: random.Random, indent: int) -> str:
    parts = [_words(rng, 0, 6).replace('"', "")]
    for _ in range(rng.randint(0, 3)):
        parts.append(rng.choice(ESCAPES))
        parts.append(_words(rng, 0, 4))
    text = " ".join(parts)
    if rng.random() < 0.15:  # multi-line, with an escaped line break now and then
        pad = " " * (indent + rng.choice([1, 2, 4]))
        text += rng.choice(["\n", "\\\n", "\n\n"]) + pad + _words(rng, 1, 5)
    return '"' + text + '"'


def _single(rng: random.Random, indent: int) -> str:
    text = _words(rng, 0, 8).replace("'", "''")
    if rng.random() < 0.5:
        text += " it''s"
    if rng.random() < 0.15:
        text += rng.choice(["\n", "\n\n"]) + " " * (indent + rng.choice([1, 2])) + _words(rng, 1, 4)
    return "'" + text + "'"


def _block(rng: random.Random, indent: int) -> str:
    header = rng.choice("|>") + rng.choice(["", "", "-", "+"])
    step = rng.choice([2, 2, 2, 4, 1])
    if rng.random() < 0.1:
        header += str(step)
    if rng.random() < 0.1:
        header += " # a comment"
    pad = " " * (indent + step)
    lines = []
    for _ in range(rng.randint(1, 5)):
        roll = rng.random()
        if roll < 0.15:
            lines.append("")
        elif roll < 0.25:
            lines.append(pad + "  " + _words(rng, 1, 6))  # more indented
        elif roll < 0.3:
            lines.append(pad + "- " + _words(rng, 1, 3))
        elif roll < 0.33:
            lines.append(pad + "# not a comment")
        else:
            lines.append(pad + _words(rng, 2, 10))
    if lines and not lines[0]:
        lines[0] = pad + "first"
    text = header + "\n" + "\n".join(lines)
    if rng.random() < 0.2:
        text += "\n" * rng.randint(1, 2)
    return text.rstrip("\n") if rng.random() < 0.1 else text


def _flow(rng: random.Random, depth: int) -> str:
    if depth > 2 or rng.random() < 0.5:
        roll = rng.random()
        if roll < 0.6:
            return rng.choice(WORDS + SCALARS[:14])
        if roll < 0.8:
            return '"' + _words(rng, 1, 3) + rng.choice(["", "\\n", '\\"']) + '"'
        return "'" + _words(rng, 1, 2) + "'"
    if rng.random() < 0.6:
        items = [_flow(rng, depth + 1) for _ in range(rng.randint(0, 4))]
        return "[" + ", ".join(items) + rng.choice(["", "", ","]) + "]"
    pairs = [f"{rng.choice(WORDS)}{i}: {_flow(rng, depth + 1)}" for i in range(rng.randint(0, 3))]
    return "{" + ", ".join(pairs) + "}"


def _value(rng: random.Random, indent: int, depth: int, anchors: list[str]) -> tuple[str, list[str]]:
    """(the text after ``key:`` on its line, the lines after it)."""
    roll = rng.random()
    props = ""
    if rng.random() < 0.05:
        name = f"a{len(anchors)}" + rng.choice(["", "", "", "-x_y", ".b", ":c", "/d", "http://e.f/g?h#i"])
        anchors.append(name)
        props = f" &{name}"
    if rng.random() < 0.04:
        tag = " " + rng.choice(["!!str", "!!int", "!", "!custom", "!!binary", "!!timestamp", "!!float", "!!null"])
        props = props + tag if rng.random() < 0.6 else tag + props  # either order
    if roll < 0.05 and anchors:
        return " *" + rng.choice(anchors), []
    if roll < 0.3:
        return props + " " + _plain(rng), []
    if roll < 0.42:
        return props + " " + _double(rng, indent), []
    if roll < 0.5:
        return props + " " + _single(rng, indent), []
    if roll < 0.62:
        return props + " " + _block(rng, indent), []
    if roll < 0.72:
        return props + " " + _flow(rng, 0), []
    if roll < 0.8 and depth < 4:
        step = rng.choice([2, 2, 4, 0])
        items = []
        for _ in range(rng.randint(1, 4)):
            if rng.random() < 0.2:  # an item that is a mapping: "- input: a" then "  output: b"
                lines_of_item: list[str] = []
                _mapping(rng, indent + step + 2, depth + 1, lines_of_item, anchors)
                first_line = lines_of_item[0]
                items.append(" " * (indent + step) + "- " + first_line[indent + step + 2 :])
                items.extend(lines_of_item[1:])
                continue
            first, rest = _value(rng, indent + step + 2, depth + 1, anchors)
            if first.startswith(" ") and not rest:
                items.append(" " * (indent + step) + "-" + first)
            else:
                items.append(" " * (indent + step) + "- " + _plain(rng))
        return props, items
    if roll < 0.95 and depth < 4:
        lines: list[str] = []
        _mapping(rng, indent + rng.choice([2, 2, 4, 1]), depth + 1, lines, anchors)
        return props, lines
    return props, []  # an empty value


def _mapping(rng: random.Random, indent: int, depth: int, lines: list[str], anchors: list[str]) -> None:
    used: set[str] = set()
    for _ in range(rng.randint(1, 6)):
        key = rng.choice(
            [
                "name",
                "description",
                "license",
                "allowed-tools",
                "metadata",
                "version",
                "tags",
                "author",
                "compatibility",
                "disable-model-invocation",
                rng.choice(WORDS),
            ]
        )
        if key in used:
            continue
        used.add(key)
        if rng.random() < 0.08:
            lines.append(" " * indent + "# " + _words(rng, 1, 5))
        if rng.random() < 0.03:
            lines.append("")
        shown = key
        if rng.random() < 0.05:
            shown = rng.choice([f'"{key}"', f"'{key}'", f"? {key}\n" + " " * indent])
        first, rest = _value(rng, indent, depth, anchors)
        line = " " * indent + shown + ":" + first
        if rng.random() < 0.06 and not rest and "\n" not in first:
            line += "  # trailing"
        lines.append(line)
        lines.extend(rest)


# Changes that make a document a near miss: each is a shape the fast reader must leave to the
# full parser, or read exactly as it does.
MUTATIONS = [
    lambda t, r: t.replace(" ", "\t", 1),
    lambda t, r: t.replace(": ", ":\t", 1),
    lambda t, r: t.replace("\n", "\r\n"),
    lambda t, r: t.replace(" ", r.choice(["\u2028", "\x85", "\ufeff", "\x01", "\x7f", "\u2029", "\ud800"]), 1),
    lambda t, r: "%YAML 1.2\n" + t,
    lambda t, r: t + r.choice(["---\nb: 1\n", "...\n", "... # end\n", "--- \n"]),
    lambda t, r: r.choice(["--- ", "---\n"]) + t,
    lambda t, r: t.replace('"', "", 1),
    lambda t, r: t.replace("'", "", 1),
    lambda t, r: t.replace("]", "", 1),
    lambda t, r: t.replace("}", "", 1),
    lambda t, r: t.replace("\n  ", "\n ", 1),
    lambda t, r: t.replace("\n", "\n ", 1),
    lambda t, r: t + t.split("\n", 1)[0] + "\n",  # a duplicate key
    lambda t, r: t.replace('"', '"' + r.choice(BAD_ESCAPES), 1),
    lambda t, r: t.replace(": ", ": " + r.choice(["@", "`", "%", "*", "&", "!", "|", ">", "- ", "? ", ": "]), 1),
    lambda t, r: "x" * r.choice([1020, 1030]) + ": long key\n" + t,
    lambda t, r: t.replace(" #", "#", 1),
    lambda t, r: t.replace("*", "*missing", 1),
    lambda t, r: t.rstrip("\n"),
    lambda t, r: t + "\n" * r.randint(1, 3) + r.choice(["", "# end", "  "]),
    lambda t, r: "\n".join(line for line in t.split("\n") if r.random() > 0.1),
    lambda t, r: t[: r.randrange(len(t) + 1)],
]


def realistic(rng: random.Random) -> str:
    """One frontmatter of the shapes real skills have, a near miss now and then."""
    lines: list[str] = []
    anchors: list[str] = []
    if rng.random() < 0.1:
        lines.append("# " + _words(rng, 1, 6))
    _mapping(rng, 0, 0, lines, anchors)
    text = "\n".join(lines) + "\n"
    if rng.random() < 0.25:
        for _ in range(rng.randint(1, 2)):
            text = rng.choice(MUTATIONS)(text, rng)
    return text
