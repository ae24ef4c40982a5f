"""``Buffer.from(text, "base64")``: Node's lenient decoding, the value of a ``!!binary`` scalar."""

from __future__ import annotations

import json
import random
import subprocess

from lsp_server.js.buffers import buffer_from_base64
from tests.compaction._oracle import oracle_command


def test_valid_base64_decodes_as_usual_with_either_alphabet() -> None:
    assert buffer_from_base64("aGVsbG8=") == b"hello"
    assert buffer_from_base64("aGVs bG8=\n") == b"hello"
    assert buffer_from_base64("-_-_") == buffer_from_base64("+/+/") == bytes([0xFB, 0xFF, 0xBF])


def test_junk_is_skipped_and_the_first_equals_sign_ends_it() -> None:
    # Node: Buffer.from('not base64 ###', 'base64') is <9e 8b 5b 6a c7 ba>; 'YQ==YQ==' is <61>
    assert list(buffer_from_base64("not base64 ###")) == [158, 139, 91, 106, 199, 186]
    assert buffer_from_base64("YQ==YQ==") == b"a"
    assert buffer_from_base64("Y") == b"" and buffer_from_base64("") == b""


def test_a_two_byte_string_is_read_by_each_code_unit_low_byte() -> None:
    assert buffer_from_base64("ŁŁŁŁ") == bytes(3)  # U+0141 reads as "A"
    assert buffer_from_base64("éééQUJD") == b"ABC"  # Latin-1 only: é is junk
    assert buffer_from_base64("QUJD\U0001f600QUJD") == b"ABC"  # the emoji is U+D83D U+DE00: 0x3D is "="


def test_same_bytes_as_node_on_generated_text() -> None:
    node = oracle_command()[0]
    rng = random.Random(21)
    alphabet = "ABCxyz09+/-_= \t\n#!é€Ł\U0001f600\x00ĽŽ"
    texts = ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40))) for _ in range(400)]
    script = (
        "const texts = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
        "console.log(JSON.stringify(texts.map((t) => [...Buffer.from(t, 'base64')])))"
    )
    done = subprocess.run([node, "-e", script], input=json.dumps(texts), capture_output=True, text=True, check=True)
    expected = json.loads(done.stdout)
    differing = [
        (text, want) for text, want in zip(texts, expected, strict=True) if list(buffer_from_base64(text)) != want
    ]
    assert differing == []
