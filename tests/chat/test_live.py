"""What a chat's Pi holds and where the files differ from it (``lsp_server/chat/live.py``), on real folders."""

from __future__ import annotations

import json
import time
from pathlib import Path

from lsp_server.chat.live import HeldContext, HeldRecord, find_drift, read_held, write_held
from lsp_server.context.trust_record import record_trust
from lsp_server.project.project import ProjectInputs, open_project
from lsp_server.project.prompt_state import PromptSnapshot, build_prompt


def build(tmp_path: Path) -> PromptSnapshot:
    env = {"HOME": str(tmp_path / "home"), "PATH": ""}
    inputs = ProjectInputs.create(str(tmp_path / "ws"), env=env, agent_dir=str(tmp_path / "agent"))
    return build_prompt(open_project(inputs))


def folder(tmp_path: Path) -> Path:
    for name in ("ws", "agent", "home"):
        (tmp_path / name).mkdir(exist_ok=True)
    (tmp_path / "ws" / "AGENTS.md").write_text("# Rules\nOne.\n", encoding="utf-8")
    (tmp_path / "agent" / "settings.json").write_text(json.dumps({"compaction": {"keepRecentTokens": 20000}}))
    return tmp_path


def test_nothing_differs_right_after_pi_read_the_files(tmp_path: Path) -> None:
    folder(tmp_path)
    held = HeldContext.taken(build(tmp_path), time.time())
    assert find_drift(held, build(tmp_path)) is None


def test_a_saved_context_file_is_named_with_its_section_and_the_reload_action(tmp_path: Path) -> None:
    folder(tmp_path)
    held = HeldContext.taken(build(tmp_path), time.time())
    (tmp_path / "ws" / "AGENTS.md").write_text("# Rules\nTwo.\n", encoding="utf-8")
    drift = find_drift(held, build(tmp_path))
    assert drift is not None
    assert (drift.files, drift.sections, drift.settings, drift.action) == (
        ("AGENTS.md",),
        ("project_context",),
        (),
        "reload",
    )
    assert drift.message == (
        "AGENTS.md changed since this Pi read its files, and Pi keeps what it read: Reload Pi to take the change "
        "up (it then records the changed prompt sections before its next request)."
    )


def test_a_changed_setting_is_named_by_its_key_and_a_skill_by_its_file(tmp_path: Path) -> None:
    folder(tmp_path)
    held = HeldContext.taken(build(tmp_path), time.time())
    (tmp_path / "agent" / "settings.json").write_text(json.dumps({"compaction": {"keepRecentTokens": 10}}))
    skill = tmp_path / "agent" / "skills" / "deploy" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("---\nname: deploy\ndescription: Deploys.\n---\nGo.\n", encoding="utf-8")
    drift = find_drift(held, build(tmp_path))
    assert drift is not None
    assert drift.settings == ("compaction.keepRecentTokens",) and drift.sections == ("skills",)
    assert str(skill) in drift.files
    assert "Pi's settings (compaction.keepRecentTokens)" in drift.message


def test_a_trust_decision_saved_after_start_needs_a_new_pi(tmp_path: Path) -> None:
    folder(tmp_path)
    skill = tmp_path / "ws" / ".pi" / "skills" / "release" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("---\nname: release\ndescription: Releases.\n---\nGo.\n", encoding="utf-8")
    held = HeldContext.taken(build(tmp_path), time.time())
    assert not held.project.trusted  # RPC mode: no saved decision, ``ask`` treats the project as untrusted
    record_trust(str(tmp_path / "agent"), str(tmp_path / "ws"))
    drift = find_drift(held, build(tmp_path))
    assert drift is not None and drift.trust and drift.action == "restart" and drift.action_label == "Restart Pi"
    assert drift.message.startswith("The project is trusted now, but this Pi decided trust once, when it started")


def test_the_lens_counts_with_the_settings_pi_read_not_the_files_now(tmp_path: Path) -> None:
    folder(tmp_path)
    held = HeldContext.taken(build(tmp_path), time.time())
    (tmp_path / "agent" / "settings.json").write_text(json.dumps({"compaction": {"keepRecentTokens": 10}}))
    now = build(tmp_path)
    lens = held.lens(now.project.inputs)
    assert lens.pi_holds and lens.project.compaction_settings_for(None).keep_recent_tokens == 20000
    assert now.project.compaction_settings_for(None).keep_recent_tokens == 10


def test_the_record_for_the_next_server_gives_back_what_pi_read(tmp_path: Path) -> None:
    folder(tmp_path)
    held = HeldContext.taken(build(tmp_path), 1234.5)
    write_held(tmp_path, "k1", held)
    (tmp_path / "agent" / "settings.json").write_text(json.dumps({"compaction": {"keepRecentTokens": 10}}))
    (tmp_path / "ws" / "AGENTS.md").write_text("# Rules\nTwo.\n", encoding="utf-8")
    record = read_held(tmp_path, "k1")
    assert record is not None and record.read_at == 1234.5
    now = build(tmp_path)
    project = record.project(now.project)
    assert project.compaction_settings_for(None).keep_recent_tokens == 20000
    rebuilt = HeldContext(build_prompt(project), record.sections, record.read_at)
    drift = find_drift(rebuilt, now)
    assert drift is not None and drift.sections == ("project_context",)
    assert drift.settings == ("compaction.keepRecentTokens",)
    assert HeldRecord.from_json({"sections": "not a map"}) is None
    assert read_held(tmp_path, "missing") is None
