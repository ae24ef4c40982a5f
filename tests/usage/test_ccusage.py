"""``pi-context usage`` next to ccusage's Pi adapter (``@ccusage/pi``) on the same folders.

Where both count the same thing they agree to the token and the cent: Pi's fixture sessions (937
replies) and the real Pi's forks and clones (ccusage drops a copy by the entry's timestamp and token
total, we by the entry's id and timestamp: both count 5 replies where the files hold 10). Where they
differ, the test says by how much and proves why from the raw lines (docs/usage.md, "ccusage"):

* **days**: ccusage dates a reply by its entry's ``timestamp`` (when Pi wrote it), we by the request's
  start (the message's ``timestamp``, as the turn ledger): a reply whose request started before
  midnight and ended after lands on different days;
* **what is a request**: ccusage counts assistant messages only; we count Pi's cache-warming requests
  (``usage`` entries) and the summary calls of compactions and branch summaries too;
* **cost**: ccusage takes the recorded ``usage.cost.total`` or 0; for a reply without a recorded cost we
  apply the model's prices (models.json, Pi's catalog) or count it as unknown.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import os
import subprocess
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from tests.support.ccusage import Ccusage, require_ccusage
from tests.usage._folders import forks_folder, lines, pi_fixture_folder


@pytest.fixture(scope="module")
def ccusage() -> Ccusage:
    return require_ccusage()


def ours(sessions: Path, *args: str, agent: Path | None = None) -> dict[str, Any]:
    command = [sys.executable, "-m", "lsp_server", "usage", str(sessions), "--json", "--no-cache", "--timezone", "UTC"]
    if agent is not None:
        command += ["--agent-dir", str(agent)]
    env = {key: value for key, value in os.environ.items() if not key.startswith("PI_")}
    env["PI_PACKAGE_DIR"] = str(sessions / "no-pi-here")  # no catalog: the prices are models.json's or none
    done = subprocess.run([*command, *args], capture_output=True, text=True, check=True, env=env)
    return json.loads(done.stdout)


def same_totals(mine: dict[str, Any], theirs: dict[str, Any]) -> None:
    assert mine["input"] == theirs["inputTokens"]
    assert mine["output"] == theirs["outputTokens"]
    assert mine["cacheRead"] == theirs["cacheReadTokens"]
    assert mine["cacheWrite"] == theirs["cacheCreationTokens"]
    assert math.isclose(mine["cost"], theirs["totalCost"], rel_tol=1e-12, abs_tol=1e-15)


def utc_day(ms: float) -> str:
    return dt.datetime.fromtimestamp(ms / 1000, dt.UTC).date().isoformat()


def test_pis_fixture_sessions_give_the_same_totals_and_days_up_to_replies_across_midnight(
    tmp_path: Path, ccusage: Ccusage
) -> None:
    folder = pi_fixture_folder(tmp_path)
    mine = ours(folder)
    theirs = ccusage.json("daily", folder, "--timezone", "UTC")
    same_totals(mine["totals"], theirs["totals"])
    assert mine["totals"]["turns"] == mine["totals"]["requests"] == 937
    # Day by day: move each reply that started on one day and was written on the next to the day
    # ccusage gives it; then every day is equal.
    moved: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    crossing = 0
    for path in folder.rglob("*.jsonl"):
        for line in lines(path):
            message = line.get("message") or {}
            if message.get("role") != "assistant":
                continue
            started = utc_day(message["timestamp"])
            written = dt.datetime.fromisoformat(line["timestamp"].replace("Z", "+00:00")).date().isoformat()
            if started != written:
                crossing += 1
                for key in ("input", "output", "cacheRead", "cacheWrite"):
                    moved[started][key] -= message["usage"][key]
                    moved[written][key] += message["usage"][key]
    assert crossing >= 1  # the fixtures hold such a reply (2025-12-08/09): the one place the days differ
    days = {group["key"]: dict(group) for group in mine["groups"]}
    for day, change in moved.items():
        for key, amount in change.items():
            days.setdefault(day, defaultdict(float))[key] += amount
    for day in theirs["daily"]:
        assert days[day["date"]]["input"] == day["inputTokens"]
        assert days[day["date"]]["output"] == day["outputTokens"]
        assert days[day["date"]]["cacheRead"] == day["cacheReadTokens"]
        assert days[day["date"]]["cacheWrite"] == day["cacheCreationTokens"]


def test_forks_and_clones_are_counted_once_by_both(tmp_path: Path, ccusage: Ccusage) -> None:
    sessions, files, agent = forks_folder(tmp_path)
    mine = ours(sessions, agent=agent)
    theirs = ccusage.json("daily", sessions, "--timezone", "UTC")
    same_totals(mine["totals"], theirs["totals"])
    assert mine["totals"]["turns"] == 5
    replies_in_files = sum(
        1
        for path in files.values()
        for e in lines(path)
        if e.get("type") == "message" and e["message"]["role"] == "assistant"
    )
    assert replies_in_files == 10
    sessions_report = ccusage.json("session", sessions, "--timezone", "UTC")["sessions"]
    assert sum(session["inputTokens"] for session in sessions_report) == mine["totals"]["input"]


def test_what_only_pi_context_counts_is_exactly_the_difference(tmp_path: Path, ccusage: Ccusage) -> None:
    sessions, files, agent = forks_folder(tmp_path)
    path = files["a"]
    last = lines(path)[-1]["id"]

    def cost(total: float) -> dict[str, float]:
        return {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": total}

    warm = {
        "type": "usage",
        "id": "warm0001",
        "parentId": last,
        "timestamp": "2026-12-06T03:00:00.000Z",
        "kind": "cache_warm",
        "provider": "fake",
        "model": "fake-1",
        "usage": {
            "input": 0,
            "output": 1,
            "cacheRead": 1100,
            "cacheWrite": 0,
            "totalTokens": 1101,
            "cost": cost(0.00035),
        },
    }
    unpriced = {
        "type": "message",
        "id": "late0001",
        "parentId": "warm0001",
        "timestamp": "2026-12-06T03:00:05.000Z",
        "message": {
            "role": "assistant",
            "content": [{"type": "text", "text": "no cost recorded"}],
            "api": "openai-completions",
            "provider": "fake",
            "model": "fake-1",
            "usage": {"input": 100, "output": 10, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 110},
            "stopReason": "stop",
            "timestamp": 1796439604000,
        },
    }
    compaction = {
        "type": "compaction",
        "id": "comp0001",
        "parentId": "late0001",
        "timestamp": "2026-12-06T03:01:00.000Z",
        "summary": "s",
        "firstKeptEntryId": "late0001",
        "tokensBefore": 1200,
        "usage": {
            "input": 900,
            "output": 50,
            "cacheRead": 0,
            "cacheWrite": 0,
            "totalTokens": 950,
            "cost": cost(0.00345),
        },
    }
    with path.open("a", encoding="utf-8") as handle:
        for entry in (warm, unpriced, compaction):
            handle.write(json.dumps(entry) + "\n")
    mine = ours(sessions, agent=agent)["totals"]
    theirs = ccusage.json("daily", sessions, "--timezone", "UTC")["totals"]
    assert mine["requests"] - mine["turns"] == 2  # the cache warm and the summary call: not replies
    assert mine["input"] - theirs["inputTokens"] == 900  # the summary call's input (the warm request read 0)
    assert mine["cacheRead"] - theirs["cacheReadTokens"] == 1100
    assert mine["output"] - theirs["outputTokens"] == 1 + 50
    priced = (100 * 3 + 10 * 15) / 1_000_000  # models.json's rates ($3 in, $15 out per million)
    assert math.isclose(mine["cost"] - theirs["totalCost"], 0.00035 + 0.00345 + priced, rel_tol=1e-9)
