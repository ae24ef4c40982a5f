"""Usage across sessions that the real Pi forked and cloned: each paid request counted once.

Pi 1.6.0 answers two prompts (session A), clones A (session B: A's branch copied, same entry ids and
timestamps, header ``parentSession`` = A) and answers one more there, forks B at its second prompt
(session C: A's first turn copied again, ``parentSession`` = B) and answers one more, and a second Pi
started with ``--fork A`` copies all of A (session D) and answers one more. Ten assistant replies
are in the files; five requests were paid. ``pi-context usage`` must count five, each in the session
that made it, and its totals must be the per-session ledgers of what each session added.

The folder is kept as a fixture (``tests/usage/fixtures/real-pi-forks/``, Pi's prose in the system
messages replaced by stand-ins, ``parentSession`` paths written relative to ``@SESSIONS@``) for the
tests that run without Pi (``tests/usage/``, the ccusage comparison); ``PI_CONTEXT_REGEN=1`` records it
again.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from lsp_server.budget.models import read_models_json
from lsp_server.cost.ledger import build_ledger
from lsp_server.cost.prices import PriceCatalog
from lsp_server.session.tail import load_session
from lsp_server.session.tree import build_path
from tests.pi_rpc.conftest import RealPi, Started, settled
from tests.support.fake_llm_server import ScriptedResponse
from tests.support.pi_agent import write_agent_dir
from tests.support.pi_prose import scrub_json_text

pytestmark = pytest.mark.pi

FIXTURE = Path(__file__).resolve().parents[1] / "usage" / "fixtures" / "real-pi-forks"
SESSIONS_PLACEHOLDER = "@SESSIONS@"
RATES = {"input": 3, "output": 15, "cacheRead": 0.3, "cacheWrite": 3.75}


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


async def turn(chat: Started, text: str) -> None:
    since = chat.log.mark()
    assert await chat.process.prompt(text) == "started"
    await settled(chat.log, since)


async def session_file(chat: Started) -> Path:
    return Path((await chat.process.get_state())["sessionFile"])


def usage_json(*args: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-m", "lsp_server", "usage", *args, "--json", "--no-cache", "--timezone", "UTC"],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout)


def assistant_ids(path: Path) -> list[str]:
    return [e["id"] for e in lines(path) if e.get("type") == "message" and e["message"]["role"] == "assistant"]


async def test_forks_and_clones_of_the_real_pi_count_each_paid_request_once(real_pi: RealPi) -> None:
    write_agent_dir(real_pi.agent.path, real_pi.model.openai_base_url, model_fields={"cost": RATES})
    real_pi.model.enqueue(
        ScriptedResponse(text="one", usage={"input": 1000, "output": 10, "cacheRead": 0}),
        ScriptedResponse(text="two", usage={"input": 60, "output": 20, "cacheRead": 1000}),
        ScriptedResponse(text="three (in the clone)", usage={"input": 70, "output": 30, "cacheRead": 1060}),
        ScriptedResponse(text="four (in the fork)", usage={"input": 80, "output": 40, "cacheRead": 1000}),
        ScriptedResponse(text="five (pi --fork)", usage={"input": 90, "output": 50, "cacheRead": 1080}),
    )
    chat = await real_pi.start()
    await turn(chat, "first question")
    await turn(chat, "second question")
    a = await session_file(chat)
    assert (await chat.process.clone())["cancelled"] is False
    b = await session_file(chat)
    await turn(chat, "third question, in the clone")
    choices = await chat.process.get_fork_messages()
    assert [c["text"] for c in choices][:2] == ["first question", "second question"]
    await chat.process.fork(choices[1]["entryId"])
    c = await session_file(chat)
    await turn(chat, "another second question, in the fork")
    await chat.process.close()
    other = await real_pi.start(extra_args=["--fork", str(a)])
    d = await session_file(other)
    await turn(other, "a question in the --fork copy")
    await other.process.close()

    assert len({a, b, c, d}) == 4
    heads = {path: lines(path)[0] for path in (a, b, c, d)}
    assert "parentSession" not in heads[a]
    assert (heads[b]["parentSession"], heads[c]["parentSession"], heads[d]["parentSession"]) == (str(a), str(b), str(a))
    # What Pi copied: the same assistant entries (id and timestamp) in the copies.
    a_ids = assistant_ids(a)
    assert assistant_ids(b)[:2] == a_ids and assistant_ids(c)[:1] == a_ids[:1] and assistant_ids(d)[:2] == a_ids
    copied = {e["id"]: e for e in lines(a)}
    for path in (b, c, d):
        for entry in lines(path)[1:]:
            if entry["id"] in copied and entry.get("type") == "message":
                assert entry["timestamp"] == copied[entry["id"]]["timestamp"]
                assert entry["message"] == copied[entry["id"]]["message"]

    report = usage_json(str(real_pi.agent.sessions), "--agent-dir", str(real_pi.agent.path))
    per_session = {session["path"]: session for session in report["sessions"]}
    assert {path: per_session[str(path)]["turns"] for path in (a, b, c, d)} == {a: 2, b: 1, c: 1, d: 1}
    assert {path: per_session[str(path)]["sharedRequests"] for path in (a, b, c, d)} == {a: 0, b: 2, c: 1, d: 2}
    assert report["totals"]["turns"] == 5 and report["totals"]["requests"] == 5
    naive = sum(len(assistant_ids(path)) for path in (a, b, c, d))
    assert naive == 10
    # The totals are what each session added, by its own ledger: A whole, the copies' own replies.
    prices = PriceCatalog(models_json=read_models_json(str(real_pi.agent.path)))
    expected_input = expected_cost = 0.0
    for path in (a, b, c, d):
        session = load_session(path)
        own = [e for e in session.entries if not (path != a and e.get("id") in copied)]
        if path == c:  # C copied A's first turn through B
            own = [e for e in session.entries if e.get("id") not in copied]
        ledger = build_ledger(build_path(own, by_id={e["id"]: e for e in own}), prices.prices_for, all_entries=own)
        expected_input += ledger.session_totals.input
        expected_cost += ledger.session_totals.cost
    assert report["totals"]["input"] == expected_input == 1000 + 60 + 70 + 80 + 90
    assert math.isclose(report["totals"]["cost"], expected_cost, rel_tol=1e-12)
    assert report["totals"]["unknownCost"] == 0

    if os.environ.get("PI_CONTEXT_REGEN"):
        record_fixture(real_pi, (a, b, c, d))


def record_fixture(real_pi: RealPi, paths: tuple[Path, ...]) -> None:
    """The four sessions, scrubbed of Pi's prose, with ``parentSession`` relative to the sessions folder."""
    if FIXTURE.exists():
        shutil.rmtree(FIXTURE)
    sessions = FIXTURE / "sessions"
    root = str(real_pi.agent.sessions)
    for path in paths:
        target = sessions / path.parent.name / path.name
        target.parent.mkdir(parents=True, exist_ok=True)
        text = scrub_json_text(path.read_text(encoding="utf-8"), lines=True)
        target.write_text(text.replace(json.dumps(root)[1:-1], SESSIONS_PLACEHOLDER), encoding="utf-8")
    shutil.copyfile(real_pi.agent.path / "models.json", FIXTURE / "models.json")
    names = {"a": paths[0], "b": paths[1], "c": paths[2], "d": paths[3]}
    index = {key: str(path.relative_to(real_pi.agent.sessions)) for key, path in names.items()}
    (FIXTURE / "index.json").write_text(json.dumps(index, indent=1) + "\n", encoding="utf-8")
