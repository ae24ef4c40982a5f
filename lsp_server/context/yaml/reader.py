"""ruamel.yaml as our tokenizer: a YAML 1.2 parser whose events carry start and end marks.

We never use ruamel's constructors (their YAML 1.1 habits differ from ``yaml``'s core schema);
only its event stream, from which :mod:`lsp_server.context.yaml.compose` builds nodes. ruamel's
reader also refuses characters that ``yaml`` accepts inside scalars (C0/C1 controls, lone
surrogates), and reads NEL, U+2028 and U+2029 as line breaks (YAML 1.1) where ``yaml`` reads
ordinary characters; they are all swapped for private-use stand-ins of the same length before
parsing, so every offset stays the same, and swapped back in scalar values.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any


def ruamel_parser() -> Any:
    """A fresh pure-Python ruamel.yaml loader set to YAML 1.2 (``.parse`` gives events, ``.scan`` tokens)."""
    from ruamel.yaml import YAML

    loader = YAML(typ="safe", pure=True)
    loader.version = (1, 2)
    loader.Scanner = _scanner_class()
    return loader


@cache
def _scanner_class() -> Any:
    """ruamel's scanner without its own block-scalar rule ("more indented follow up line than first").

    Before a block scalar's first content line ruamel refuses a blank line with more spaces than the
    first blank line, which YAML 1.2 allows (``d: >`` / `` `` / ``  x`` is ``"\nx\n"`` to Pi's
    ``yaml``, to libyaml and to PyYAML). The leading blank lines are read here as YAML reads them:
    their breaks kept, the widest run of spaces taken as the indentation found so far.
    """
    from ruamel.yaml.scanner import Scanner

    class YamlScanner(Scanner):
        def scan_block_scalar_indentation(self) -> Any:
            peek, forward = self.reader.peek, self.reader.forward
            breaks: list[Any] = []
            widest = 0
            end_mark = self.reader.get_mark()
            while peek() in " \r\n\x85\u2028\u2029":
                if peek() == " ":
                    forward()
                    widest = max(widest, self.reader.column)
                else:
                    breaks.append(self.scan_line_break())
                    end_mark = self.reader.get_mark()
            return breaks, widest, end_mark

    return YamlScanner


# Masked: what ruamel's reader refuses (C0/C1 controls, lone surrogates), and NEL, LINE SEPARATOR and
# PARAGRAPH SEPARATOR, which ruamel reads as line breaks (YAML 1.1) where ``yaml`` (YAML 1.2) reads an
# ordinary character: ``x: a\x85b`` is the string "a\x85b" to Pi, "a b" to ruamel.
_UNPRINTABLE_RE = re.compile("[^\x09\x0a\x0d\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def mask_unprintable(text: str) -> tuple[str, dict[str, str]]:
    """Swap characters ruamel's reader refuses (C0/C1 controls, lone surrogates) or reads as line
    breaks (NEL, U+2028, U+2029) for unused private-use stand-ins, one code point each, so positions
    stay the same; ``yaml`` takes them all as ordinary characters.

    Returns the masked text and the table from stand-in back to the original character."""
    found = set(_UNPRINTABLE_RE.findall(text))
    if not found:
        return text, {}
    present = set(text)
    table: dict[str, str] = {}
    candidate = 0xE000
    for char in sorted(found):
        while chr(candidate) in present:
            candidate += 1
        table[char] = chr(candidate)
        candidate += 1
    masked = "".join(table.get(ch, ch) for ch in text)
    return masked, {v: k for k, v in table.items()}


def unmask(value: str, restore: dict[str, str]) -> str:
    if not restore:
        return value
    return "".join(restore.get(ch, ch) for ch in value)
