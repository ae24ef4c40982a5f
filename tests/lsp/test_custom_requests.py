"""The custom requests on a real workspace and real sessions: the numbers are the CLI's and the domain's."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from pygls.exceptions import JsonRpcInvalidParams

from lsp_server.budget.budget import BudgetConfig, prompt_budget
from lsp_server.budget.models import ModelWindows
from lsp_server.project.budget_answers import budget_result
from tests.lsp._custom import (
    EXAMPLE_SESSION,
    SESSION_CHANGED,
    domain_prompt,
    install_session,
    isolate,
    received,
    record,
)
from tests.lsp.conftest import Launch, Session, Workspace, plain, server_env


def make_workspace(workspace: Workspace) -> None:
    workspace.write("AGENTS.md", "# Rules\nKeep functions small.\n")
    workspace.write("packages/web/CLAUDE.md", "# Web\n")  # not on the cwd's ancestor chain
    skill = workspace.agent_dir / "skills" / "pdf-tools" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("---\nname: pdf-tools\ndescription: Extract text & tables from PDF files.\n---\n# PDF\n")
    (workspace.agent_dir / "APPEND_SYSTEM.md").write_text("Answer in English.\n", encoding="utf-8")


def cli(workspace: Workspace, *args: str) -> Any:
    done = subprocess.run(
        [sys.executable, "-m", "lsp_server", *args, "--json"],
        cwd=workspace.root,
        env=server_env(workspace, debug=False),
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout)


async def request(session: Session, method: str, params: Any) -> Any:
    return plain(await session.client.protocol.send_request_async(method, params))


async def test_system_prompt_is_what_pi_context_prompt_prints(
    launch: Launch, workspace: Workspace, client_name: str
) -> None:
    make_workspace(workspace)
    session = await launch(client_name)
    result = await request(session, "pi/systemPrompt", {})
    expected = cli(workspace, "prompt")
    assert (result["cwd"], result["agentDir"], result["projectTrusted"]) == (
        expected["cwd"],
        expected["agentDir"],
        expected["projectTrusted"],
    )
    assert result["trustReason"] == expected["trustReason"]
    assert [
        (s["name"], s["text"], s["tokens"]["pi"], s["tokens"]["estimate"], [src["path"] for src in s["sources"]])
        for s in result["sections"]
    ] == [(s["name"], s["text"], s["piTokens"], s["tokens"], s["sources"]) for s in expected["sections"]]
    assert [s["position"] for s in result["sections"]] == list(range(len(expected["sections"])))
    assert result["total"] == {"pi": expected["total"]["piTokens"], "estimate": expected["total"]["tokens"]}
    text = subprocess.run(
        [sys.executable, "-m", "lsp_server", "prompt"],
        cwd=workspace.root,
        env=server_env(workspace, debug=False),
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert result["rendered"] + "\n" == text
    context = next(s for s in result["sections"] if s["name"] == "project_context")
    assert context["sources"] == [
        {
            "path": str(workspace.root / "AGENTS.md"),
            "kind": "context_file",
            "uri": workspace.uri(workspace.root / "AGENTS.md"),
        }
    ]
    assert result["estimator"]["name"] == "weighted"


async def test_system_prompt_reads_open_buffers(launch: Launch, workspace: Workspace) -> None:
    agents = workspace.write("AGENTS.md", "# Rules\n")
    session = await launch()
    session.open(agents, "# Rules\n")
    session.replace(agents, "# Rules\nUnsaved line.\n")
    result = await request(session, "pi/systemPrompt", {"workspaceFolder": workspace.uri(workspace.root)})
    context = next(s for s in result["sections"] if s["name"] == "project_context")
    assert "Unsaved line." in context["text"]


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"workspaceFolder": 5}, "pi/systemPrompt: workspaceFolder: Input should be a valid string"),
        ({"cwd": "relative/dir"}, "pi/systemPrompt: cwd must be an absolute path (got 'relative/dir')"),
        ({"unknown": 1}, "pi/systemPrompt: unknown: Extra inputs are not permitted"),
        ({"workspaceFolder": "file:///elsewhere"}, "pi/systemPrompt: file:///elsewhere is not a workspace folder"),
    ],
)
async def test_bad_params_are_invalid_params_with_a_clear_message(
    launch: Launch, workspace: Workspace, params: dict[str, Any], message: str
) -> None:
    session = await launch()
    with pytest.raises(JsonRpcInvalidParams) as caught:
        await request(session, "pi/systemPrompt", params)
    assert str(caught.value).startswith(message)


async def test_context_budget_of_the_prompt_alone_is_the_budget_domains(
    launch: Launch, workspace: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_workspace(workspace)
    isolate(monkeypatch, workspace)
    snapshot = domain_prompt(workspace)
    config = BudgetConfig(
        windows=ModelWindows.for_agent_dir(str(workspace.agent_dir)), pi_settings=snapshot.resources.settings.effective
    )
    expected = budget_result(prompt_budget(snapshot.prompt, config=config)).wire()
    session = await launch()
    assert await request(session, "pi/contextBudget", {}) == expected


async def test_context_budget_of_a_session_is_what_pi_context_session_prints(
    launch: Launch, workspace: Workspace, client_name: str
) -> None:
    make_workspace(workspace)
    path = install_session(workspace)
    session = await launch(client_name)
    result = await request(session, "pi/contextBudget", {"session": str(path)})
    expected = cli(workspace, "session", str(path))
    assert result == expected["budget"]
    assert result["systemOrigin"] == "session"
    assert sum(c["tokens"] for c in result["pi"]["categories"]) == result["window"] + result["pi"]["overflow"]


async def test_projected_request_is_what_pi_context_session_prints(launch: Launch, workspace: Workspace) -> None:
    make_workspace(workspace)
    path = install_session(workspace)
    session = await launch()
    result = await request(session, "pi/projectedRequest", {"session": str(path)})
    assert result == cli(workspace, "session", str(path))["request"]
    assert result["messages"][0]["role"] == "user"


async def test_a_leaf_gives_the_request_of_that_branch(launch: Launch, workspace: Workspace) -> None:
    path = install_session(workspace)
    session = await launch()
    result = await request(session, "pi/projectedRequest", {"session": str(path), "leafId": "4647f052"})
    assert result["leafId"] == "4647f052"
    assert result == cli(workspace, "session", str(path), "--leaf", "4647f052")["request"]


async def test_sessions_lists_the_folders_sessions_newest_first(launch: Launch, workspace: Workspace) -> None:
    older = install_session(workspace)
    newer = older.with_name("2025-07-01T00-00-00-000Z_0197300a-ffff-7e4d-9a3f-2c6b8d1e4f70.jsonl")
    newer.write_text(older.read_text(encoding="utf-8").replace("0197300a-5b1c", "0197300a-ffff", 1), encoding="utf-8")
    os.utime(older, (1_700_000_000, 1_700_000_000))
    session = await launch()
    result = await request(session, "pi/sessions", {})
    assert result["sessionsDir"] == str(older.parent)
    assert [s["path"] for s in result["sessions"]] == [str(newer), str(older)]
    first = result["sessions"][1]
    assert (first["id"], first["cwd"], first["created"], first["modified"]) == (
        "0197300a-5b1c-7e4d-9a3f-2c6b8d1e4f70",
        str(workspace.root),
        "2025-06-02T09:00:00.000Z",
        1_700_000_000,
    )
    assert first["size"] == older.stat().st_size
    assert first["entryCount"] == len(older.read_text(encoding="utf-8").splitlines()) - 1


async def test_session_tree_has_every_entry_the_leaf_and_its_path(launch: Launch, workspace: Workspace) -> None:
    path = install_session(workspace)
    entries = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()[1:]]
    session = await launch()
    result = await request(session, "pi/sessionTree", {"session": str(path)})
    assert result["leafId"] == entries[-1]["id"]
    assert sorted(node["id"] for node in result["nodes"]) == sorted(e["id"] for e in entries)
    by_id = {node["id"]: node for node in result["nodes"]}
    assert result["roots"] == ["8ec8d8bc"]
    assert sorted(by_id["9c947358"]["children"]) == ["3a147132", "e55ab1b4"]  # the branch point
    assert by_id["4647f052"]["onActivePath"] is False  # the abandoned branch
    assert by_id["e55ab1b4"]["onActivePath"] is True
    assert by_id["5f0aea68"]["role"] == "user" and by_id["5f0aea68"]["preview"]
    other = await request(session, "pi/sessionTree", {"session": str(path), "leafId": "4647f052"})
    assert {n["id"]: n["onActivePath"] for n in other["nodes"]}["4647f052"] is True


async def test_a_growing_session_is_read_from_where_it_stopped(launch: Launch, workspace: Workspace) -> None:
    path = install_session(workspace)
    session = await launch()
    before = await request(session, "pi/sessionTree", {"session": str(path)})
    line = {
        "type": "label",
        "id": "abcd0001",
        "parentId": before["leafId"],
        "timestamp": "2025-06-02T10:00:00.000Z",
        "targetId": "9c947358",
        "label": "before the cache",
    }
    with path.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(line) + "\n")
    after = await request(session, "pi/sessionTree", {"session": str(path)})
    assert after["leafId"] == "abcd0001"
    assert {n["id"]: n.get("label") for n in after["nodes"]}["9c947358"] == "before the cache"
    reads = plain(await session.command("pi.debug.sessions"))
    assert reads[str(path)] == "appended"


@pytest.mark.parametrize(
    ("method", "params", "message"),
    [
        (
            "pi/sessionTree",
            {"session": "/no/such/file.jsonl"},
            "pi/sessionTree: no such session file: /no/such/file.jsonl",
        ),
        ("pi/sessionTree", {}, "pi/sessionTree: session: Field required"),
        ("pi/projectedRequest", {"session": "relative.jsonl"}, "pi/projectedRequest: session must be an absolute path"),
        ("pi/contextBudget", {"session": "SESSION", "leafId": "nope"}, "pi/contextBudget: no entry with id 'nope'"),
        ("pi/sessionTree", {"session": "NOT_A_SESSION"}, "pi/sessionTree: Session file is not a valid pi session"),
    ],
)
async def test_bad_session_params_are_invalid_params(
    launch: Launch, workspace: Workspace, method: str, params: dict[str, Any], message: str
) -> None:
    path = install_session(workspace)
    junk = workspace.write("junk.jsonl", "not json\n")
    resolved = {k: str(path) if v == "SESSION" else str(junk) if v == "NOT_A_SESSION" else v for k, v in params.items()}
    session = await launch()
    with pytest.raises(JsonRpcInvalidParams) as caught:
        await request(session, method, resolved)
    assert str(caught.value).startswith(message)


async def test_a_session_that_appears_in_a_listed_folder_is_announced(
    launch: Launch, workspace: Workspace, tmp_path: Path
) -> None:
    """Pi starting a new session changes the list the client saw, also in a sessionDir outside the workspace."""
    elsewhere = tmp_path / "elsewhere-sessions"
    elsewhere.mkdir()
    (workspace.agent_dir / "settings.json").write_text(json.dumps({"sessionDir": str(elsewhere)}), encoding="utf-8")
    session = await launch()
    record(session, SESSION_CHANGED)
    listed = await request(session, "pi/sessions", {})
    assert listed["sessionsDir"] == str(elsewhere) and listed["sessions"] == []
    new = elsewhere / "2025-07-01T00-00-00-000Z_0197300a-ffff-7e4d-9a3f-2c6b8d1e4f70.jsonl"
    header, *rest = EXAMPLE_SESSION.read_text(encoding="utf-8").splitlines(keepends=True)
    mine = {**json.loads(header), "cwd": str(workspace.root)}  # a shared folder lists this cwd's sessions
    new.write_text(json.dumps(mine) + "\n" + "".join(rest), encoding="utf-8")
    await session.wait_for(
        SESSION_CHANGED, lambda: any(p["session"] == str(new) for p in received(session, SESSION_CHANGED))
    )
    after = await request(session, "pi/sessions", {})
    assert [s["path"] for s in after["sessions"]] == [str(new)]
