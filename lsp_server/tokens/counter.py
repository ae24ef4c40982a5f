"""One interface for every way of counting tokens, chosen from the user's settings.

Settings (``piContext.tokens``): ``estimator`` is ``pi`` (Pi's chars/4, what Pi compares with the
window), ``weighted`` (default: per-script weights) or ``exact`` (a real tokenizer where one
exists offline); ``modelFamily`` is ``gpt``, ``claude``, ``claude47`` or ``auto`` (from the model
name). Exact vocabularies can also be named directly: ``o200k``, ``cl100k``, ``llama3``, ``qwen3``.
When the choice cannot be honoured (no tokenizer package, no vocabulary for Claude) the weighted
estimate for the same family is used and :attr:`CounterChoice.note` says why.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal, Protocol

from lsp_server.tokens.exact import EXACT_ENCODINGS, ExactUnavailable, load_exact_counter
from lsp_server.tokens.pi import pi_text_tokens
from lsp_server.tokens.weighted import PRESETS, weighted_tokens

# The estimator and family vocabularies, used by the settings, the CLI and the protocol as they are.
TokenEstimator = Literal["pi", "weighted", "exact"]
# auto, the weighted presets, the exact encodings (a test keeps them in step)
ModelFamily = Literal["auto", "gpt", "claude", "claude47", "o200k", "cl100k", "llama3", "qwen3"]
DEFAULT_FAMILY = "gpt"


class TokenCounter(Protocol):
    """Anything that counts tokens of a text."""

    @property
    def name(self) -> str: ...
    @property
    def exact(self) -> bool: ...
    def count(self, text: str) -> int: ...


@dataclass(frozen=True)
class PiCounter:
    """Pi's own estimate: ``ceil(UTF-16 length / 4)``."""

    @property
    def name(self) -> str:
        return "pi"

    @property
    def exact(self) -> bool:
        return False

    def count(self, text: str) -> int:
        return pi_text_tokens(text)


@dataclass(frozen=True)
class WeightedCounter:
    """The per-script weighted estimate with one family's weights."""

    preset: str = DEFAULT_FAMILY

    @property
    def name(self) -> str:
        return f"weighted:{self.preset}"

    @property
    def exact(self) -> bool:
        return False

    def count(self, text: str) -> int:
        return weighted_tokens(text, self.preset)


@dataclass(frozen=True)
class CounterChoice:
    """The counter to use and, when the settings could not be honoured exactly, why not."""

    counter: TokenCounter
    note: str | None = None


_CLAUDE_VERSION = re.compile(r"(?:opus|sonnet|haiku)-(\d+)(?:[-.](\d+))?|(\d+)(?:[-.](\d+))?-(?:opus|sonnet|haiku)")


def family_for_model(model: str | None) -> str:
    """A family for a model id (``anthropic/claude-opus-4-7`` -> ``claude47``); ``gpt`` when unknown.

    GPT-4 / GPT-3.5 map to ``cl100k``, Llama 3 to ``llama3``, Qwen to ``qwen3``, other GPT and o-series
    models to ``o200k``; the weighted estimator uses the ``gpt`` weights for all of those.
    """
    if not model:
        return DEFAULT_FAMILY
    name = model.lower().rsplit("/", 1)[-1]
    if "claude" in name:
        match = _CLAUDE_VERSION.search(name)
        if match:
            major = int(match.group(1) or match.group(3))
            minor = int(match.group(2) or match.group(4) or 0)
            # Minor parts like "20250514" are dates, not versions.
            if minor > 99:
                minor = 0
            if major < 100 and (major, minor) >= (4, 7):
                return "claude47"
        return "claude"
    if name.startswith(("gpt-4-", "gpt-3.5")) or name == "gpt-4":
        return "cl100k"
    if "llama" in name:
        return "llama3"
    if "qwen" in name:
        return "qwen3"
    if name.startswith(("gpt-", "o1", "o3", "o4", "chatgpt")):
        return "o200k"
    return DEFAULT_FAMILY


def weighted_preset_for(family: str) -> str:
    """The weight table for a family: Claude families have their own, every other family uses ``gpt``."""
    return family if family in PRESETS else DEFAULT_FAMILY


def choose_counter(estimator: str = "weighted", family: str = "auto", model: str | None = None) -> CounterChoice:
    """The counter for the settings; never raises for a missing optional package.

    ``family`` ``auto`` takes the family from ``model``. An unknown estimator or family name falls
    back to the weighted ``gpt`` estimate with a note.
    """
    note: str | None = None
    resolved = family_for_model(model) if family == "auto" else family
    if resolved not in PRESETS and resolved not in EXACT_ENCODINGS:
        note = f"unknown model family {resolved!r}; using {DEFAULT_FAMILY!r}"
        resolved = DEFAULT_FAMILY
    if estimator == "pi":
        return CounterChoice(PiCounter(), note)
    if estimator == "exact":
        try:
            return CounterChoice(load_exact_counter("o200k" if resolved == "gpt" else resolved), note)
        except ExactUnavailable as exc:
            preset = weighted_preset_for(resolved)
            return CounterChoice(WeightedCounter(preset), f"{exc}; using the weighted {preset!r} estimate")
    if estimator != "weighted":
        note = f"unknown estimator {estimator!r}; using the weighted estimate"
    return CounterChoice(WeightedCounter(weighted_preset_for(resolved)), note)
