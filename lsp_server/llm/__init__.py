"""Access to language models: one small interface, HTTP adapters, and an offline summarizer.

Callers (compaction, branch summaries) use :class:`LlmClient` and the values in
:mod:`lsp_server.llm.types`; :func:`build_client` makes a client from :class:`SummarizerConfig`.
The wire formats are rows of :mod:`lsp_server.vocabulary.providers`; each row's adapter module (and
httpx with it) is imported only when :func:`build_client` builds such a client, so importing this
package loads no HTTP library. See ``docs/llm.md``.

The names below are imported on first use (PEP 562), not with the package: modules that need only a
leaf of it (:mod:`lsp_server.llm.transcript`'s labels, read by the session serializer) would
otherwise pull in the client, asyncio and the certificate store with the package. ``tests/llm``
checks both halves: every name resolves, and importing a leaf loads none of the rest.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from lsp_server.llm.client import CancelToken, LlmClient
    from lsp_server.llm.factory import LlmConfigError, build_client, config_problems
    from lsp_server.llm.offline import OfflineSummarizer, summarize_extractively
    from lsp_server.llm.summarizer_config import SummarizerConfig
    from lsp_server.llm.types import (
        ABORTED_MESSAGE,
        AssistantReply,
        CompletionRequest,
        ReasoningLevel,
        RetryNotice,
        StopReason,
        Usage,
    )
    from lsp_server.redaction import Secret

_HOMES = {
    "CancelToken": "lsp_server.llm.client",
    "LlmClient": "lsp_server.llm.client",
    "LlmConfigError": "lsp_server.llm.factory",
    "build_client": "lsp_server.llm.factory",
    "config_problems": "lsp_server.llm.factory",
    "OfflineSummarizer": "lsp_server.llm.offline",
    "summarize_extractively": "lsp_server.llm.offline",
    "SummarizerConfig": "lsp_server.llm.summarizer_config",
    "ABORTED_MESSAGE": "lsp_server.llm.types",
    "AssistantReply": "lsp_server.llm.types",
    "CompletionRequest": "lsp_server.llm.types",
    "ReasoningLevel": "lsp_server.llm.types",
    "RetryNotice": "lsp_server.llm.types",
    "StopReason": "lsp_server.llm.types",
    "Usage": "lsp_server.llm.types",
    "Secret": "lsp_server.redaction",
}

__all__ = [
    "ABORTED_MESSAGE",
    "AssistantReply",
    "CancelToken",
    "CompletionRequest",
    "LlmClient",
    "LlmConfigError",
    "OfflineSummarizer",
    "ReasoningLevel",
    "RetryNotice",
    "Secret",
    "StopReason",
    "SummarizerConfig",
    "Usage",
    "build_client",
    "config_problems",
    "summarize_extractively",
]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(home), name)
    globals()[name] = value  # the next lookup is a plain attribute
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_HOMES))
