"""Debian's Neovim 0.7 drives the real server: sync, settings, watcher, commands."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.nvim.driver import run_plan

pytestmark = pytest.mark.e2e


def test_neovim_buffer_edits_and_disk_changes_reach_the_server(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "AGENTS.md").write_text("# Rules\n", encoding="utf-8")
    run = run_plan(
        tmp_path,
        root,
        init_options={"piContext": {"ruleProfile": "agentskills"}},
        settings={"piContext": {"tokens": {"modelFamily": "claude"}}},
        record=["pi/debug/watchEvents"],
        steps=[
            {"op": "open", "file": "AGENTS.md"},
            {"op": "command", "name": "pi.debug.state", "arguments": [{"watcherReady": True}]},
            {"op": "append", "file": "AGENTS.md", "lines": ["Typed in Neovim."]},
            {
                "op": "wait_command",
                "name": "pi.debug.read",
                "arguments": ["${uri:AGENTS.md}"],
                "field": "text",
                "contains": "Typed in Neovim.",
            },
            {"op": "write_disk", "file": ".pi/skills/demo/SKILL.md", "text": "---\nname: demo\n---\n"},
            {"op": "wait_notification", "method": "pi/debug/watchEvents", "contains": "SKILL.md"},
        ],
    )
    assert run.report["ok"], run.report
    assert run.returncode == 0
    state = run.step("command", "pi.debug.state")["result"]
    assert state["openDocuments"] == [str(root / "AGENTS.md")]
    assert state["settings"]["ruleProfile"] == "agentskills"  # from init_options
    read = run.step("wait_command", "pi.debug.read")["result"]
    assert read["fromBuffer"] is True
    assert read["text"] == "# Rules\nTyped in Neovim.\n"
    assert (root / "AGENTS.md").read_text(encoding="utf-8") == "# Rules\n"  # never saved
    assert any("pi-context 0.1.0" in m["message"] for m in run.report["log_messages"])


def test_neovim_settings_pushed_from_on_init_reach_the_server(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    run = run_plan(
        tmp_path,
        root,
        init_options={"piContext": {"ruleProfile": "agentskills"}},
        settings={"piContext": {"tokens": {"modelFamily": "claude"}}},
        steps=[
            {
                "op": "wait_command",
                "name": "pi.debug.state",
                "arguments": [{}],
                "field": "settings.tokens.modelFamily",
                "contains": "claude",
            },
        ],
    )
    assert run.report["ok"], run.report
    settings = run.step("wait_command")["result"]["settings"]
    assert (settings["ruleProfile"], settings["tokens"]["modelFamily"]) == ("agentskills", "claude")


def test_neovim_shows_the_diagnostics_of_a_broken_skill(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    skill = root / ".pi" / "skills" / "demo" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("---\nname: demo\n---\n# Demo\n", encoding="utf-8")
    run = run_plan(
        tmp_path,
        root,
        steps=[
            {"op": "open", "file": ".pi/skills/demo/SKILL.md"},
            {"op": "wait_diagnostics", "file": ".pi/skills/demo/SKILL.md", "min": 2},
            {"op": "append", "file": ".pi/skills/demo/SKILL.md", "lines": ["More text."]},
            {"op": "command", "name": "pi.debug.state", "arguments": [{"idle": True}]},
        ],
    )
    assert run.report["ok"], run.report
    diagnostics = run.step("wait_diagnostics")["result"]
    assert sorted(d["code"] for d in diagnostics) == ["skill/description-missing", "skill/not-loaded"]
    missing = next(d for d in diagnostics if d["code"] == "skill/description-missing")
    assert (missing["severity"], missing["message"], missing["source"]) == (2, "description is required", "pi-context")
    state = run.step("command", "pi.debug.state")["result"]
    assert state["stats"]["lastVersion"][str(skill)] > 0  # the edited buffer (opened as version 0) was re-checked


def test_neovim_prints_a_broken_skills_diagnostics_and_previews_a_compaction(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    skill = root / ".pi" / "skills" / "demo" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("---\nname: Demo_Skill\n---\n# Demo\n", encoding="utf-8")
    session = tmp_path / "session.jsonl"
    session.write_bytes(
        (Path(__file__).resolve().parents[3] / "examples" / "sessions" / "inventory-fix.jsonl").read_bytes()
    )
    original = session.read_bytes()
    run = run_plan(
        tmp_path,
        root,
        steps=[
            {"op": "open", "file": ".pi/skills/demo/SKILL.md"},
            {"op": "wait_diagnostics", "file": ".pi/skills/demo/SKILL.md", "min": 2},
            {"op": "command", "name": "pi.compact", "arguments": [{"session": str(session), "previewOnly": True}]},
            {"op": "request", "method": "pi/systemPrompt", "params": {}},
        ],
    )
    assert run.report["ok"], run.report
    diagnostics = run.step("wait_diagnostics")["result"]
    for diagnostic in diagnostics:  # what the real client received, for the test log (pytest -s)
        start = diagnostic["range"]["start"]
        print(f"SKILL.md:{start['line'] + 1}:{start['character'] + 1}: {diagnostic['code']}: {diagnostic['message']}")
    codes = sorted(d["code"] for d in diagnostics)
    assert "skill/description-missing" in codes and "skill/name-invalid-chars" in codes
    preview = run.step("command", "pi.compact")["result"]
    print(f"pi.compact preview ({preview['summarizer']}), first kept {preview['firstKeptEntryId']}:")
    print(preview["summary"][:400])
    assert (preview["written"], preview["previewOnly"]) == (False, True)
    assert preview["entry"]["type"] == "compaction" and preview["summary"]
    assert preview["sessionSize"] == len(original)
    assert session.read_bytes() == original
    prompt = run.step("request", "pi/systemPrompt")["result"]
    assert prompt["cwd"] == str(root)
