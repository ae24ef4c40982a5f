"""Lines read through orjson give exactly what the standard decoder under JSON.parse's rules gives.

``parse_bytes`` tries orjson on every complete line and falls back to the standard library's
decoder (with JavaScript's number rules) when orjson refuses a line or could read it
differently. A differential run over generated lines, many of them the hard cases (integers
beyond 2**53, ``-0``, ``1e999``, lone surrogates, invalid UTF-8, byte-order marks, NaN, deep
nesting, non-objects), checks the two agree on entries, line numbers and problems.
"""

from __future__ import annotations

import io
import json
import random

import pytest

from lsp_server.session import jsonl
from lsp_server.session.bounds import SessionReadLimits
from lsp_server.session.jsonl import ParsedLines, decode_line, parse_bytes, parse_line, parse_stream

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
    data = b'{"type": "message", "n": 12}\n{"n": 12345678901234567}\n{"n": -0}\n{"n": "a"}\n{"n": 1e-0}\n'
    starts = [0, 29, 54, 64, 75]
    hits = jsonl._slow_offsets(data, 0, len(data))
    slow_lines = sorted({max(i for i, start in enumerate(starts) if start <= hit) for hit in hits})
    assert slow_lines == [1, 2, 4]  # 17 digits, -0, and 1e-0 (harmless, but the check is textual)


class _Trickle(io.BytesIO):
    """A file whose reads return at most ``step`` bytes, as a pipe or a slow disk may."""

    def __init__(self, data: bytes, step: int) -> None:
        super().__init__(data)
        self.step = step

    def read(self, size: int | None = -1) -> bytes:
        return super().read(self.step if size is None or size < 0 else min(size, self.step))


@pytest.mark.parametrize("step", [1, 7, 64, 4096])
def test_reading_in_chunks_equals_parsing_the_whole_file(step: int) -> None:
    rng = random.Random(step)
    body = b"\n".join(line(rng) for _ in range(300))
    for data in (body + b"\n", body + b"\n" + b'{"type": "custom"}', body + b"\n42"):
        whole, _ = parse_bytes(data, max_line_bytes=200)
        read = parse_stream(_Trickle(data, step), SessionReadLimits(max_line_bytes=200), keep=16)
        assert repr(read.parsed.entries) == repr(whole.entries)
        assert read.parsed.lines == whole.lines
        assert read.parsed.problems == whole.problems
        assert read.parsed.others == whole.others
        assert (read.size, read.head, read.tail) == (len(data), data[:16], data[-16:])
        assert read.last_line == (None if data.endswith(b"\n") else data[data.rfind(b"\n") + 1 :])
