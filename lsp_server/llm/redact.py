"""Keeping API keys out of everything we print, log, raise or return.

A key is held in a :class:`Secret`, whose ``repr``/``str`` never show it; the only way to the value
is :meth:`Secret.reveal`, called when the HTTP header is built. Any text that may carry a key
(a server's error body that echoes it, an exception message) goes through :func:`redact`.
"""

from __future__ import annotations

from collections.abc import Iterable

REDACTED = "***"


class Secret:
    """A string that does not print itself."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        return self._value

    def __bool__(self) -> bool:
        return bool(self._value)

    def __repr__(self) -> str:
        return f"Secret({REDACTED!r})"

    __str__ = __repr__

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Secret) and other._value == self._value

    def __hash__(self) -> int:
        return hash(self._value)

    def __copy__(self) -> Secret:
        return self

    def __deepcopy__(self, memo: dict[int, object]) -> Secret:
        return self

    def __reduce__(self) -> tuple[object, ...]:
        # A pickled Secret would carry the key in clear; refuse rather than leak.
        raise TypeError("Secret values cannot be pickled")


def redact(text: str, secrets: Iterable[Secret | str | None]) -> str:
    """``text`` with every occurrence of every secret replaced by ``***``.

    Values shorter than 4 characters are left alone: replacing them would mangle ordinary text and
    they are not real keys. A text that was cut somewhere may hold only part of a key at its ends:
    a start of the key (8 characters or more) ending the text, or an end of it starting the text,
    is replaced too.
    """
    for secret in secrets:
        value = secret.reveal() if isinstance(secret, Secret) else secret
        if value and len(value) >= 4:
            text = text.replace(value, REDACTED)
            text = _cut_ends(text, value)
    return text


PARTIAL_MIN = 8  # the shortest piece of a key at a cut end that is redacted


def _cut_ends(text: str, value: str) -> str:
    for size in range(min(len(value) - 1, len(text)), PARTIAL_MIN - 1, -1):
        if text.endswith(value[:size]):
            text = text[: len(text) - size] + REDACTED
            break
    for size in range(min(len(value) - 1, len(text)), PARTIAL_MIN - 1, -1):
        if text.startswith(value[-size:]):
            text = REDACTED + text[size:]
            break
    return text
