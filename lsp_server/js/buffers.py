"""``Buffer.from(text, "base64")`` as Node decodes it: what ``yaml`` gives a ``!!binary`` scalar.

Node's decoder is lenient and has two habits a strict base64 decoder lacks, both checked against
Node 22 on generated text: every character outside the two alphabets (``+/`` and ``-_`` both
count) is skipped, and the first ``=`` ends the decoding wherever it stands. A string holding a
character beyond U+00FF is read one UTF-16 code unit at a time through its low byte, so ``Ł``
(U+0141) counts as ``A`` and the second half of an emoji's surrogate pair can be an ``=``.
"""

from __future__ import annotations

from typing import Final

_ALPHABET: Final = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_VALUES: Final = {**{char: index for index, char in enumerate(_ALPHABET)}, "-": 62, "_": 63}
_BY_BYTE: Final = tuple(_VALUES.get(chr(byte), -1) for byte in range(256))
_EQUALS: Final = 0x3D


def _code_units(text: str) -> list[int]:
    if text.isascii() or max(text) <= "\xff":
        return [ord(char) for char in text]
    data = text.encode("utf-16-le", "surrogatepass")
    return [(data[index] | data[index + 1] << 8) & 0xFF for index in range(0, len(data), 2)]


def buffer_from_base64(text: str) -> bytes:
    """The bytes of ``Buffer.from(text, "base64")`` (never fails; junk decodes to fewer bytes)."""
    values: list[int] = []
    for unit in _code_units(text):
        if unit == _EQUALS:
            break
        value = _BY_BYTE[unit]
        if value >= 0:
            values.append(value)
    out = bytearray()
    full = len(values) - len(values) % 4
    for index in range(0, full, 4):
        a, b, c, d = values[index : index + 4]
        out += bytes(((a << 2) | (b >> 4), ((b & 0x0F) << 4) | (c >> 2), ((c & 0x03) << 6) | d))
    rest = values[full:]
    if len(rest) >= 2:
        out.append(((rest[0] << 2) | (rest[1] >> 4)) & 0xFF)
    if len(rest) == 3:
        out.append(((rest[1] & 0x0F) << 4 | (rest[2] >> 2)) & 0xFF)
    return bytes(out)
