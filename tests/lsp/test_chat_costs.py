"""``pi/chat/preflight``'s ``nextRequest``: what sending the prompt now costs, through the real Pi."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any

import pytest
from lsprotocol import types

from lsp_server.vocabulary.pi_releases import rules_for
from tests.lsp.conftest import Workspace
from tests.lsp.test_chat import chat_server, entries, model, pi_under_test
from tests.support.fake_llm_server import FakeLlmServer, ScriptedResponse
from tests.support.pi_for_tests import PiUnderTest

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


RATES = {"input": 3, "output": 15, "cacheRead": 0.3, "cacheWrite": 3.75}


def priced(input_tokens: float, output_tokens: float) -> float:
    return (RATES["input"] / 1e6) * input_tokens + (RATES["output"] / 1e6) * output_tokens


async def test_compact_preview_prices_the_summary_calls_pi_then_makes(
    chat_server: Callable[..., Any], model: FakeLlmServer, pi_under_test: PiUnderTest
) -> None:
    client = await chat_server(model_fields={"cost": RATES})
    client.agent.write_settings({"defaultProvider": "fake", "compaction": {"keepRecentTokens": 10}})
    model.enqueue(*(ScriptedResponse(text=f"answer {n} " + "words " * 60) for n in range(1, 3)))
    model.set_default(ScriptedResponse(text="## Goal\nKeep the questions.\n\n## Progress\nTwo answers so far."))
    chat_id = (await client.ask("pi/chat/start", {}))["chatId"]
    for question in ("first question", "second question"):
        await client.turn(chat_id, question)
    preview = await client.ask("pi/chat/compactPreview", {"chatId": chat_id, "instructions": "the questions"})
    first = preview["economics"]
    # No summary yet and no earlier one: the assumed length, said so.
    assert (first["summaryOutputSource"], first["summaryOutput"]) == ("assumed", 1000)
    assert (first["priceSource"], first["model"]) == ("models.json", "fake/fake-1")
    assert first["summaryCost"] == pytest.approx(priced(first["summaryInput"], 1000))
    assert first["contextBefore"] == preview["tokensBefore"]
    before = len(model.requests)
    await client.ask("pi/chat/compact", {"chatId": chat_id, "instructions": "the questions"})
    sent = model.requests[before:]
    # As many summary calls as Pi made, each carrying the focus the preview was priced with (a split turn's
    # prefix only from Pi 1.4.0 on: the preview follows the chat's Pi).
    assert first["requests"] == len(sent) >= 1
    focused = ["the questions" in json.dumps(request.body) for request in sent]
    if rules_for(pi_under_test.version).has("turn-prefix-instructions"):
        assert all(focused)
    else:
        assert focused[0] and not any(focused[1:])

    # After Pi's compaction the next preview expects a summary as long as the one Pi wrote.
    model.enqueue(ScriptedResponse(text="answer 3 " + "words " * 60))
    await client.turn(chat_id, "third question")
    session = (await client.ask("pi/chat/state", {"chatId": chat_id}))["session"]
    written = [e for e in entries(session) if e["type"] == "compaction"][-1]["summary"]
    again = (await client.ask("pi/chat/compactPreview", {"chatId": chat_id}))["economics"]
    assert again["summaryOutputSource"] == "previous"
    assert again["summaryOutput"] == math.ceil(len(written.encode("utf-16-le")) / 2 / 4)


def _text(message: dict[str, Any]) -> str:
    content = message["content"]
    return content if isinstance(content, str) else "".join(block.get("text", "") for block in content)


def _common(first: list[Any], second: list[Any]) -> int:
    count = 0
    while count < min(len(first), len(second)) and first[count] == second[count]:
        count += 1
    return count


@pytest.mark.parametrize("mid_conversation", [False, True], ids=["replay", "patch"])
async def test_the_prompt_update_is_the_patch_pi_records_and_sends_when_the_session_resumes(
    chat_server: Callable[..., Any], model: FakeLlmServer, workspace: Workspace, mid_conversation: bool
) -> None:
    """A saved AGENTS.md under a session Pi recorded: ``promptUpdate`` predicts the system message Pi
    records when it resumes the session, and the prefix the next request keeps, for both of Pi's cases."""
    agents = workspace.write("AGENTS.md", "# Rules\nBe brief.\n")
    # A skill: Pi's skills section opens with Pi's own introduction, which pi-context words differently.
    skill = workspace.agent_dir / "skills" / "deploy" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("---\nname: deploy\ndescription: Deploys the service.\n---\nSteps.\n", encoding="utf-8")
    fields = {"compat": {"supportsMidConvoSystemMessages": True}} if mid_conversation else {}
    client = await chat_server(model_fields=fields)
    model.set_default(ScriptedResponse(text="ok", usage={"input": 900, "output": 5, "cacheRead": 0}))
    chat_id = (await client.ask("pi/chat/start", {}))["chatId"]
    await client.turn(chat_id, "hello")
    session = (await client.ask("pi/chat/state", {"chatId": chat_id}))["session"]
    current = (await client.ask("pi/turnLedger", {"session": session}))["promptUpdate"]
    assert current["patch"] == {} and current["nextRequest"] is None  # Pi recorded the workspace's prompt
    await client.ask("pi/chat/stop", {"chatId": chat_id})
    await client.wait(lambda: any(e["chatId"] == chat_id for e in client.exits))

    agents.write_text("# Rules\nBe thorough.\n", encoding="utf-8")
    client.client.text_document_did_save(
        types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=workspace.uri(agents)))
    )
    update = (await client.ask("pi/turnLedger", {"session": session}))["promptUpdate"]
    assert update["mode"] == ("patch" if mid_conversation else "replay")
    assert list(update["patch"]) == ["project_context"] and "Be thorough." in update["patch"]["project_context"]

    resumed = (await client.ask("pi/chat/start", {"session": session}))["chatId"]
    await client.turn(resumed, "next")
    recorded = [e["message"] for e in entries(session) if e["type"] == "message" and e["message"]["role"] == "system"]
    assert "skills" in recorded[0]["sections"]
    assert recorded[-1]["sections"] == update["patch"]  # the system message Pi recorded is the predicted patch
    before, after = (request.body["messages"] for request in model.requests[-2:])
    prefix = update["nextRequest"]["prefix"]
    assert prefix["segments"] == _common(before, after)
    if mid_conversation:
        assert prefix["wholePrevious"] is True
        assert [m["role"] for m in after[len(before) + 1 :]] == ["system", "user"]
        assert _text(after[len(before) + 1]) == update["renderedUpdate"]
    else:
        assert prefix["segments"] == 0 and prefix["brokenAt"]["kind"] == "system"
        cut = update["cache"]["firstDifference"]
        old, new = _text(before[0]), _text(after[0])
        assert old[:cut] == new[:cut] and old[cut] != new[cut]
        assert prefix["brokenAt"]["offset"] == cut
