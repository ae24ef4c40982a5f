"""Which module speaks each wire format: one branch per row of :data:`~lsp_server.vocabulary.providers.PROVIDER_TABLE`.

The adapters import httpx, so each is imported here when a client of its format is built, not
before. A function with one branch per format rather than a field of the vocabulary's rows: the
vocabulary imports nothing of ours, and ``assert_never`` makes mypy fail when a format has no
adapter.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, assert_never

from lsp_server.vocabulary.providers import WireFormat

if TYPE_CHECKING:
    from lsp_server.llm.client import LlmClient
    from lsp_server.llm.summarizer_config import SummarizerConfig
    from lsp_server.redaction import Secret


class ClientBuilder(Protocol):
    """An adapter's constructor from a checked configuration (model and base URL resolved)."""

    def __call__(self, config: SummarizerConfig, *, base_url: str, model: str, api_key: Secret | None) -> LlmClient: ...


def load_adapter(kind: WireFormat) -> ClientBuilder:
    """The constructor of the client that speaks ``kind``, its module imported now."""
    if kind == "openai":
        from lsp_server.llm import openai_compat

        return openai_compat.client_from_config
    if kind == "anthropic":
        from lsp_server.llm import anthropic

        return anthropic.client_from_config
    assert_never(kind)
