"""Lines read through orjson give exactly what the standard decoder under JSON.parse's rules gives.

``parse_bytes`` tries orjson on every complete line and falls back to the standard library's
decoder (with JavaScript's number rules) when orjson refuses a line or could read it
differently. A differential run over generated lines, many of them the hard cases (integers
beyond 2**53, ``-0``, ``1e999``, lone surrogates, invalid UTF-8, byte-order marks, NaN, deep
nesting, non-objects), checks the two agree on entries, line numbers and problems.
"""

from __future__ import annotations

import json
import random

import pytest

from lsp_server.session import jsonl
from lsp_server.session.jsonl import ParsedLines, decode_line, parse_bytes, parse_line

HARD = [
    b"9007199254740993",
    b"123456789012345678",
    b"18446744073709551616",
    b"-0",
    b"-0.0",
    b"1e999",
    b"-1e999",
    b"1E400",
    b"1e-400",
    b"0.1",
    b"1.0",
    b"NaN",
    b"Infinity",
    b'"\\ud800"',
    b'"\\udc00x"',
    b'"\xff"',
    b'"\xc3\xa9"',
    b'"\\u00e9"',
    b'"a-0"',
    b'"id-1234567890123456"',
    b"[" * 3000 + b"]" * 3000,
    b"null",
    b"true",
    b"42",
    b"[1,2]",
    b'"text"',
]


def slow_parse(data: bytes) -> ParsedLines:
    """What parse_bytes gave before orjson: every line through the standard decoder."""
    out = ParsedLines()
    end = data.rfind(b"\n") + 1
    for number, raw in enumerate(data[:end].split(b"\n")[:-1], start=1):
        parse_line(decode_line(raw, number, out.problems), number, out)
    return out


def line(rng: random.Random) -> bytes:
    roll = rng.random()
    if roll < 0.05:
        return rng.choice([b"", b"  ", b"\t", b"\r", b"\xef\xbb\xbf{}", b"{", b'{"a":}', b"\xef\xbb\xbf"])
    if roll < 0.15:
        return rng.choice(HARD)
    value = rng.choice(HARD)
    entry = {"type": "message", "id": f"{rng.getrandbits(32):08x}", "n": rng.randint(-10, 10**6)}
    text = json.dumps(entry, ensure_ascii=rng.random() < 0.5).encode()
    return text[:-1] + b', "v": ' + value + b"}" if rng.random() < 0.7 else text


@pytest.mark.parametrize("seed", range(5))
def test_orjson_lines_equal_the_standard_decoder(seed: int) -> None:
    rng = random.Random(seed)
    data = b"\n".join(line(rng) for _ in range(2000)) + b"\n"
    fast, _ = parse_bytes(data)
    slow = slow_parse(data)
    assert repr(fast.entries) == repr(slow.entries)  # repr: -0.0, inf and nan compare by spelling
    assert fast.lines == slow.lines
    assert fast.problems == slow.problems


def test_js_numbers_survive_the_fast_path() -> None:
    data = b'{"big": 9007199254740993, "neg0": -0, "inf": 1e999, "small": 5}\n'
    (entry,) = parse_bytes(data)[0].entries
    assert repr(entry) == "{'big': 9007199254740992.0, 'neg0': -0.0, 'inf': inf, 'small': 5}"


def test_a_simple_line_takes_the_fast_path() -> None:
    assert jsonl._fast_value(b'{"type": "message", "n": 12}') == {"type": "message", "n": 12}
    assert jsonl._fast_value(b'{"n": 12345678901234567}') is jsonl._SLOW
    assert jsonl._fast_value(b'{"n": -0}') is jsonl._SLOW
