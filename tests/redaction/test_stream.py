"""A streamed text: a key split across pieces, in any disguise, is never passed on; the rest is, with a short lag."""

from __future__ import annotations

import urllib.parse

import pytest

from lsp_server.redaction import Redactor, StreamRedactor
from lsp_server.redaction.stream import HOLD_LIMIT
from tests.support.disguises import RED_TEAM_KEY, Disguise, disguises, shown_pieces

REDACTOR = Redactor([RED_TEAM_KEY])


def fed(text: str, size: int, redactor: Redactor = REDACTOR) -> tuple[list[str], str]:
    stream = StreamRedactor(redactor)
    out = [stream.feed(text[i : i + size]) for i in range(0, len(text), size)]
    return out, stream.held


@pytest.mark.parametrize("disguise", disguises(RED_TEAM_KEY), ids=lambda d: d.name)
@pytest.mark.parametrize("size", [1, 2, 3, 7, 8, 13, 64])
def test_a_disguised_key_streamed_in_pieces_is_never_passed_on(disguise: Disguise, size: int) -> None:
    text = f"The server said: {disguise.text}. Retrying now."
    pieces, held = fed(text, size)
    joined = "".join(pieces)
    assert shown_pieces(joined, disguise.core, key=RED_TEAM_KEY) == [], (size, joined)
    assert joined.startswith("The server said: ") and "***" in joined
    assert len(held) < 8  # at the end only a short open end is still held (dropped at the block's end)


def test_text_without_keys_flows_with_an_end_shorter_than_eight_held_back() -> None:
    text = "Reading src/app.ts and running the tests, then a summary of what changed. "
    pieces, held = fed(text, 5)
    assert "".join(pieces) + held == text
    assert len(held) < 8


def test_an_escape_cut_in_two_waits_for_its_second_half() -> None:
    escaped = "".join(f"%{b:02X}" for b in RED_TEAM_KEY.encode())
    stream = StreamRedactor(REDACTOR)
    assert stream.feed("key=%") == "key="  # "%" may begin an escape
    out = stream.feed(escaped[1:40]) + stream.feed(escaped[40:]) + stream.feed(" end")
    # What went out before the key's own characters began is its provider prefix, which shows nothing.
    head, redacted, tail = out.partition("***")
    assert redacted and shown_pieces(out, escaped, key=RED_TEAM_KEY) == []
    assert urllib.parse.unquote(head) in RED_TEAM_KEY[:13] and " end".startswith(tail)


def test_a_key_repeated_forever_is_held_back_no_more_than_the_limit() -> None:
    stream = StreamRedactor(REDACTOR)
    passed = []
    for _ in range(200):
        passed.append(stream.feed(RED_TEAM_KEY))
        assert len(stream.held) <= HOLD_LIMIT + len(RED_TEAM_KEY)
    joined = "".join(passed)
    assert joined and set(joined) == {"*"}  # passed on, and only as marks


def test_without_keys_every_piece_passes_at_once() -> None:
    stream = StreamRedactor(Redactor())
    assert stream.feed("sk-ant-api03-") == "sk-ant-api03-" and stream.held == ""
