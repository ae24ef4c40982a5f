"""Costs through the real Pi: its recorded usage and cost, and the cached prefix of its next request.

The fake model reports usage with cache reads; Pi prices each reply with pi-ai's ``calculateCost`` at
the models.json rates and writes it into the session. The ledger read from that file must give
Pi's numbers, and the prefix predicted for each request must be what the fake model saw: the
longest common prefix of two consecutive recorded requests.

The session Pi wrote is kept as a golden (``tests/cost/golden/real-pi.session.jsonl`` with the agent's
``real-pi.models.json`` and the ledger read from it, ``real-pi.ledger.json``), checked without Pi by
``tests/cost/test_ledger.py``. Each run here compares its fresh ledger with that golden (everything but
the ids and instants Pi draws anew); ``PI_CONTEXT_REGEN=1`` records a new golden, with Pi's own prose
in its system message replaced by stand-ins of the same length (``tests/support/pi_prose.py``), so the
golden keeps every number and none of Pi's text.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from lsp_server.budget.models import read_models_json
from lsp_server.cost.ledger import build_ledger
from lsp_server.cost.next_request import price_next_request, request_segments
from lsp_server.cost.prices import PriceCatalog
from lsp_server.js.values import js_get
from lsp_server.session.projection import build_session_projection
from lsp_server.session.tail import load_session
from lsp_server.session.tree import build_path
from lsp_server.tokens.pi import pi_text_tokens
from tests.pi_rpc.conftest import RealPi, settled
from tests.support.fake_llm_server import ScriptedResponse
from tests.support.pi_agent import write_agent_dir
from tests.support.pi_prose import scrub_json_text

pytestmark = pytest.mark.pi

GOLDEN = Path(__file__).resolve().parents[1] / "cost" / "golden"

RATES = {"input": 3, "output": 15, "cacheRead": 0.3, "cacheWrite": 3.75}


VARIES = frozenset({"entryId", "timestamp", "sincePreviousMs", "leafId"})


def drawn_anew(value: Any) -> Any:
    """The ledger without what Pi draws anew on each run: entry ids, instants and the gaps between them."""
    if isinstance(value, dict):
        return {key: drawn_anew(item) for key, item in value.items() if key not in VARIES}
    if isinstance(value, list):
        return [drawn_anew(item) for item in value]
    return value


def common_messages(first: list[Any], second: list[Any]) -> int:
    count = 0
    while count < min(len(first), len(second)) and first[count] == second[count]:
        count += 1
    return count


async def test_pis_recorded_costs_and_the_predicted_prefixes_match_what_the_model_saw(real_pi: RealPi) -> None:
    write_agent_dir(
        real_pi.agent.path,
        real_pi.model.openai_base_url,
        model_fields={"cost": RATES, "promptCache": {"short": 300}},
    )
    (real_pi.workspace / "notes.txt").write_text("line one\nline two\n", encoding="utf-8")
    real_pi.model.enqueue(
        ScriptedResponse(
            tool_calls=[{"name": "read", "arguments": {"path": "notes.txt"}, "id": "call_r1"}],
            finish="tool",
            usage={"input": 1200, "output": 30, "cacheRead": 0},
        ),
        ScriptedResponse(text="Two lines.", usage={"input": 80, "output": 7, "cacheRead": 1152}),
        ScriptedResponse(text="Done.", usage={"input": 40, "output": 3, "cacheRead": 1280}),
    )
    chat = await real_pi.start()
    for text in ("Read notes.txt", "Anything else?"):
        since = chat.log.mark()
        await chat.process.prompt(text)
        await settled(chat.log, since)
    path = Path((await chat.process.get_state())["sessionFile"])
    session = load_session(path)
    branch = build_path(session.entries, by_id=session.index.by_id)
    prices = PriceCatalog(models_json=read_models_json(str(real_pi.agent.path)))

    ledger = build_ledger(branch, prices.prices_for).to_json()
    if os.environ.get("PI_CONTEXT_REGEN"):
        recorded = scrub_json_text(path.read_text(encoding="utf-8"), lines=True)
        (GOLDEN / "real-pi.session.jsonl").write_text(recorded, encoding="utf-8")
        shutil.copyfile(real_pi.agent.path / "models.json", GOLDEN / "real-pi.models.json")
        (GOLDEN / "real-pi.ledger.json").write_text(json.dumps(ledger, indent=1) + "\n", encoding="utf-8")
    golden = json.loads((GOLDEN / "real-pi.ledger.json").read_text(encoding="utf-8"))
    assert drawn_anew(ledger) == drawn_anew(golden)
    turns = ledger["turns"]
    assert [(t["input"], t["cacheRead"], t["output"]) for t in turns] == [(1200, 0, 30), (80, 1152, 7), (40, 1280, 3)]
    assert all(t["costSource"] == "recorded" and t["cost"] > 0 for t in turns)
    assert [t["cost"] for t in turns] == [t["computedCost"] for t in turns]  # Pi's arithmetic is ours
    assert ledger["prices"][0]["priceSource"] == "models.json"

    recorded = [request.body["messages"] for request in real_pi.model.requests]
    assert len(recorded) == 3
    replies = [i for i, e in enumerate(branch) if js_get(js_get(e, "message"), "role") == "assistant"]
    for number in (1, 2):
        at = replies[number] - 1  # the entry the reply answered: the request's last message
        upto = branch[: at + 1]
        projection = build_session_projection(upto, js_get(branch[at], "id"), {js_get(e, "id"): e for e in upto})
        predicted = price_next_request(upto, projection, prices.prices_for, pi_text_tokens)
        assert predicted.prefix is not None
        assert predicted.prefix.next_segments == len(recorded[number])
        assert predicted.prefix.previous_segments == len(recorded[number - 1])
        assert predicted.prefix.segments == common_messages(recorded[number - 1], recorded[number])
        assert predicted.prefix.whole_previous
        segments = request_segments(projection, mid_conversation_system=False)
        assert segments[0].text == recorded[number][0]["content"]  # the system prompt, byte for byte
        # The cache holds what the previous request was billed for (the fake API reports no writes).
        previous_prompt = turns[number - 1]["input"] + turns[number - 1]["cacheRead"]
        assert predicted.warm.cache_read == previous_prompt
