"""Building a model client from a :class:`~lsp_server.llm.summarizer_config.SummarizerConfig`.

:mod:`lsp_server.settings.summarizer` maps the user's settings and ``--model`` onto the
configuration. ``kind`` picks the client:

* ``offline`` (default): :class:`~lsp_server.llm.offline.OfflineSummarizer`, no network, no key;
* a wire format of :mod:`lsp_server.vocabulary.providers` (``openai``: any OpenAI-compatible
  chat-completions server; ``anthropic``: the Messages API). With no ``base_url`` the client talks
  to the provider itself and the key comes from its usual variable (``OPENAI_API_KEY``) unless
  ``api_key_env`` names another one. With a ``base_url`` (vLLM, llama.cpp, Ollama's ``/v1``,
  OpenRouter) an OpenAI-compatible server gets a key only when ``api_key_env`` or ``api_key`` is
  given, since local servers need none.

The adapter module is imported by :func:`build_client` (:func:`~lsp_server.llm.adapters.load_adapter`),
so describing or checking a configuration loads no HTTP library. A key given directly (``api_key``) is wrapped in a
:class:`~lsp_server.redaction.Secret` at once, so it never shows in a repr. A configuration that
cannot work raises :class:`LlmConfigError` with a message naming the setting (and the variable,
never its value).
"""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Mapping

from lsp_server.llm.adapters import load_adapter
from lsp_server.llm.client import LlmClient
from lsp_server.llm.offline import OfflineSummarizer
from lsp_server.llm.summarizer_config import SummarizerConfig
from lsp_server.redaction import Secret
from lsp_server.vocabulary.providers import OFFLINE, PROVIDER_BY_ID, WIRE_FORMATS, spoken_list


class LlmConfigError(ValueError):
    """The summarizer settings cannot produce a working client."""


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


def config_problems(config: SummarizerConfig, env: Mapping[str, str]) -> list[str]:
    """Everything wrong with ``config`` for the environment ``env`` (empty when :func:`build_client` will work)."""
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
    if key_env is not None and not config.api_key and not env.get(key_env):
        problems.append(f"summarizer API key missing: {_variable(key_env)} is not set")
    return problems


def build_client(config: SummarizerConfig, env: Mapping[str, str]) -> LlmClient:
    """The client ``config`` describes (its key read from ``env``); raises :class:`LlmConfigError` on a problem."""
    problems = config_problems(config, env)
    if problems:
        raise LlmConfigError("; ".join(problems))
    if config.kind == OFFLINE:
        return OfflineSummarizer()
    assert config.model is not None  # checked above
    provider = PROVIDER_BY_ID[config.kind]
    key = api_key_of(config, env)
    build = load_adapter(provider.id)
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
