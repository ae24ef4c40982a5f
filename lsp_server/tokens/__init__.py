"""Token counts for text: Pi's own estimate, a per-script weighted estimate, exact tokenizers.

:mod:`.pi` is the ``ceil(chars/4)`` Pi compares with the context window (the number to show when
the question is "when will Pi compact?"). :mod:`.weighted` is a cheap estimator with per-script
weights that is 3-5x closer to real tokenizers on code, JSON, logs and non-English text.
:mod:`.exact` counts with a real tokenizer when the optional ``quicktok`` package is installed.
:mod:`.counter` picks one of them from the user's settings behind one interface.
"""

from lsp_server.tokens.counter import CounterChoice, TokenCounter, choose_counter
from lsp_server.tokens.pi import pi_text_tokens, pi_tokens_for_chars
from lsp_server.tokens.weighted import weighted_tokens

__all__ = [
    "CounterChoice",
    "TokenCounter",
    "choose_counter",
    "pi_text_tokens",
    "pi_tokens_for_chars",
    "weighted_tokens",
]
