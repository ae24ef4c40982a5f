"""Shared fixtures: a started fake LLM server and clients pointed at it with fast retry timings."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from lsp_server.llm.anthropic import AnthropicClient
from lsp_server.llm.http_client import HttpLlmClient
from lsp_server.llm.openai_compat import OpenAiCompatClient
from lsp_server.llm.policy import RetryPolicy, Timeouts
from lsp_server.redaction import Secret
from tests.support.fake_llm_server import FakeLlmServer

FAST_RETRY = RetryPolicy(max_retries=2, base_delay_s=0.01, max_delay_s=0.05, max_retry_after_s=1.0)
TIMEOUTS = Timeouts(connect_s=5.0, read_idle_s=10.0, total_s=60.0)
KEY = "sk-test-SECRET-0123456789abcdef"


@pytest.fixture
def server() -> Iterator[FakeLlmServer]:
    with FakeLlmServer() as fake:
        yield fake


def make_client(wire: str, server: FakeLlmServer, **options: Any) -> HttpLlmClient:
    options.setdefault("retry", FAST_RETRY)
    options.setdefault("timeouts", TIMEOUTS)
    options.setdefault("api_key", Secret(KEY))
    options.setdefault("model", "test-model")
    if wire == "openai":
        return OpenAiCompatClient(base_url=server.openai_base_url, **options)
    return AnthropicClient(base_url=server.anthropic_base_url, **options)


@pytest.fixture(params=["openai", "anthropic"])
def wire(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
async def client(wire: str, server: FakeLlmServer) -> AsyncIterator[HttpLlmClient]:
    llm = make_client(wire, server)
    yield llm
    await llm.aclose()


def deep_keys(value: Any) -> set[str]:
    """Every key of every object inside a JSON value."""
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in deep_keys(v)}
    if isinstance(value, list):
        return {k for v in value for k in deep_keys(v)}
    return set()
