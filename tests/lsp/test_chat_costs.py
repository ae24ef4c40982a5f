"""``pi/chat/preflight``'s ``nextRequest``: what sending the prompt now costs, through the real Pi."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pytest

from tests.lsp.test_chat import chat_server, model, pi_under_test
from tests.support.fake_llm_server import FakeLlmServer, ScriptedResponse

pytestmark = pytest.mark.pi
__all__ = ["chat_server", "model", "pi_under_test"]


async def test_preflight_prices_the_next_request_against_the_one_pi_just_sent(
    chat_server: Callable[..., Any], model: FakeLlmServer
) -> None:
    client = await chat_server()
    model.set_default(ScriptedResponse(text="ok", usage={"input": 300, "output": 10, "cacheRead": 1200}))
    chat_id = (await client.ask("pi/chat/start", {}))["chatId"]
    await client.turn(chat_id, "hello")
    text = "y" * 400
    found = await client.ask("pi/chat/preflight", {"chatId": chat_id, "text": text})
    upcoming = found["nextRequest"]
    prefix = upcoming["prefix"]
    # The request Pi sent (system + "hello") is a prefix of the next one (+ the reply + the prompt).
    assert prefix["wholePrevious"] is True and (prefix["segments"], prefix["previousSegments"]) == (2, 2)
    assert upcoming["sameModel"] is True and upcoming["api"] == "openai-completions"
    # What the provider counted for that request can be read from the cache again.
    assert upcoming["warm"]["cacheRead"] == 300 + 1200
    # The new prompt is new input, in the provider's tokens (scaled from the previous request).
    extra = round(math.ceil(len(text) / 4) * upcoming["scale"])
    assert upcoming["cold"]["newInput"] == upcoming["warm"]["cacheRead"] + upcoming["warm"]["newInput"]
    assert upcoming["warm"]["newInput"] >= extra
    assert upcoming["priceSource"] == "models.json"
