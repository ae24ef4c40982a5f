"""The forms of a key that redaction looks for, and which values are keys at all.

A model server that echoes a key does not always echo it whole: a red team saw it trimmed at both
ends, cut to 30 characters and ``...``, base64-encoded (alone, or inside a ``Basic user:key``
header value), percent-encoded, upper-cased and spaced every ten characters. So a key counts as
shown when **any 8 characters in a row** of one of its forms are shown, the forms being

* the key itself;
* its base64 and base64url encodings at each of the three alignments it can have inside a longer
  encoded string (``base64("user:" + key)`` starts the key at byte 5, so at alignment 2): for
  each, the characters that depend on the key's bytes alone;

all compared folded (:mod:`lsp_server.redaction.folding`), which covers upper- and lower-case,
whitespace inside and percent-encoding of each of them.

A provider's fixed prefix (``sk-ant-api03-``, ``sk-proj-``, ``ghp_``: :data:`PUBLIC_PREFIXES`) is the
same in every key of its kind and printed in every provider's documentation, so it is no part of what
identifies a key: a text that names the prefix (``keys look like sk-ant-api03-…``) shows nothing. A run
counts when 8 of its characters lie past the prefix (:func:`public_prefix_length`); the run is then
replaced whole, the prefix included.

Not every value a credential variable holds is a key. A value shorter than :data:`MIN_PIECE`, a
path (``GOOGLE_APPLICATION_CREDENTIALS=/home/me/creds.json``: its pieces are every path of the
user's home), a value with neither a digit nor, at 24 characters or more, both cases of letters
(``application/json`` as a header value, a passphrase of words) and a value whose 5-character
pieces repeat (fewer than half of them different: ``aaaaaaaa1``) are replaced only where they
appear whole (:func:`is_key_like`). Values shorter than :data:`MIN_VALUE` are not replaced at all:
they are not keys, and replacing them would mangle ordinary text.
"""

from __future__ import annotations

import base64
import re
from typing import Final

from lsp_server.redaction.folding import fold

MIN_PIECE: Final = 8  # the fewest characters in a row of a key's form that count as showing it
MIN_VALUE: Final = 4  # shorter values are never replaced
_PATH: Final = re.compile(r"^(?:[/~]|\.{1,2}[/\\]|[A-Za-z]:[/\\])")
_DIGIT: Final = re.compile(r"\d")
MIXED_CASE_LENGTH: Final = 24
VARIETY_PIECE: Final = 5  # the piece length whose variety is asked (the search's own, matching.GRAM)


# The fixed starts of common providers' keys, longest first where one begins another (docs/llm.md, "Redaction").
PUBLIC_PREFIXES: Final = (
    "sk-ant-admin01-",
    "sk-ant-api03-",
    "sk-ant-oat01-",
    "sk-svcacct-",
    "sk-or-v1-",
    "sk-admin-",
    "sk-proj-",
    "github_pat_",
    "sk_live_",
    "sk_test_",
    "rk_live_",
    "rk_test_",
    "glpat-",
    "pypi-",
    "xoxb-",
    "xoxp-",
    "xoxa-",
    "xapp-",
    "pplx-",
    "npm_",
    "ghp_",
    "gho_",
    "ghu_",
    "ghs_",
    "ghr_",
    "gsk_",
    "xai-",
    "hf_",
    "sk-",
)


def public_prefix_length(value: str) -> int:
    """How many leading characters of ``value`` are a provider's fixed prefix (0 when none is)."""
    folded = value.lower()
    for prefix in PUBLIC_PREFIXES:
        if folded.startswith(prefix):
            return len(prefix)
    return 0


def is_key_like(value: str) -> bool:
    """Whether a piece of ``value`` identifies it (a generated key), so that pieces are redacted too."""
    if len(value) < MIN_PIECE or _PATH.match(value):
        return False
    pieces = [value[i : i + VARIETY_PIECE] for i in range(len(value) - VARIETY_PIECE + 1)]
    if 2 * len(set(pieces)) < len(pieces):
        return False
    if _DIGIT.search(value):
        return True
    return len(value) >= MIXED_CASE_LENGTH and value.lower() != value and value.upper() != value


def key_forms(value: str) -> tuple[str, ...]:
    """The folded forms of ``value`` whose 8-character pieces count as the key (longest first, each once)."""
    data = value.encode("utf-8")
    forms = [fold(value), *(fold(form) for form in base64_forms(data))]
    unique = dict.fromkeys(form for form in forms if len(form) >= MIN_PIECE)
    return tuple(sorted(unique, key=len, reverse=True))


def base64_forms(data: bytes) -> list[str]:
    """The base64 and base64url characters that ``data`` alone decides, at each of the three alignments.

    Inside ``base64(prefix + data + suffix)`` with ``len(prefix) % 3 == a``, the data's bits start
    ``8 * a`` bits into a 24-bit group; a character (6 bits) is the data's own when all its bits
    are. The prefix and suffix decide the others, so they are left out.
    """
    forms: list[str] = []
    for align in range(3):
        encoded = base64.b64encode(bytes(align) + data).decode("ascii")
        first = -(-8 * align // 6)  # the first character whose bits all come from the data
        last = (8 * (align + len(data))) // 6  # one past the last such character
        own = encoded[first:last]
        forms.append(own)
        url = own.replace("+", "-").replace("/", "_")
        if url != own:
            forms.append(url)
    return forms
