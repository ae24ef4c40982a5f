"""The one redactor: known keys, in every form, replaced by ``***`` in a text or in JSON data.

Built once from the keys (:class:`~lsp_server.redaction.secret.Secret` values or plain strings)
and then asked for texts (:meth:`Redactor.text`) or JSON values (:meth:`Redactor.value`). What
is replaced:

* a key-like value (:func:`~lsp_server.redaction.forms.is_key_like`): every run of 8 or more
  characters of any of its forms (the key, its base64 and base64url at three alignments), found in
  the text folded (upper/lower case, whitespace inside, percent-encoding: :mod:`.folding`), by one
  linear scan (:mod:`.matching`); the replacement covers the run's own characters in the text;
* any other value of 4 characters or more: where it appears whole.

Overlapping or touching runs become one ``***``. A streamed text, whose pieces may split a key, has
its own object (:class:`~lsp_server.redaction.stream.StreamRedactor`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from lsp_server.redaction.folding import FoldMap, fold, fold_with_map
from lsp_server.redaction.forms import MIN_PIECE, MIN_VALUE, is_key_like, key_forms, public_prefix_length
from lsp_server.redaction.matching import KeyIndex, Span
from lsp_server.redaction.secret import REDACTED, Secret


class Redactor:
    """Known keys, ready to be taken out of texts."""

    def __init__(self, secrets: Iterable[Secret | str | None] = ()) -> None:
        values = {secret.reveal() if isinstance(secret, Secret) else secret for secret in secrets}
        kept = [value for value in values if value and len(value) >= MIN_VALUE]
        self.exact: tuple[str, ...] = tuple(
            sorted((value for value in kept if not is_key_like(value)), key=lambda v: (-len(v), v))
        )
        keys = [value for value in kept if is_key_like(value)]
        # The key's own form starts with the provider's fixed prefix, which alone shows nothing (forms.py).
        public = {fold(value): public_prefix_length(value) for value in keys}
        self.index = KeyIndex((form for value in keys for form in key_forms(value)), public)

    def __bool__(self) -> bool:
        return bool(self.exact) or bool(self.index)

    def text(self, text: str) -> str:
        """``text`` with every known key, in any of its forms, replaced by ``***``."""
        for value in self.exact:
            if value in text:
                text = text.replace(value, REDACTED)
        if not self.index or len(text) < MIN_PIECE:
            return text
        spans = self.index.spans(fold(text))
        if not spans:
            return text
        return replaced(text, fold_with_map(text), spans)

    def value(self, value: Any) -> Any:
        """``value`` (JSON data) with every string redacted, keys of objects included.

        Returns ``value`` itself when nothing in it changed, so a stream of events costs a scan, not a copy.
        """
        if not self:
            return value
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            changed = False
            out: dict[Any, Any] = {}
            for key, item in value.items():
                new_key = self.text(key) if isinstance(key, str) else key
                new_item = self.value(item)
                changed = changed or new_key is not key or new_item is not item
                out[new_key] = new_item
            return out if changed else value
        if isinstance(value, list):
            items = [self.value(item) for item in value]
            return items if any(new is not old for new, old in zip(items, value, strict=True)) else value
        return value


def replaced(text: str, folded: FoldMap, spans: list[Span]) -> str:
    """``text`` with the characters behind each folded span replaced by ``***``."""
    out: list[str] = []
    last = 0
    for left, right in spans:
        start, end = folded.start_of(left), folded.end_of(right - 1)
        out.append(text[last:start])
        out.append(REDACTED)
        last = end
    out.append(text[last:])
    return "".join(out)
