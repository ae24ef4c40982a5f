"""Properties of the redactor over generated keys in generated disguises (``tests/fuzz/key_strategies.py``).

* a planted disguise of a key never shows 8 characters of it, redacted whole or streamed in
  pieces of any sizes;
* a text in which no form of the key shows 8 characters (decided here independently: the key and
  what the key alone decides of its base64 and base64url at three alignments) comes back unchanged;
* the streamed pieces, joined, are the redacted text (but for an end held back, shorter than 8).

A few dozen cases each by default; ``tests/fuzz/test_fuzz_redaction.py`` runs them by the
thousand in the fuzz tier, and through the real CLI.
"""

from __future__ import annotations

import itertools

from hypothesis import assume, given
from hypothesis import strategies as st

from lsp_server.redaction import Redactor, StreamRedactor
from lsp_server.redaction.forms import is_key_like
from tests.fuzz._tier import cases
from tests.fuzz.key_strategies import Planted, fillers, keys, planted_keys
from tests.support.disguises import b64_core, shown_pieces, undone


def key_cores(key: str) -> list[str]:
    """The key and what it alone decides of its base64 and base64url at each alignment (the flip method)."""
    data = key.encode()
    cores = [key]
    for before in (b"", b"\x00", b"\x00\x00"):
        for url in (False, True):
            cores.append(b64_core(before, data, b"\x00", url=url)[1])
    return cores


def stream(redactor: Redactor, text: str, cuts: list[int]) -> tuple[str, str]:
    """``text`` fed in pieces cut at ``cuts``: what was passed on, joined, and what is still held."""
    streamed = StreamRedactor(redactor)
    bounds = [0, *sorted({min(cut, len(text)) for cut in cuts}), len(text)]
    out = "".join(streamed.feed(text[a:b]) for a, b in itertools.pairwise(bounds) if b > a)
    return out, streamed.held


@given(planted=planted_keys())
@cases(default=150, fuzz=150)
def test_a_planted_disguise_never_shows_eight_characters_of_the_key(planted: Planted) -> None:
    assume(is_key_like(planted.key))  # other values are replaced only whole (forms.is_key_like)
    out = Redactor([planted.key]).text(planted.text)
    assert shown_pieces(out, planted.core, key=planted.key) == [], planted.describe()


@given(planted=planted_keys(), cuts=st.lists(st.integers(0, 400), max_size=30))
@cases(default=100, fuzz=100)
def test_a_planted_disguise_streamed_in_any_pieces_never_shows_eight_characters(
    planted: Planted, cuts: list[int]
) -> None:
    assume(is_key_like(planted.key))
    redactor = Redactor([planted.key])
    out, held = stream(redactor, planted.text, cuts)
    assert shown_pieces(out, planted.core, key=planted.key) == [], planted.describe()
    # Only an open end is held back: shorter than 8, or a run of one of the key's forms reaching the end.
    assert len(undone(held)) < 8 or any(shown_pieces(held, core) for core in key_cores(planted.key)), held
    assert (out + redactor.text(held)).replace("*", "") == redactor.text(planted.text).replace("*", "")


@given(key=keys(), text=fillers())
@cases(default=150, fuzz=150)
def test_a_text_without_eight_characters_of_any_form_of_the_key_is_unchanged(key: str, text: str) -> None:
    assume(is_key_like(key))
    if any(shown_pieces(text, core) for core in key_cores(key)):
        return  # chance put a piece of the key in the filler: not this property's case
    assert Redactor([key]).text(text) == text
