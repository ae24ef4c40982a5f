"""The wire formats pi-context can summarize with: one row per format, and everything that differs between them.

The module that speaks a format (its adapter) is the same format's row of
:data:`lsp_server.llm.adapters.ADAPTERS`, imported when a client is built, not before: the adapters
load httpx, and what only describes a summarizer (settings, compaction, the offline summarizer) must
not pay for it. This table is the vocabulary (no import of ours), so the settings model can name the
formats without the summarizer's code.

Derived from this table (``tests/llm/test_providers.py`` checks that they agree): the
:data:`WireFormat` type used by the settings model and :class:`~lsp_server.llm.summarizer_config.SummarizerConfig`,
the ``--model`` help and its parsing, the key and base-URL environment variables, docs/llm.md's
provider table, the ``summarizer.wireFormat`` row of docs/settings.md and the
``piContext.summarizer.wireFormat`` choices in the extension's package.json
(``python docs/gen_vocabularies.py`` rewrites them). Adding a provider is adding its id to
:data:`WireFormat`, a row to :data:`PROVIDER_TABLE`, its adapter module and its row of
:data:`lsp_server.llm.adapters.ADAPTERS` (mypy checks that every format has one).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Final, Literal

from lsp_server.vocabulary.compaction import DEFAULT_RESERVE_TOKENS

WireFormat = Literal["openai", "anthropic"]
"""The wire formats, in table order (mypy checks every row's id against it; a test checks the reverse)."""

OFFLINE: Final = "offline"
"""The summarizer that needs no wire format: extractive, local (:mod:`lsp_server.llm.offline`)."""

DEFAULT_MAX_TOKENS: Final = DEFAULT_RESERVE_TOKENS
"""Cap sent when the caller gives none and the format requires one: Pi's default ``reserveTokens``
(defined once, in :mod:`lsp_server.vocabulary.compaction`), the room a summary must fit in."""


@dataclass(frozen=True)
class Provider:
    """One wire format: who speaks it, where it is by default, and where its key and URL come from.

    ``summary`` is the one line settings UIs show next to the choice (package.json's
    ``enumDescriptions``, docs/settings.md).
    """

    id: WireFormat
    summary: str
    default_base_url: str
    api_key_env: str  # the key's usual variable
    base_url_env: str  # ``--model <id>/<model>`` takes the base URL from it when the settings do not say
    key_with_custom_base_url: bool  # False: a server at another URL (self-hosted) gets no key unless configured


PROVIDER_TABLE: tuple[Provider, ...] = (
    Provider(
        id="openai",
        summary="OpenAI-compatible chat completions (OpenAI, OpenRouter, vLLM, llama.cpp, Ollama).",
        default_base_url="https://api.openai.com/v1",
        api_key_env="OPENAI_API_KEY",
        base_url_env="OPENAI_BASE_URL",
        key_with_custom_base_url=False,
    ),
    Provider(
        id="anthropic",
        summary="The Anthropic Messages API.",
        default_base_url="https://api.anthropic.com",
        api_key_env="ANTHROPIC_API_KEY",
        base_url_env="ANTHROPIC_BASE_URL",
        key_with_custom_base_url=True,
    ),
)

PROVIDER_BY_ID: Mapping[str, Provider] = MappingProxyType({row.id: row for row in PROVIDER_TABLE})
WIRE_FORMATS: tuple[WireFormat, ...] = tuple(row.id for row in PROVIDER_TABLE)
DEFAULT_WIRE_FORMAT: WireFormat = "openai"


def spoken_list(words: Sequence[str]) -> str:
    """``a, b or c``: how messages and help texts list the choices."""
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} or {words[-1]}"


def wire_format_setting_description() -> str:
    """The ``summarizer.wireFormat`` setting's description: what each choice speaks."""
    return "Request format. " + " ".join(f'"{row.id}": {row.summary}' for row in PROVIDER_TABLE)
