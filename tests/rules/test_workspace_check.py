"""The workspace check: discovery, Pi's collisions, and single-file re-checks through the index."""

from __future__ import annotations

import os
from pathlib import Path

from lsp_server.checks import (
    CheckOptions,
    SkillIndex,
    WorkspaceChecker,
    check_workspace,
    find_targets,
    placement_for,
    recheck_skill,
)
from lsp_server.settings.pi_context import PiContextSettings


def skill(path: Path, name: str, description: str = "d") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\nname: {name}\ndescription: {description}\n---\n", encoding="utf-8")
    return path


def test_pi_skills_win_over_agents_skills_of_the_same_project(tmp_path: Path) -> None:
    skill(tmp_path / ".pi" / "skills" / "a" / "SKILL.md", "dup")
    loser = skill(tmp_path / ".agents" / "skills" / "a" / "SKILL.md", "dup")
    findings = check_workspace([str(tmp_path)]).findings
    assert [(f.path, f.code, f.message) for f in findings] == [(str(loser), "skill/collision", 'name "dup" collision')]


def test_collisions_are_per_project(tmp_path: Path) -> None:
    skill(tmp_path / "p1" / ".pi" / "skills" / "a" / "SKILL.md", "dup")
    skill(tmp_path / "p2" / ".pi" / "skills" / "a" / "SKILL.md", "dup")
    assert check_workspace([str(tmp_path)]).findings == []


def test_walk_order_decides_the_winner_within_a_folder(tmp_path: Path) -> None:
    skill(tmp_path / "skills" / "b" / "SKILL.md", "dup")
    skill(tmp_path / "skills" / "B" / "SKILL.md", "dup")
    findings = check_workspace([str(tmp_path)]).findings
    assert [os.path.basename(os.path.dirname(f.path)) for f in findings] == ["b"]  # "B" sorts first


def test_git_and_node_modules_are_skipped_and_loops_end(tmp_path: Path) -> None:
    skill(tmp_path / ".git" / "x" / "SKILL.md", "x")
    skill(tmp_path / "node_modules" / "x" / "SKILL.md", "x")
    skill(tmp_path / "ok" / "SKILL.md", "ok")
    os.symlink(tmp_path, tmp_path / "ok" / "loop")
    assert [p for p, _ in find_targets([str(tmp_path)]).skills] == [str(tmp_path / "ok" / "SKILL.md")]


def test_loose_candidates_follow_pis_auto_discovery(tmp_path: Path) -> None:
    (tmp_path / ".pi" / "skills" / "sub").mkdir(parents=True)
    (tmp_path / ".pi" / "skills" / "top.md").write_text("x")
    (tmp_path / ".pi" / "skills" / "sub" / "deep.md").write_text("x")
    (tmp_path / ".agents" / "skills" / "g").mkdir(parents=True)
    (tmp_path / ".agents" / "skills" / "root.md").write_text("x")
    (tmp_path / ".agents" / "skills" / "g" / "notes.md").write_text("x")
    found = sorted(os.path.relpath(p, tmp_path) for p, _ in find_targets([str(tmp_path)]).skills)
    assert found == [".agents/skills/g/notes.md", ".pi/skills/top.md"]


def test_context_files_are_found_and_checked(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("")
    (tmp_path / "CLAUDE.md").write_text("c")
    report = check_workspace([str(tmp_path)])
    assert sorted(f.code for f in report.findings) == ["context/empty", "context/shadowed"]
    assert report.context_files_checked == 2


def test_rechecking_one_file_updates_the_collision_on_the_other(tmp_path: Path) -> None:
    first = skill(tmp_path / ".pi" / "skills" / "a" / "SKILL.md", "dup")
    second = skill(tmp_path / ".pi" / "skills" / "b" / "SKILL.md", "dup")
    index = SkillIndex("pi")
    recheck_skill(index, str(first), first.read_text())
    changed = recheck_skill(index, str(second), second.read_text())
    assert [f.code for f in changed[str(second)]] == ["skill/collision"]
    changed = recheck_skill(index, str(first), "---\nname: renamed\ndescription: d\n---\n")
    assert changed[str(second)] == [] and changed[str(first)] == []


def test_placement_is_a_function_of_the_path(tmp_path: Path) -> None:
    pi = placement_for(str(tmp_path / ".pi" / "skills" / "a" / "SKILL.md"))
    agents = placement_for(str(tmp_path / ".agents" / "skills" / "a" / "SKILL.md"))
    assert pi.group == agents.group == str(tmp_path) and pi.order < agents.order


def test_the_server_checker_uses_the_profile_setting(tmp_path: Path) -> None:
    def Settings() -> CheckOptions:
        return PiContextSettings(rule_profile="agentskills").check_options()

    checker = WorkspaceChecker()
    path = str(tmp_path / "x" / "SKILL.md")
    assert checker.wants(path, Settings())
    findings = checker.check(path, "---\ndescription: d\n---\n", Settings())
    assert "skill/name-missing" in [f.code for f in findings]
    assert checker.check(path, None, Settings()) == []
