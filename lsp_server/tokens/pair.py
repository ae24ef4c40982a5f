"""A token count taken twice: by Pi's ``ceil(chars/4)`` and by the configured estimator.

Every number the editor shows about the prompt comes in this pair, because Pi decides with its
own count while the user wants the better estimate; keeping both in one value stops the two from
being mixed up on the way to the client.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TokenPair:
    """A count by Pi's ``ceil(chars/4)`` and by the configured estimator."""

    pi: int
    estimate: int

    def __sub__(self, other: TokenPair) -> TokenPair:
        return TokenPair(self.pi - other.pi, self.estimate - other.estimate)


ZERO = TokenPair(0, 0)
