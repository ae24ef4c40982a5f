"""The API key never appears in logs, error messages, exceptions or reprs."""

from __future__ import annotations

import copy
import logging
import os
import pickle
import socket

import pytest

from lsp_server.llm.factory import LlmConfigError, build_client
from lsp_server.llm.openai_compat import OpenAiCompatClient
from lsp_server.llm.summarizer_config import SummarizerConfig
from lsp_server.llm.types import CompletionRequest, RetryNotice
from lsp_server.redaction import Redactor, Secret
from tests.llm.conftest import FAST_RETRY, KEY, make_client
from tests.support.fake_llm_server import FakeLlmServer, ScriptedResponse

REQUEST = CompletionRequest.single_prompt("s", "p")


async def test_key_echoed_by_the_server_is_redacted_everywhere(
    server: FakeLlmServer, wire: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)  # every logger, httpx and httpcore included
    echo = {"error": {"message": f"Incorrect API key provided: {KEY}"}}
    server.enqueue(ScriptedResponse(status=401, body=echo), ScriptedResponse(status=500, body=echo))
    server.enqueue(*[ScriptedResponse(status=500, body=echo)] * 3)
    async with make_client(wire, server) as client:
        unauthorized = await client.complete(REQUEST)
        server_error = await client.complete(REQUEST)
        shown = [repr(client), str(client), repr(unauthorized), repr(server_error)]
    assert unauthorized.error_message == "401 Incorrect API key provided: ***"
    assert server.received_key(0, KEY)
    everything = "\n".join([caplog.text, *shown, *(repr(r) for r in server.requests)])
    assert "retry" in caplog.text  # the retries were logged, with the message ...
    assert KEY not in everything  # ... and without the key


async def test_connection_errors_do_not_show_the_key(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    async with OpenAiCompatClient(
        base_url=f"http://127.0.0.1:{port}/v1", model="m", api_key=Secret(KEY), retry=FAST_RETRY
    ) as client:
        reply = await client.complete(REQUEST)
    assert reply.stop_reason == "error"
    assert KEY not in caplog.text + repr(reply)


def test_config_and_secret_reprs_hide_the_key() -> None:
    config = SummarizerConfig(kind="anthropic", model="m", api_key=Secret(KEY))
    client = build_client(config, os.environ)
    shown = [repr(config), str(config), repr(config.api_key), str(config.api_key), repr(client), f"{config}"]
    assert all(KEY not in text for text in shown)


def test_a_plain_string_key_in_the_config_is_wrapped() -> None:
    config = SummarizerConfig(kind="openai", model="m", api_key=KEY)  # type: ignore[arg-type]
    assert isinstance(config.api_key, Secret)
    assert KEY not in repr(config)


def test_missing_key_error_names_the_variable_not_a_value() -> None:
    with pytest.raises(LlmConfigError) as caught:
        build_client(SummarizerConfig(kind="openai", model="m", api_key_env="MY_KEY"), env={"OTHER": KEY})
    assert "MY_KEY" in str(caught.value)
    assert KEY not in str(caught.value)


def test_secret_refuses_to_be_pickled_but_copies_as_itself() -> None:
    secret = Secret(KEY)
    with pytest.raises(TypeError):
        pickle.dumps(secret)
    assert copy.deepcopy(secret) is secret


def test_redact_replaces_every_occurrence_and_ignores_tiny_values() -> None:
    assert Redactor([Secret(KEY)]).text(f"{KEY} and {KEY}") == "*** and ***"
    assert Redactor([Secret("a")]).text("a b c") == "a b c"


async def test_retry_notices_of_a_stream_error_that_quotes_the_key_are_redacted(
    server: FakeLlmServer, wire: str, caplog: pytest.LogCaptureFixture
) -> None:
    # A retryable error arriving inside the stream (Anthropic's overloaded_error event, or an
    # OpenAI-style error chunk) whose text echoes the request's key.
    caplog.set_level(logging.DEBUG)
    event = {"type": "overloaded_error", "message": f"overloaded (request key {KEY})"}
    server.enqueue(ScriptedResponse(text="", error_event=event), ScriptedResponse(text="fine"))
    notices: list[RetryNotice] = []
    async with make_client(wire, server) as client:
        reply = await client.complete(REQUEST, on_retry=notices.append)
    assert reply.text == "fine"
    assert [n.error_message for n in notices] == ["overloaded (request key ***)"]
    assert KEY not in caplog.text


async def test_a_key_crossing_the_message_cut_is_redacted_before_the_cut(
    server: FakeLlmServer, wire: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    long_key = "sk-" + "x7" * 40  # 83 characters
    for lead in (420, 460, 490):  # the key starts before the 500-character cut and ends after it
        message = "e" * lead + long_key + " tail"
        server.enqueue(*[ScriptedResponse(status=503, body={"error": {"message": message}})] * 3)
        notices: list[RetryNotice] = []
        async with make_client(wire, server, api_key=Secret(long_key)) as client:
            reply = await client.complete(REQUEST, on_retry=notices.append)
        shown = [reply.error_message or "", *(n.error_message for n in notices), caplog.text]
        assert len(notices) == 2
        for text in shown:
            assert long_key[:12] not in text, lead  # not even a prefix of it
        assert (reply.error_message or "").startswith("503 " + "e" * lead + "***")


def test_a_piece_of_the_key_at_a_cut_end_is_redacted() -> None:
    assert Redactor([Secret(KEY)]).text(f"401 invalid key {KEY[:12]}") == "401 invalid key ***"
    assert Redactor([Secret(KEY)]).text(f"{KEY[-9:]} was rejected") == "*** was rejected"
    assert Redactor([Secret(KEY)]).text(f"ends with {KEY[:7]}") == f"ends with {KEY[:7]}"  # too short to be told apart
