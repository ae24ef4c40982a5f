"""Hypothesis strategies for keys in disguise: a piece of a key, encoded and disguised, in a text.

A case is a key (a provider's prefix or none, a random body with a digit), a piece of it (8
characters or more, often the whole key), optionally base64-encoded (plain, url-safe, or inside a
``Basic user:key`` value, with up to five bytes before it and three after, so every alignment
comes up), then any of: a change of case (upper, lower, swapped, per character), whitespace every
*n* characters (spaces, tabs, newlines, CRLF), percent-encoding (every byte, as a URL does, or a
random subset of characters), planted between two fillers of printable text. ``core`` is what the
key alone decides (``tests/support/disguises.py``); a redacted text must show none of its
8-character pieces once the disguise is undone.
"""

from __future__ import annotations

import string
import urllib.parse
from dataclasses import dataclass

from hypothesis import strategies as st

from tests.support.disguises import b64_core

KEY_ALPHABET = string.ascii_letters + string.digits + "-_"
PREFIXES = ("", "", "sk-ant-api03-", "sk-proj-", "AIza", "ghp_", "xoxb-", "github_pat_")
FILLER = string.ascii_letters + string.digits + string.punctuation + " \n\t"
SEPARATORS = (" ", "\n", "\t", "  ", "\r\n")


@dataclass(frozen=True)
class Planted:
    key: str
    text: str  # the filler, the disguised piece, the filler
    core: str  # the part of the disguised piece that only the key decides
    steps: tuple[str, ...]  # how it was disguised, for the report

    def describe(self) -> str:
        return f"{' + '.join(self.steps) or 'as is'} of {len(self.key)}-character key"


@st.composite
def keys(draw: st.DrawFn) -> str:
    """A key: maybe a provider's prefix, then 12 to 110 key characters with at least one digit."""
    prefix = draw(st.sampled_from(PREFIXES))
    body = draw(st.text(alphabet=KEY_ALPHABET, min_size=12, max_size=110))
    at = draw(st.integers(0, len(body)))
    return prefix + body[:at] + draw(st.sampled_from(string.digits)) + body[at:]


@st.composite
def planted_keys(draw: st.DrawFn) -> Planted:
    key = draw(keys())
    start = draw(st.integers(0, len(key) - 8))
    end = draw(st.one_of(st.just(len(key)), st.integers(start + 8, len(key))))
    text = core = key[start:end]
    steps: list[str] = [] if (start, end) == (0, len(key)) else [f"characters {start}-{end}"]
    encoding = draw(st.sampled_from([None, None, "base64", "base64url", "Basic"]))
    if encoding is not None:
        before = b"user:" if encoding == "Basic" else draw(st.binary(max_size=5))
        after = b"" if encoding == "Basic" else draw(st.binary(max_size=3))
        text, core = b64_core(before, text.encode(), after, url=encoding == "base64url")
        steps.append(f"{encoding} after {len(before)} byte(s)")
    case = draw(st.sampled_from([None, "upper", "lower", "swapped", "mixed"]))
    if case == "mixed":
        flips = draw(st.lists(st.booleans(), min_size=len(text), max_size=len(text)))
        text = "".join(c.swapcase() if flip else c for c, flip in zip(text, flips, strict=True))
    elif case is not None:
        text = {"upper": text.upper(), "lower": text.lower(), "swapped": text.swapcase()}[case]
    if case is not None:
        steps.append(f"{case} case")
    spacing = draw(st.one_of(st.none(), st.tuples(st.integers(1, 16), st.sampled_from(SEPARATORS))))
    if spacing is not None:
        every, separator = spacing
        text = separator.join(text[i : i + every] for i in range(0, len(text), every))
        steps.append(f"{separator!r} every {every}")
    percent = draw(st.sampled_from([None, "every byte", "as in a URL", "some characters"]))
    if percent == "every byte":
        text = "".join(f"%{byte:02X}" for byte in text.encode())
    elif percent == "as in a URL":
        text = urllib.parse.quote(text, safe="")
    elif percent == "some characters":
        picks = draw(st.lists(st.booleans(), min_size=len(text), max_size=len(text)))
        text = "".join(f"%{ord(c):02x}" if pick and c.isascii() else c for c, pick in zip(text, picks, strict=True))
    if percent is not None:
        steps.append(f"percent-encoded ({percent})")
    left = draw(st.text(alphabet=FILLER, max_size=40))
    right = draw(st.text(alphabet=FILLER, max_size=40))
    return Planted(key, left + text + right, core, tuple(steps))


def fillers() -> st.SearchStrategy[str]:
    """Printable text with whitespace and escapes, where a key's pieces turn up only by chance."""
    return st.text(alphabet=FILLER, max_size=300)
