"""Pi's token estimate: ``Math.ceil(chars / 4)`` with ``chars`` in UTF-16 code units.

This is the number Pi itself compares with the context window to decide when to compact
(``estimateTokens`` in ``core/compaction/compaction.js``), so it is the one to show next to
Pi's own thresholds, however far it is from a real tokenizer. For a message Pi sums the lengths
of all parts first and rounds once, so callers that add several texts should add their
``js_len`` and call :func:`pi_tokens_for_chars` once, not add per-text estimates.
"""

from __future__ import annotations

from lsp_server.js.strings import js_len


def pi_tokens_for_chars(chars: int) -> int:
    """``Math.ceil(chars / 4)`` for a non-negative character count (integer arithmetic, no float)."""
    return -(-chars // 4)


def pi_text_tokens(text: str) -> int:
    """Pi's estimate for one text: an emoji counts two characters, as in JavaScript."""
    return pi_tokens_for_chars(js_len(text))
