"""A key held so that it never prints itself.

A key is held in a :class:`Secret`, whose ``repr``/``str`` never show it; the only way to the value
is :meth:`Secret.reveal`, called where the key is really needed (the HTTP header, the redactor's
index). Text that may carry a key goes through a :class:`~lsp_server.redaction.Redactor`.
"""

from __future__ import annotations

from typing import Final

REDACTED: Final = "***"


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
