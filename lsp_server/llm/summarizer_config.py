"""The summarizer's configuration: the small, flat shape the LLM package builds a client from.

:mod:`lsp_server.settings.summarizer` maps pi-context's settings and ``--model`` onto it; the
adapters (:mod:`lsp_server.llm.adapters`) and the factory take it. Its own module, so that the
adapters can name it without importing the factory that imports them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from lsp_server.llm.policy import RetryPolicy, Timeouts
from lsp_server.llm.types import MaxTokensField
from lsp_server.redaction import Secret
from lsp_server.vocabulary.providers import DEFAULT_MAX_TOKENS, OFFLINE, WireFormat

ClientKind = Literal["offline"] | WireFormat

OFFLINE_LABEL = "offline (extractive)"


@dataclass(frozen=True)
class SummarizerConfig:
    kind: ClientKind = "offline"
    model: str | None = None
    base_url: str | None = None
    api_key_env: str | None = None
    api_key: Secret | None = field(default=None, repr=False)
    reasoning: bool = False  # the model accepts a reasoning level (Pi's model.reasoning)
    max_tokens: int = DEFAULT_MAX_TOKENS  # Anthropic's required cap when the caller gives none
    max_tokens_field: MaxTokensField | None = None  # OpenAI-compatible: which field carries a cap
    session_affinity_headers: bool = False
    extra_headers: Mapping[str, str] = field(default_factory=dict, repr=False)
    connect_timeout_s: float = 10.0
    read_idle_timeout_s: float = 30.0  # summarizer.timeoutSeconds / --timeout
    total_timeout_s: float = 120.0  # summarizer.deadlineSeconds / --deadline: the whole call, retries included
    max_retries: int = 3
    base_delay_s: float = 2.0
    max_delay_s: float = 60.0
    max_retry_after_s: float = 60.0

    @property
    def label(self) -> str:
        """How progress and results name the summarizer: ``offline (extractive)`` or ``kind/model``."""
        return OFFLINE_LABEL if self.kind == OFFLINE else f"{self.kind}/{self.model}"

    def __post_init__(self) -> None:
        if isinstance(self.api_key, str):  # accept a plain string, keep only the wrapped form
            object.__setattr__(self, "api_key", Secret(self.api_key))

    @property
    def retry(self) -> RetryPolicy:
        return RetryPolicy(self.max_retries, self.base_delay_s, self.max_delay_s, self.max_retry_after_s)

    @property
    def timeouts(self) -> Timeouts:
        return Timeouts(self.connect_timeout_s, self.read_idle_timeout_s, self.total_timeout_s)
