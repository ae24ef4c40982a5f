"""Which model writes summaries: pi-context's ``summarizer`` settings or ``--model`` -> a client config.

Pi summarizes with the session's own model. pi-context cannot borrow Pi's credentials, so the
summarizer is configured separately: ``offline`` (the default; extractive, no network, no key) or
an endpoint speaking one of the wire formats of :mod:`lsp_server.vocabulary.providers`. A command-line
``--model PROVIDER/ID`` picks one for a single run; the endpoint and key variable then come from
the settings when they describe the same wire format, else from the provider's usual
environment variables (its row's ``base_url_env`` and ``api_key_env``: ``OPENAI_BASE_URL``,
``OPENAI_API_KEY``, ...). The time limits (``summarizer.timeoutSeconds``, ``deadlineSeconds``) hold
for any endpoint, and a command line's ``--timeout`` / ``--deadline`` replace them for one run.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Final

from lsp_server.llm.summarizer_config import SummarizerConfig
from lsp_server.settings.pi_context import SummarizerSettings
from lsp_server.vocabulary.providers import OFFLINE, PROVIDER_BY_ID, PROVIDER_TABLE, spoken_list

MODEL_ARG_HELP: Final = spoken_list([OFFLINE, *(f"{row.id}/<model id>" for row in PROVIDER_TABLE)])


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
        total_timeout_s=settings.deadline_seconds,
        max_retries=settings.retries,
    )


def config_from_model_arg(arg: str, settings: SummarizerSettings, env: Mapping[str, str]) -> SummarizerConfig | str:
    """``--model`` as a config (base URL and key variable from ``env``), or a sentence saying what is wrong with it."""
    if arg == OFFLINE:
        return SummarizerConfig()
    name, _, model = arg.partition("/")
    provider = PROVIDER_BY_ID.get(name)
    if provider is None or not model:
        return f"--model {arg!r}: expected {MODEL_ARG_HELP}"
    if settings.mode == "endpoint" and settings.wire_format == provider.id:
        return SummarizerConfig(
            kind=provider.id,
            model=model,
            base_url=settings.url,
            api_key_env=settings.api_key_env,
            read_idle_timeout_s=settings.timeout_seconds,
            total_timeout_s=settings.deadline_seconds,
            max_retries=settings.retries,
        )
    base_url = env.get(provider.base_url_env) or None
    # A base URL from the environment is not necessarily a local server: send the usual key if it is set.
    key_env = provider.api_key_env if base_url is not None and env.get(provider.api_key_env) else None
    return SummarizerConfig(
        kind=provider.id,
        model=model,
        base_url=base_url,
        api_key_env=key_env,
        read_idle_timeout_s=settings.timeout_seconds,  # the time limits hold for any endpoint
        total_timeout_s=settings.deadline_seconds,
    )


def with_time_limits(config: SummarizerConfig, *, idle_s: float | None, deadline_s: float | None) -> SummarizerConfig:
    """``config`` with a command line's ``--timeout`` / ``--deadline`` (None: as configured)."""
    return dataclasses.replace(
        config,
        read_idle_timeout_s=config.read_idle_timeout_s if idle_s is None else idle_s,
        total_timeout_s=config.total_timeout_s if deadline_s is None else deadline_s,
    )
