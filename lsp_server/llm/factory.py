"""Building a model client from settings.

:class:`SummarizerConfig` is the small, flat shape this package needs; :mod:`lsp_server.llm.config`
maps the user's settings and ``--model`` onto it. ``kind`` picks the client:

* ``offline`` (default): :class:`~lsp_server.llm.offline.OfflineSummarizer`, no network, no key;
* a wire format of :mod:`lsp_server.llm.providers` (``openai``: any OpenAI-compatible
  chat-completions server; ``anthropic``: the Messages API). With no ``base_url`` the client talks
  to the provider itself and the key comes from its usual variable (``OPENAI_API_KEY``) unless
  ``api_key_env`` names another one. With a ``base_url`` (vLLM, llama.cpp, Ollama's ``/v1``,
  OpenRouter) an OpenAI-compatible server gets a key only when ``api_key_env`` or ``api_key`` is
  given, since local servers need none.

The adapter module is imported by :func:`build_client`, so describing or checking a configuration
loads no HTTP library. A key given directly (``api_key``) is wrapped in a
:class:`~lsp_server.redaction.Secret` at once, so it never shows in a repr. A configuration that
cannot work raises :class:`LlmConfigError` with a message naming the setting (and the variable,
never its value).
"""

from __future__ import annotations

import os
import re
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from lsp_server.llm.client import LlmClient
from lsp_server.llm.offline import OfflineSummarizer
from lsp_server.llm.policy import RetryPolicy, Timeouts
from lsp_server.llm.providers import DEFAULT_MAX_TOKENS, OFFLINE, PROVIDER_BY_ID, WIRE_FORMATS, WireFormat, spoken_list
from lsp_server.llm.types import MaxTokensField
from lsp_server.redaction import Secret

ClientKind = Literal["offline"] | WireFormat

OFFLINE_LABEL = "offline (extractive)"


class LlmConfigError(ValueError):
    """The summarizer settings cannot produce a working client."""


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


def base_url_problem(url: str) -> str | None:
    """What is wrong with a summarizer base URL, or None: checked before any client or socket sees it."""
    try:
        parts = urllib.parse.urlsplit(url)
    except ValueError as exc:
        return f"is not a valid URL ({exc})"
    if parts.scheme not in ("http", "https"):
        shown = f"{parts.scheme!r}" if parts.scheme else "none"
        return f"must start with http:// or https:// (scheme: {shown})"
    if not parts.hostname:
        return "has no host"
    try:
        parts.port  # noqa: B018 - parsing the port is the check
    except ValueError:
        port = parts.netloc.rpartition(":")[2]
        return f"has an invalid port {port!r} (a number from 0 to 65535)"
    return None


def config_problems(config: SummarizerConfig, env: Mapping[str, str] | None = None) -> list[str]:
    """Everything wrong with ``config`` for this environment (empty when :func:`build_client` will work)."""
    problems: list[str] = []
    if config.kind == OFFLINE:
        return []
    if config.kind not in PROVIDER_BY_ID:
        return [f"summarizer kind must be {spoken_list([OFFLINE, *WIRE_FORMATS])}, not {config.kind!r}"]
    if not config.model:
        problems.append(f"summarizer model is required for kind {config.kind!r}")
    if config.base_url is not None:
        problem = base_url_problem(config.base_url)
        if problem is not None:
            source = PROVIDER_BY_ID[config.kind].base_url_env
            problems.append(f"summarizer URL {config.base_url!r} {problem} (set by summarizer.url or ${source})")
    if config.max_retries < 0:
        problems.append("summarizer maxRetries must be 0 or more")
    for name in ("connect_timeout_s", "read_idle_timeout_s", "total_timeout_s", "max_tokens"):
        if getattr(config, name) <= 0:
            problems.append(f"summarizer {name} must be positive")
    key_env = _key_env(config)
    if key_env is not None and not config.api_key and not (env if env is not None else os.environ).get(key_env):
        problems.append(f"summarizer API key missing: {_variable(key_env)} is not set")
    return problems


def build_client(config: SummarizerConfig, env: Mapping[str, str] | None = None) -> LlmClient:
    """The client ``config`` describes; raises :class:`LlmConfigError` listing every problem."""
    problems = config_problems(config, env)
    if problems:
        raise LlmConfigError("; ".join(problems))
    if config.kind == OFFLINE:
        return OfflineSummarizer()
    assert config.model is not None  # checked above
    provider = PROVIDER_BY_ID[config.kind]
    key = api_key_of(config, env if env is not None else os.environ)
    build = provider.adapter()
    return build(config, base_url=config.base_url or provider.default_base_url, model=config.model, api_key=key)


_VARIABLE_NAME = re.compile(r"[A-Z_][A-Z0-9_]{0,63}|[A-Za-z_][A-Za-z0-9_]{0,15}")


def _variable(name: str) -> str:
    """``environment variable NAME``, unless the name does not look like one: a key pasted into
    ``apiKeyEnv`` by mistake must not be printed back."""
    if _VARIABLE_NAME.fullmatch(name):
        return f"environment variable {name}"
    return (
        "the environment variable that summarizer.apiKeyEnv names (not shown: it does not look like a variable "
        "name; is it the key itself?)"
    )


def _key_env(config: SummarizerConfig) -> str | None:
    """The variable the key must come from, or None when no key is needed or one was given."""
    if config.api_key_env:
        return config.api_key_env
    provider = PROVIDER_BY_ID.get(config.kind)
    if config.api_key or provider is None:
        return None
    if config.base_url and not provider.key_with_custom_base_url:
        return None  # a self-hosted server: no key unless one is configured
    return provider.api_key_env


def api_key_of(config: SummarizerConfig, env: Mapping[str, str]) -> Secret | None:
    """The key ``config`` sends (given, or read from its variable), or None."""
    if config.api_key:
        return config.api_key
    name = _key_env(config)
    value = env.get(name) if name else None
    return Secret(value) if value else None
