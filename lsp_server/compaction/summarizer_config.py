"""Which model writes summaries: pi-context's ``summarizer`` settings or ``--model`` -> a client config.

Pi summarizes with the session's own model. pi-context cannot borrow Pi's credentials, so the
summarizer is configured separately: ``offline`` (the default; extractive, no network, no key) or
an endpoint speaking the OpenAI chat-completions or Anthropic Messages wire format. A command-line
``--model PROVIDER/ID`` picks one for a single run; the endpoint and key variable then come from
the settings when they describe the same wire format, else from the provider's usual
environment variables (``OPENAI_BASE_URL`` / ``ANTHROPIC_BASE_URL``, ``OPENAI_API_KEY`` /
``ANTHROPIC_API_KEY``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Final, Literal

from lsp_server.llm.factory import DEFAULT_KEY_ENV, SummarizerConfig
from lsp_server.settings.pi_context import SummarizerSettings

BASE_URL_ENV: Final = {"openai": "OPENAI_BASE_URL", "anthropic": "ANTHROPIC_BASE_URL"}
MODEL_ARG_HELP: Final = "offline, openai/<model id> or anthropic/<model id>"


def config_from_settings(settings: SummarizerSettings) -> SummarizerConfig:
    """The configured summarizer (``mode: offline`` or an endpoint)."""
    if settings.mode == "offline":
        return SummarizerConfig()
    return SummarizerConfig(
        kind=settings.wire_format,
        model=settings.model,
        base_url=settings.url,
        api_key_env=settings.api_key_env,
        read_idle_timeout_s=settings.timeout_seconds,
        max_retries=settings.retries,
    )


def config_from_model_arg(
    arg: str, settings: SummarizerSettings, env: Mapping[str, str] | None = None
) -> SummarizerConfig | str:
    """``--model`` as a config, or a sentence saying what is wrong with it."""
    if arg == "offline":
        return SummarizerConfig()
    provider, _, model = arg.partition("/")
    if provider not in ("openai", "anthropic") or not model:
        return f"--model {arg!r}: expected {MODEL_ARG_HELP}"
    kind: Literal["openai", "anthropic"] = "openai" if provider == "openai" else "anthropic"
    environ = env if env is not None else os.environ
    if settings.mode == "endpoint" and settings.wire_format == kind:
        return SummarizerConfig(
            kind=kind,
            model=model,
            base_url=settings.url,
            api_key_env=settings.api_key_env,
            read_idle_timeout_s=settings.timeout_seconds,
            max_retries=settings.retries,
        )
    base_url = environ.get(BASE_URL_ENV[kind]) or None
    # A base URL from the environment is not necessarily a local server: send the usual key if it is set.
    key_env = DEFAULT_KEY_ENV[kind] if base_url is not None and environ.get(DEFAULT_KEY_ENV[kind]) else None
    return SummarizerConfig(kind=kind, model=model, base_url=base_url, api_key_env=key_env)
