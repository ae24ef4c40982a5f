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
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from lsp_server.session import jsonl
from lsp_server.session.bounds import SessionReadLimits
from lsp_server.session.jsonl import (
    ParsedLines,
    decode_line,
    parse_bytes,
    parse_line,
    parse_session_text,
    parse_stream,
    read_session_values,
)

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
    b"0.013875000000000002",
    b"0.12345678901234567890123",
    b"12345678901234567.5",
    b"-12345678901234567",
    b"1234567890123456",
    b"1.5e-12345678901234567",
    b"1e-0",
    b'"12345678901234567890"',
    b'"\\\\"',
    b'"\\"12345678901234567890\\""',
    b'"\\\\\\"-0"',
    b'["-0", -0, "a\\"", 12345678901234567890]',
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


Finder = Callable[[bytes, int, int], list[int]]
# The number check in Python and, when the package was built with it, in C (``session/_native.c``).
FINDERS: list[Finder] = [jsonl._python_slow_offsets]
if jsonl._native_slow_offsets() is not None:
    FINDERS.append(jsonl._native_slow_offsets())  # type: ignore[arg-type]


def _slow_lines(data: bytes, finder: Finder = jsonl._slow_offsets) -> list[int]:
    """The 0-based lines of ``data`` that ``parse_bytes`` sends to the standard decoder."""
    starts = [0] + [i + 1 for i, byte in enumerate(data) if byte == 0x0A]
    hits = finder(data, 0, len(data))
    return sorted({max(i for i, start in enumerate(starts) if start <= hit) for hit in hits})


def test_the_c_number_check_is_the_one_parse_bytes_uses_when_built() -> None:
    assert jsonl._slow_offsets is FINDERS[-1]


@pytest.mark.parametrize("finder", FINDERS, ids=lambda finder: finder.__module__)
def test_a_simple_line_takes_the_fast_path(finder: Finder) -> None:
    data = b'{"type": "message", "n": 12}\n{"n": 12345678901234567}\n{"n": -0}\n{"n": "a"}\n{"n": 1e-0}\n'
    assert _slow_lines(data, finder) == [1, 2]  # 17 digits and -0; 1e-0 is a float to both readers


@pytest.mark.parametrize("seed", range(3))
def test_the_number_checks_in_c_and_python_take_the_same_json_lines(seed: int) -> None:
    rng = random.Random(seed)
    lines = []
    for _ in range(3000):
        candidate = line(rng)
        try:
            json.loads(candidate)
        except (ValueError, RecursionError):
            continue  # not JSON: orjson refuses the line whatever the check says
        lines.append(candidate)
    data = b"\n".join(lines) + b"\n"
    answers = [_slow_lines(data, finder) for finder in FINDERS]
    assert answers[0]  # the generator does make long integers and -0
    assert all(answer == answers[0] for answer in answers)


@pytest.mark.parametrize("finder", FINDERS, ids=lambda finder: finder.__module__)
def test_only_long_integer_literals_and_minus_zero_take_the_standard_decoder(finder: Finder) -> None:
    """Pi's cost floats (16+ fraction digits), long digit runs in strings and exponents stay on orjson."""
    lines = [
        b'{"cost": {"input": 0.013875000000000002, "total": 0.017400000000000002}}',  # fraction digits
        b'{"text": "order 12345678901234567890 shipped", "id": "run-0"}',  # digits and -0 in strings
        b'{"text": "say \\"12345678901234567890\\" twice", "n": 1}',  # after escaped quotes: still a string
        b'{"x": 1.5e-12345678901234567, "y": 12345678901234567.5, "z": 9e1234567890123456}',  # floats
        b'{"big": 12345678901234567}',  # an integer literal of 17 digits
        b'{"text": "a\\\\", "big": -12345678901234567}',  # after an escaped backslash: outside strings
        b"[-0]",
        b"12345678901234567890",  # a bare number line, at the buffer's start
    ]
    data = b"\n".join(lines[-1:] + lines[:-1]) + b"\n"
    assert _slow_lines(data, finder) == [0, 5, 6, 7]
    fast, _ = parse_bytes(data)
    slow = slow_parse(data)
    assert repr(fast.entries) == repr(slow.entries)
    assert fast.problems == slow.problems


def test_the_pi_text_reader_takes_the_same_lines_as_a_file(tmp_path: Path) -> None:
    """debug eval's jsonl and jsonlFile readers: Pi's parseSessionEntries (trim, split, any JSON value kept)."""
    text = '\ufeff \n{"type":"session","id":"s"}\n\n 42 \nnull\nfalse\n[1]\n"x"\n{bad\n{"n":-0,"c":0.1}\u00a0\u2028'
    parsed = parse_session_text(text)
    assert repr(parsed.values) == repr(
        [{"type": "session", "id": "s"}, 42, None, False, [1], "x", {"n": -0.0, "c": 0.1}]
    )
    assert [problem.line for problem in parsed.problems] == [4, 5, 6, 7, 8, 9]  # the lines that are no entries
    for content in (text, text.strip("\ufeff \n\u00a0\u2028"), "\n" * 3 + text + "\n", '{"a":1}'):
        path = tmp_path / "session.jsonl"
        path.write_bytes(content.encode("utf-8"))
        assert repr(read_session_values(str(path)).values) == repr(parse_session_text(content).values)


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


Sharer = Callable[[dict[str, Any]], None]
# The string sharing in Python and, when built, in C (``session/_native.c``'s ``share_strings``).
SHARERS: list[Sharer] = [jsonl._python_share_strings]
if jsonl._native_share_strings() is not None:
    SHARERS.append(jsonl._native_share_strings())  # type: ignore[arg-type]


def _fresh(text: str) -> str:
    """An equal string that is not the interned object (``json.loads`` of a key makes a new one)."""
    value: str = json.loads(json.dumps(text))
    return value


def test_the_c_string_sharing_is_the_one_the_reader_uses_when_built() -> None:
    assert jsonl._share_strings is SHARERS[-1]


@pytest.mark.parametrize("share", SHARERS, ids=lambda share: share.__module__)
def test_sharing_interns_the_repeated_short_values_and_leaves_the_rest(share: Sharer) -> None:
    class Text(str):
        pass

    long_model = "m" * 65
    message = {
        "role": _fresh("assistant"),
        "content": [{"type": _fresh("text"), "text": _fresh("hello")}],
        "api": _fresh("anthropic-messages"),
        "provider": Text("anthropic"),  # a subclass of str: left as it is
        "model": _fresh(long_model),  # 65 code points: over the limit
        "stopReason": 3,
        "toolName": _fresh("é" * 64),  # 64 code points (128 bytes): shared
    }
    entry = {"type": _fresh("message"), "id": _fresh("abc"), "message": message}
    before = json.dumps(entry)
    share(entry)
    assert json.dumps(entry) == before  # the same values, keys in the same order
    assert entry["type"] is sys.intern("message")
    assert message["role"] is sys.intern("assistant")
    assert message["api"] is sys.intern("anthropic-messages")
    assert message["toolName"] is sys.intern("é" * 64)
    assert type(message["provider"]) is Text
    assert message["model"] is not sys.intern(long_model)
    assert entry["id"] is not sys.intern("abc")  # not a shared key
    assert message["content"][0]["type"] is not sys.intern("text")  # content blocks are left alone


@pytest.mark.parametrize("share", SHARERS, ids=lambda share: share.__module__)
@pytest.mark.parametrize("entry", [{}, {"type": 5}, {"message": "text"}, {"message": None}, {"message": {}}])
def test_sharing_leaves_entries_without_shared_strings_as_they_are(share: Sharer, entry: dict[str, Any]) -> None:
    before = repr(entry)
    share(entry)
    assert repr(entry) == before


def test_the_c_string_sharing_refuses_what_is_not_a_dict() -> None:
    if len(SHARERS) < 2:
        pytest.skip("built without the C modules")
    with pytest.raises(TypeError, match="takes a dict"):
        SHARERS[-1]([])  # type: ignore[arg-type]
