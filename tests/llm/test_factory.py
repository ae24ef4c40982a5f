"""Building a client from SummarizerConfig."""

from __future__ import annotations

import os

import pytest

from lsp_server.llm.anthropic import AnthropicClient
from lsp_server.llm.factory import LlmConfigError, build_client, config_problems
from lsp_server.llm.offline import OfflineSummarizer
from lsp_server.llm.openai_compat import OpenAiCompatClient
from lsp_server.llm.summarizer_config import SummarizerConfig
from lsp_server.llm.types import CompletionRequest
from tests.support.fake_llm_server import FakeLlmServer, ScriptedResponse


def test_the_default_is_the_offline_summarizer() -> None:
    assert isinstance(build_client(SummarizerConfig(), os.environ), OfflineSummarizer)


def test_openai_defaults_to_openai_and_its_key_variable() -> None:
    client = build_client(SummarizerConfig(kind="openai", model="gpt-x"), env={"OPENAI_API_KEY": "k-123456"})
    assert isinstance(client, OpenAiCompatClient)
    assert client.base_url == "https://api.openai.com/v1"
    assert client.max_tokens_field == "max_completion_tokens"


def test_a_missing_key_variable_is_reported_by_name() -> None:
    assert config_problems(SummarizerConfig(kind="anthropic", model="claude-x"), env={}) == [
        "summarizer API key missing: environment variable ANTHROPIC_API_KEY is not set"
    ]


def test_a_self_hosted_openai_compatible_server_needs_no_key() -> None:
    config = SummarizerConfig(kind="openai", model="local", base_url="http://127.0.0.1:8080/v1")
    assert config_problems(config, env={}) == []


def test_model_is_required_for_http_kinds() -> None:
    with pytest.raises(LlmConfigError, match="model is required"):
        build_client(SummarizerConfig(kind="openai", base_url="http://127.0.0.1:1/v1"), env={})


def test_timeouts_and_retries_come_from_the_config() -> None:
    config = SummarizerConfig(
        kind="anthropic", model="c", api_key_env="K", max_retries=1, read_idle_timeout_s=7, max_tokens=4096
    )
    client = build_client(config, env={"K": "secret-value"})
    assert isinstance(client, AnthropicClient)
    assert (client.retry.max_retries, client.timeouts.read_idle_s, client.default_max_tokens) == (1, 7, 4096)


def test_invalid_numbers_are_reported() -> None:
    problems = config_problems(
        SummarizerConfig(kind="openai", model="m", base_url="http://x", total_timeout_s=0), os.environ
    )
    assert problems == ["summarizer total_timeout_s must be positive"]


async def test_the_key_from_the_named_variable_is_sent() -> None:
    with FakeLlmServer([ScriptedResponse(text="ok")]) as server:
        config = SummarizerConfig(kind="openai", model="m", base_url=server.openai_base_url, api_key_env="MY_LLM_KEY")
        client = build_client(config, env={"MY_LLM_KEY": "key-from-env-42"})
        reply = await client.complete(CompletionRequest.single_prompt("s", "p"))
        await client.aclose()
        assert reply.text == "ok"
        assert server.received_key(0, "key-from-env-42")
