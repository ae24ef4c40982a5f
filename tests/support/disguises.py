"""A key in the disguises a red team saw model servers echo, and the check that none of it shows.

Issue 18 lists them: the key trimmed of its first 7 and last 5 characters, cut to 30 characters and
``...``, a 96-character piece, base64 (alone or as a ``Basic user:key`` header value), base64url,
percent-encoded (every byte, or as a URL encodes it), upper-cased, and spaced every 10 characters.
:func:`disguises` makes each of them from a key, with the part of it that comes from the key alone
(``core``: a base64 text's first and last characters also depend on what was encoded around the
key). :func:`shown_pieces` says which 8-character pieces of a core a text still shows, compared
the way a reader would undo the disguise (case, whitespace, percent-encoding), independently of
``lsp_server.redaction``.

Used by the unit and property tests (``tests/redaction/``), the fake model server's echoing
answers (``ScriptedResponse(echo_key=...)``) and the CLI, server and real-Pi tests.
"""

from __future__ import annotations

import base64
import re
import urllib.parse
from dataclasses import dataclass

from lsp_server.redaction.forms import public_prefix_length

# The shape of an Anthropic key (108 characters): long enough for every disguise the red team used.
RED_TEAM_KEY = (
    "sk-ant-api03-lhQCvpm8FOFlEsD4qmq5ShuHRWYl398ZpkpmVxKGmZR53W1FnTtqavzoXUzIwLKHr0rMTtJhsEK7GjFRYOYkmn-PRZBiAAA"
)
PIECE = 8


@dataclass(frozen=True)
class Disguise:
    name: str
    text: str  # what the server says
    core: str  # the part of ``text`` that only the key decides


def b64_core(prefix: bytes, key: bytes, suffix: bytes, *, url: bool = False) -> tuple[str, str]:
    """``base64(prefix + key + suffix)`` and its characters that the key alone decides.

    Found by encoding a second time with every bit of the prefix and suffix flipped: the characters
    that stay the same are the key's.
    """
    encode = base64.urlsafe_b64encode if url else base64.b64encode
    text = encode(prefix + key + suffix).decode()
    flipped = encode(bytes(b ^ 0xFF for b in prefix) + key + bytes(b ^ 0xFF for b in suffix)).decode()
    same = [a == b for a, b in zip(text, flipped, strict=True)]
    start = same.index(True)
    end = len(same) - same[::-1].index(True)
    return text, text[start:end]


def disguises(key: str) -> list[Disguise]:
    raw = key.encode()
    basic, basic_core = b64_core(b"user:", raw, b"")
    plain, plain_core = b64_core(b"", raw, b"")
    url, url_core = b64_core(b"\xfb", raw, b"\xff", url=True)  # '-' and '_' where base64 has '+' and '/'
    every_byte = "".join(f"%{byte:02X}" for byte in raw)
    spaced = " ".join(key[i : i + 10] for i in range(0, len(key), 10))
    return [
        Disguise("whole", key, key),
        Disguise("trimmed 7 and 5", key[7:-5], key[7:-5]),
        Disguise("30 characters and ...", key[:30] + "...", key[:30]),
        Disguise("a 96-character piece", key[6:102], key[6:102]),
        Disguise("base64", plain, plain_core),
        Disguise("Basic user:key", f"Basic {basic}", basic_core),
        Disguise("base64url", url, url_core),
        Disguise("percent-encoded, every byte", every_byte, every_byte),
        Disguise("percent-encoded as in a URL", urllib.parse.quote(key, safe=""), urllib.parse.quote(key, safe="")),
        Disguise("upper-case", key.upper(), key.upper()),
        Disguise("spaced every 10 characters", spaced, spaced),
    ]


def disguise_named(key: str, name: str) -> str:
    """The text of ``key``'s disguise called ``name`` (a :class:`Disguise`'s name)."""
    for disguise in disguises(key):
        if disguise.name == name:
            return disguise.text
    raise KeyError(f"no disguise named {name!r}; there are {[d.name for d in disguises(key)]}")


def undone(text: str) -> str:
    """``text`` as a reader undoes a disguise: percent-decoded, whitespace removed, lower-cased."""
    return re.sub(r"\s+", "", urllib.parse.unquote(text, errors="replace")).lower()


def shown_pieces(text: str, core: str, size: int = PIECE, *, key: str | None = None) -> list[str]:
    """The ``size``-character pieces of ``core`` (undone) that ``text`` (undone) still holds.

    With ``key``: less the pieces that hold fewer than ``size`` characters past the key's provider prefix
    (``sk-ant-api03-``: the same in every such key, so showing it shows nothing; docs/llm.md, "Redaction").
    """
    hidden, seen = undone(core), undone(text)
    public = undone(key[: public_prefix_length(key) + size - 1]) if key and public_prefix_length(key) else ""
    return sorted(
        {
            piece
            for piece in (hidden[i : i + size] for i in range(len(hidden) - size + 1))
            if piece in seen and piece not in public
        }
    )


def assert_nothing_shown(label: str, text: str, key: str) -> None:
    """No 8-character piece of ``key`` in any disguise is in ``text``."""
    for disguise in disguises(key):
        shown = shown_pieces(text, disguise.core, key=key)
        assert not shown, f"{label} shows {disguise.name} of the key: {shown[:3]} in ...{text[-300:]!r}"
