"""A folder's prompt: which changes can touch it, skills reuse, and Pi's patch with token deltas."""

from __future__ import annotations

from lsp_server.base import fsread
from lsp_server.project.prompt_state import (
    SkillCache,
    TokenPair,
    diff_snapshots,
    reader_with_buffers,
    touches_skills,
)
from tests.project.conftest import Project


def test_context_files_of_the_cwd_its_ancestors_and_the_agent_dir_affect_the_prompt(project: Project) -> None:
    snapshot = project.build()
    assert snapshot.affects(str(project.root / "AGENTS.md"))
    assert snapshot.affects(str(project.root.parent / "CLAUDE.md"))
    assert snapshot.affects(str(project.agent_dir / "AGENTS.override.md"))


def test_a_context_file_below_the_cwd_does_not_affect_it(project: Project) -> None:
    assert not project.build().affects(str(project.root / "docs" / "AGENTS.md"))


def test_anything_under_the_project_pi_folder_or_the_agent_dir_affects_it(project: Project) -> None:
    snapshot = project.build()
    for path in (".pi/SYSTEM.md", ".pi/settings.json", ".pi/skills/x/SKILL.md", ".pi"):
        assert snapshot.affects(str(project.root / path)), path
    assert snapshot.affects(str(project.agent_dir / "trust.json"))
    assert snapshot.affects(str(project.agent_dir / "skills" / "a" / "SKILL.md"))


def test_sessions_never_affect_the_prompt(project: Project) -> None:
    snapshot = project.build()
    assert not snapshot.affects(str(project.agent_dir / "sessions" / "--proj--" / "s.jsonl"))
    assert not snapshot.affects(str(project.agent_dir / "sessions"))


def test_skill_folders_named_in_settings_affect_the_prompt(project: Project) -> None:
    project.write("settings.json", '{"skills": ["~/my-skills", "/opt/team/*/skills"]}', base=project.agent_dir)
    snapshot = project.build()
    assert snapshot.affects(str(project.home / "my-skills" / "a" / "SKILL.md"))
    assert snapshot.affects(str(project.root.anchor + "opt/team/x/skills/SKILL.md"))
    assert not snapshot.affects(str(project.home / "notes" / "SKILL.md"))


def test_only_context_and_prompt_files_outside_skills_leave_the_skills_alone() -> None:
    assert not touches_skills(["/p/AGENTS.md", "/p/.pi/SYSTEM.md", "/a/APPEND_SYSTEM.md"])
    assert touches_skills(["/p/AGENTS.md", "/p/.pi/skills/x/SKILL.md"])
    assert touches_skills(["/p/.pi/skills/AGENTS.md"])  # a loose .md in a skills folder is a skill
    assert touches_skills(["/p/.pi/settings.json"])
    assert touches_skills([])  # an unknown change


def test_the_skill_cache_answers_the_same_request_without_walking_again(project: Project) -> None:
    project.write("skills/a/SKILL.md", "---\nname: a\ndescription: A.\n---\n", base=project.agent_dir)
    cache = SkillCache()
    first = project.build(cache)
    project.write("AGENTS.md", "# New\n")
    second = project.build(cache)
    assert (cache.misses, cache.hits) == (1, 1)
    assert second.resources.skills == first.resources.skills
    assert "project_context" in second.section_map()


def test_the_skill_cache_misses_when_trust_changes(project: Project) -> None:
    cache = SkillCache()
    project.build(cache, trust_override=True)
    project.build(cache, trust_override=False)
    assert cache.misses == 2


def test_an_unchanged_prompt_has_no_patch(project: Project) -> None:
    project.write("AGENTS.md", "# Rules\n")
    assert diff_snapshots(project.build(), project.build()) is None


def test_a_changed_section_comes_with_both_counters_before_and_after(project: Project) -> None:
    agents = project.write("AGENTS.md", "# Rules\n")
    before = project.build()
    agents.write_text("# Rules\nMore rules here.\n", encoding="utf-8")
    after = project.build()
    change = diff_snapshots(before, after, [str(agents)])
    assert change is not None
    (delta,) = change.deltas
    old, new = before.section("project_context"), after.section("project_context")
    assert old is not None and new is not None
    assert (delta.name, delta.status) == ("project_context", "changed")
    assert delta.before == TokenPair(old.pi_tokens, old.tokens)
    assert delta.after == TokenPair(new.pi_tokens, new.tokens)
    assert delta.delta == TokenPair(new.pi_tokens - old.pi_tokens, new.tokens - old.tokens)
    assert (change.total_before, change.total_after) == (before.total, after.total)
    assert change.trigger_paths == (str(agents),)
    assert change.rendered_update == f'Updated system prompt section "project_context":\n\n{new.text}'


def test_added_sections_come_before_removed_ones_in_the_patch(project: Project) -> None:
    agents = project.write("AGENTS.md", "# Rules\n")
    before = project.build()
    agents.unlink()
    project.write("APPEND_SYSTEM.md", "Be terse.\n", base=project.agent_dir)
    change = diff_snapshots(before, project.build())
    assert change is not None
    assert [(d.name, d.status) for d in change.deltas] == [("addendum", "added"), ("project_context", "removed")]
    assert change.patch["project_context"] is None
    assert change.deltas[1].after is None and change.deltas[0].before is None
    assert change.rendered_update.endswith('Removed system prompt section "project_context".')


def test_open_buffers_are_read_instead_of_the_disk(project: Project) -> None:
    agents = project.write("AGENTS.md", "on disk\n")
    read = reader_with_buffers({str(agents): "in the editor\n"})
    assert read(str(agents)).text == "in the editor\n"
    assert read(str(project.root / "other.md")).text is None
    assert fsread.read_text(str(agents)).text == "on disk\n"


def test_a_known_skill_whose_description_changed_is_re_read_in_place(project: Project) -> None:
    skill = project.write("skills/a/SKILL.md", "---\nname: a\ndescription: Old.\n---\n", base=project.agent_dir)
    cache = SkillCache()
    project.build(cache)
    skill.write_text("---\nname: a\ndescription: New.\n---\n", encoding="utf-8")
    assert cache.update_files([str(skill)])
    rebuilt = project.build(cache)
    assert (cache.misses, cache.updates) == (1, 1)
    assert rebuilt.resources.skills[0].description == "New."
    assert rebuilt.section_map() == project.build().section_map()  # what a full walk finds


def test_a_renamed_new_or_broken_skill_needs_a_new_walk(project: Project) -> None:
    skill = project.write("skills/a/SKILL.md", "---\nname: a\ndescription: A.\n---\n", base=project.agent_dir)
    cache = SkillCache()
    project.build(cache)
    skill.write_text("---\nname: b\ndescription: A.\n---\n", encoding="utf-8")
    assert not cache.update_files([str(skill)])  # the name decides collisions
    skill.write_text("---\nname: a\n---\n", encoding="utf-8")
    assert not cache.update_files([str(skill)])  # no longer loads
    assert not cache.update_files([str(project.agent_dir / "skills" / "new" / "SKILL.md")])
