"""Access to language models: one small interface, HTTP adapters, and an offline summarizer.

Callers (compaction, branch summaries) use :class:`LlmClient` and the values in
:mod:`lsp_server.llm.types`; :func:`build_client` makes a client from :class:`SummarizerConfig`.
The wire formats are rows of :mod:`lsp_server.vocabulary.providers`; each row's adapter module (and
httpx with it) is imported only when :func:`build_client` builds such a client, so importing this
package loads no HTTP library. See ``docs/llm.md``.
"""

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
