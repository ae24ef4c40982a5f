"""``pi/usage`` from the real server over stdio: ``pi-context usage --json``, kept current as Pi appends."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pygls.exceptions import JsonRpcInvalidParams

from tests.lsp.conftest import Launch, Workspace
from tests.lsp.test_custom_requests import cli, request
from tests.usage._folders import appended_turn, forks_folder

SAME = ("by", "since", "until", "totals", "groups", "sessions", "skipped")


def comparable(answer: dict[str, Any]) -> dict[str, Any]:
    return {key: answer[key] for key in SAME}


@pytest.mark.parametrize("by", ["day", "model", "session"])
async def test_usage_is_what_pi_context_usage_prints(launch: Launch, workspace: Workspace, by: str) -> None:
    sessions, _files, _agent = forks_folder(workspace.root, workspace.agent_dir)
    session = await launch()
    result = await request(session, "pi/usage", {"by": by, "timeZone": "UTC"})
    expected = cli(workspace, "usage", "--by", by, "--timezone", "UTC", "--no-cache")
    assert comparable(result) == comparable(expected)
    assert result["roots"] == [str(sessions)] == expected["roots"]
    assert result["totals"]["turns"] == 5 and result["timeZone"] == "UTC"
    assert sum(day["requests"] for day in result["days"]) == result["totals"]["requests"]


async def test_the_next_answer_reads_only_what_pi_appended(launch: Launch, workspace: Workspace) -> None:
    _sessions, files, _agent = forks_folder(workspace.root, workspace.agent_dir)
    session = await launch()
    first = await request(session, "pi/usage", {"timeZone": "UTC"})
    assert first["scan"]["loaded"] == 4
    again = await request(session, "pi/usage", {"timeZone": "UTC"})
    assert (again["scan"]["unchanged"], again["scan"]["bytesRead"]) == (4, 0)
    added = appended_turn(files["d"], 1)
    with files["d"].open("a", encoding="utf-8") as handle:
        handle.write(added)
    after = await request(session, "pi/usage", {"timeZone": "UTC", "by": "model"})
    assert (after["scan"]["appended"], after["scan"]["unchanged"]) == (1, 3)
    assert after["totals"]["turns"] == first["totals"]["turns"] + 1
    assert after["totals"]["input"] == first["totals"]["input"] + json.loads(added)["message"]["usage"]["input"]


async def test_folders_and_days_can_be_asked_for(launch: Launch, workspace: Workspace) -> None:
    _sessions, files, _agent = forks_folder(workspace.root, workspace.agent_dir)
    session = await launch()
    only = await request(session, "pi/usage", {"folders": [workspace.uri(files["b"])], "timeZone": "UTC"})
    assert [s["path"] for s in only["sessions"]] == [str(files["b"])] and only["totals"]["turns"] == 1
    day = only["days"][0]["key"]
    ranged = await request(session, "pi/usage", {"since": day, "until": day, "timeZone": "UTC"})
    assert ranged["totals"]["turns"] == 5 and (ranged["since"], ranged["until"]) == (day, day)
    nothing = await request(session, "pi/usage", {"until": "2000-01-01"})
    assert nothing["totals"]["requests"] == 0 and nothing["groups"] == [] and nothing["sessions"] == []


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"since": "not a day"}, "not a day"),
        ({"since": "2025-02-02", "until": "2025-02-01"}, "is after until"),
        ({"timeZone": "Mars/Olympus"}, "unknown time zone"),
        ({"by": "hour"}, "by"),
        ({"folders": ["relative/path"]}, "not an absolute path"),
    ],
)
async def test_bad_params_are_invalid_params(
    launch: Launch, workspace: Workspace, params: dict[str, Any], message: str
) -> None:
    session = await launch()
    with pytest.raises(JsonRpcInvalidParams, match=message):
        await request(session, "pi/usage", params)
