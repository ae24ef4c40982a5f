"""What a save that changes the system prompt costs in prompt-cache terms.

Pi answers a changed section in two ways, depending on the model (pi-ai's ``resolveTranscript``):

* a **live session** on a model with mid-conversation system messages gets Pi's patch as one system
  message at the end of the next request: the whole cached prefix survives, and only the patch (its
  size here) is new input;
* a live session on any other model, and **every new session**, gets the replayed prompt at the start:
  the provider can still read the prompt up to its first differing character (from an earlier request
  with the old prompt), and everything after that point -- the rest of the prompt and, in a live
  session, the whole conversation -- is new input again.

:func:`save_cache_impact` measures both from the old and new rendered prompt and Pi's rendered patch.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from lsp_server.js.strings import js_len
from lsp_server.tokens.pair import TokenPair
from lsp_server.tokens.pi import pi_text_tokens


@dataclass(frozen=True)
class SaveCacheImpact:
    patch: TokenPair  # the system message a live session with mid-conversation system messages receives
    first_difference: int | None  # UTF-16 offset in the rendered prompt; None when the texts are equal
    kept: TokenPair  # the prompt before the first difference: still a cache hit for new sessions
    resent: TokenPair  # the new prompt from the first difference on: never cached yet


def _pair(text: str, count: Callable[[str], int]) -> TokenPair:
    return TokenPair(pi_text_tokens(text), count(text))


def first_difference(before: str, after: str) -> int | None:
    """The index of the first differing character (``None``: equal texts)."""
    limit = min(len(before), len(after))
    index = 0
    while index < limit and before[index] == after[index]:
        index += 1
    if index == len(before) == len(after):
        return None
    return index


def save_cache_impact(before: str, after: str, patch: str, count: Callable[[str], int]) -> SaveCacheImpact:
    """Measure a prompt change: the patch Pi sends live, and where the prompt first differs."""
    index = first_difference(before, after)
    if index is None:
        return SaveCacheImpact(_pair(patch, count), None, _pair(after, count), TokenPair(0, 0))
    return SaveCacheImpact(
        _pair(patch, count), js_len(after[:index]), _pair(after[:index], count), _pair(after[index:], count)
    )
