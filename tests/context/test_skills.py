"""Pi's skill loading (pi-behavior.md §5.2, 5.3, 5.5) on real files; one rule per test.

Full answers are compared with Pi's in the ``load_skills`` conformance goldens; these tests
name the rules.
"""

from __future__ import annotations

import os
from pathlib import Path

from lsp_server.context.skills import load_skill_from_file, load_skills, load_skills_from_dir


def skill(path: Path, frontmatter: str, body: str = "body\n") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\n{frontmatter}\n---\n{body}", encoding="utf-8")
    return path


def messages(result: object) -> list[str]:
    return [d.message for d in result.diagnostics]  # type: ignore[attr-defined]


def test_missing_description_warns_and_drops_the_skill(tmp_path: Path) -> None:
    result = load_skill_from_file(str(skill(tmp_path / "s" / "SKILL.md", "name: s")), "path")
    assert result.skill is None and messages(result) == ["description is required"]


def test_blank_or_non_string_description_counts_as_missing(tmp_path: Path) -> None:
    for index, value in enumerate(["'  '", "1.0", "[a]"]):
        result = load_skill_from_file(str(skill(tmp_path / f"s{index}" / "SKILL.md", f"description: {value}")), "path")
        assert result.skill is None


def test_description_length_counts_utf16_units(tmp_path: Path) -> None:
    result = load_skill_from_file(str(skill(tmp_path / "s" / "SKILL.md", "description: " + "😀" * 513)), "path")
    assert result.skill is not None and messages(result) == ["description exceeds 1024 characters (1026)"]


def test_name_falls_back_to_the_folder(tmp_path: Path) -> None:
    result = load_skill_from_file(str(skill(tmp_path / "pdf-tools" / "SKILL.md", "description: d")), "path")
    assert result.skill is not None and result.skill.name == "pdf-tools"


def test_name_warnings_in_pis_order(tmp_path: Path) -> None:
    path = skill(tmp_path / "s" / "SKILL.md", "name: -Bad--Name" + "x" * 60 + "\ndescription: d")
    assert messages(load_skill_from_file(str(path), "path")) == [
        "name exceeds 64 characters (70)",
        "name contains invalid characters (must be lowercase a-z, 0-9, hyphens only)",
        "name must not start or end with a hyphen",
        "name must not contain consecutive hyphens",
    ]


def test_yaml_error_warns_only_for_skill_md(tmp_path: Path) -> None:
    declared = load_skill_from_file(str(skill(tmp_path / "a" / "SKILL.md", "description: [x")), "path")
    loose = load_skill_from_file(str(skill(tmp_path / "b.md", "description: [x")), "path")
    assert declared.diagnostics and declared.diagnostics[0].message.startswith("Flow sequence")
    assert loose.diagnostics == [] and loose.skill is None


def test_loose_md_without_description_is_skipped_silently(tmp_path: Path) -> None:
    result = load_skill_from_file(str(skill(tmp_path / "notes.md", "name: notes")), "path")
    assert result.skill is None and result.diagnostics == []


def test_disable_model_invocation_needs_the_boolean_true(tmp_path: Path) -> None:
    yes = load_skill_from_file(
        str(skill(tmp_path / "a" / "SKILL.md", "description: d\ndisable-model-invocation: yes")), "p"
    )
    true = load_skill_from_file(
        str(skill(tmp_path / "b" / "SKILL.md", "description: d\ndisable-model-invocation: True")), "p"
    )
    assert yes.skill is not None and not yes.skill.disable_model_invocation
    assert true.skill is not None and true.skill.disable_model_invocation


def test_skill_md_stops_descent(tmp_path: Path) -> None:
    skill(tmp_path / "a" / "SKILL.md", "description: outer")
    skill(tmp_path / "a" / "inner" / "SKILL.md", "description: inner")
    skill(tmp_path / "a" / "extra.md", "description: extra")
    result = load_skills_from_dir(str(tmp_path), "path")
    assert [s.description for s in result.skills] == ["outer"]


def test_dot_folders_and_node_modules_are_skipped(tmp_path: Path) -> None:
    skill(tmp_path / ".hidden" / "SKILL.md", "description: x")
    skill(tmp_path / "node_modules" / "p" / "SKILL.md", "description: x")
    assert load_skills_from_dir(str(tmp_path), "path").skills == []


def test_loose_md_files_count_only_at_the_walk_root(tmp_path: Path) -> None:
    skill(tmp_path / "top.md", "description: top")
    skill(tmp_path / "sub" / "nested.md", "description: nested")
    assert [s.description for s in load_skills_from_dir(str(tmp_path), "path").skills] == ["top"]


def test_walk_order_is_nodes_byte_order(tmp_path: Path) -> None:
    for name in ("b", "B", "a-1", "a"):
        skill(tmp_path / name / "SKILL.md", "description: d")
    assert [s.name for s in load_skills_from_dir(str(tmp_path), "path").skills] == ["B", "a", "a-1", "b"]


def test_gitignored_skills_are_skipped(tmp_path: Path) -> None:
    (tmp_path / ".gitignore").write_text("drafts/\n")
    skill(tmp_path / "drafts" / "SKILL.md", "description: x")
    assert load_skills_from_dir(str(tmp_path), "path").skills == []


def test_broken_symlinks_and_loops_are_skipped(tmp_path: Path) -> None:
    skill(tmp_path / "ok" / "SKILL.md", "description: ok")
    os.symlink(tmp_path / "nowhere", tmp_path / "gone")
    os.symlink(tmp_path / "y", tmp_path / "x")
    os.symlink(tmp_path / "x", tmp_path / "y")
    assert [s.name for s in load_skills_from_dir(str(tmp_path), "path").skills] == ["ok"]


def test_a_symlink_to_an_ancestor_is_not_followed_and_says_so(tmp_path: Path) -> None:
    """Pi walks such a link until ELOOP (41 copies of each skill, de-duplicated by real path in
    loadSkills, so the same skills in the end); we stop at the link with a warning naming it."""
    skill(tmp_path / "a" / "SKILL.md", "description: a")
    os.symlink(tmp_path, tmp_path / "loop")
    result = load_skills_from_dir(str(tmp_path), "path")
    assert [s.file_path for s in result.skills] == [str(tmp_path / "a" / "SKILL.md")]
    assert [(d.type, d.path) for d in result.diagnostics] == [("warning", str(tmp_path / "loop"))]
    assert result.diagnostics[0].message == f"symlink to {tmp_path}, a folder that holds it (a loop); not followed"


def test_a_directory_named_skill_md_is_walked_not_read(tmp_path: Path) -> None:
    skill(tmp_path / "d" / "SKILL.md" / "SKILL.md", "description: inside")
    result = load_skills_from_dir(str(tmp_path), "path")
    assert [s.file_path for s in result.skills] == [str(tmp_path / "d" / "SKILL.md" / "SKILL.md")]


def test_invalid_utf8_is_read_with_replacement_characters(tmp_path: Path) -> None:
    path = tmp_path / "s" / "SKILL.md"
    path.parent.mkdir()
    path.write_bytes(b"---\ndescription: caf\xe9\n---\n")
    result = load_skill_from_file(str(path), "path")
    assert result.skill is not None and result.skill.description == "caf\ufffd"


def test_a_ten_megabyte_skill_loads(tmp_path: Path) -> None:
    path = skill(tmp_path / "big" / "SKILL.md", "description: big", "x" * (10 * 1024 * 1024))
    assert load_skill_from_file(str(path), "path").skill is not None


def test_missing_and_non_markdown_paths_warn(tmp_path: Path) -> None:
    (tmp_path / "x.txt").write_text("x")
    result = load_skills(str(tmp_path), ["missing", "x.txt"], agent_dir=str(tmp_path / "agent"))
    assert [(d.message, d.path) for d in result.diagnostics] == [
        ("skill path does not exist", str(tmp_path / "missing")),
        ("skill path is not a markdown file", str(tmp_path / "x.txt")),
    ]


def test_real_path_duplicates_are_dropped_silently(tmp_path: Path) -> None:
    skill(tmp_path / "a" / "SKILL.md", "description: a")
    os.symlink(tmp_path / "a", tmp_path / "b")
    result = load_skills(str(tmp_path), ["a", "b"], agent_dir=str(tmp_path / "agent"))
    assert len(result.skills) == 1 and result.diagnostics == []


def test_first_name_wins_and_collisions_come_last(tmp_path: Path) -> None:
    skill(tmp_path / "one" / "cal" / "SKILL.md", "description: first")
    skill(tmp_path / "two" / "cal" / "SKILL.md", "description: second")
    result = load_skills(str(tmp_path), ["one", "two", "missing"], agent_dir=str(tmp_path / "agent"))
    assert [s.description for s in result.skills] == ["first"]
    assert [d.type for d in result.diagnostics] == ["warning", "collision"]
    assert result.diagnostics[1].collision == {
        "resourceType": "skill",
        "name": "cal",
        "winnerPath": str(tmp_path / "one" / "cal" / "SKILL.md"),
        "loserPath": str(tmp_path / "two" / "cal" / "SKILL.md"),
    }


def test_tilde_is_expanded(tmp_path: Path, monkeypatch: object) -> None:
    skill(tmp_path / "home" / "s" / "SKILL.md", "description: d")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))  # type: ignore[attr-defined]
    result = load_skills("/", ["~/s"], agent_dir=str(tmp_path / "agent"))
    assert [s.name for s in result.skills] == ["s"]


def test_paths_inside_agent_skills_get_user_scope(tmp_path: Path) -> None:
    skill(tmp_path / "agent" / "skills" / "u" / "SKILL.md", "description: d")
    result = load_skills(str(tmp_path), [str(tmp_path / "agent" / "skills")], agent_dir=str(tmp_path / "agent"))
    assert result.skills[0].source_info.scope == "user"
