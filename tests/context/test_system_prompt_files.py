"""SYSTEM.md / APPEND_SYSTEM.md resolution (pi-behavior §4), one test per rule."""

from __future__ import annotations

from pathlib import Path

from lsp_server.context.system_prompt_files import resolve_prompt_files


def setup(tmp_path: Path, files: dict[str, str]) -> tuple[str, str]:
    for rel, content in files.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content, encoding="utf-8")
    (tmp_path / "repo").mkdir(exist_ok=True)
    (tmp_path / "agent").mkdir(exist_ok=True)
    return str(tmp_path / "repo"), str(tmp_path / "agent")


def test_trusted_project_system_md_wins_over_global(tmp_path: Path) -> None:
    cwd, agent = setup(tmp_path, {"repo/.pi/SYSTEM.md": "P", "agent/SYSTEM.md": "G"})
    files = resolve_prompt_files(cwd, agent, project_trusted=True)
    assert (files.system_prompt, files.system_prompt_source) == ("P", f"{cwd}/.pi/SYSTEM.md")


def test_untrusted_project_system_md_is_ignored_and_reported(tmp_path: Path) -> None:
    cwd, agent = setup(tmp_path, {"repo/.pi/SYSTEM.md": "P", "agent/SYSTEM.md": "G"})
    files = resolve_prompt_files(cwd, agent, project_trusted=False)
    assert files.system_prompt == "G"
    assert [i.path for i in files.ignored] == [f"{cwd}/.pi/SYSTEM.md"]


def test_project_append_replaces_global_append(tmp_path: Path) -> None:
    cwd, agent = setup(tmp_path, {"repo/.pi/APPEND_SYSTEM.md": "PA", "agent/APPEND_SYSTEM.md": "GA"})
    assert resolve_prompt_files(cwd, agent, project_trusted=True).append_system_prompt == ["PA"]


def test_no_files_means_no_custom_prompt(tmp_path: Path) -> None:
    cwd, agent = setup(tmp_path, {})
    files = resolve_prompt_files(cwd, agent, project_trusted=True)
    assert (files.system_prompt, files.append_system_prompt) == (None, [])


def test_explicit_value_naming_no_file_is_literal_text(tmp_path: Path) -> None:
    cwd, agent = setup(tmp_path, {"agent/SYSTEM.md": "G"})
    files = resolve_prompt_files(cwd, agent, project_trusted=True, system_prompt=f"{tmp_path}/typo.md")
    assert files.system is not None
    assert (files.system.kind, files.system_prompt, files.system_prompt_source) == (
        "literal",
        f"{tmp_path}/typo.md",
        None,
    )


def test_explicit_file_content_is_used_without_bom(tmp_path: Path) -> None:
    cwd, agent = setup(tmp_path, {"p.md": "\ufeffFILE"})
    files = resolve_prompt_files(cwd, agent, project_trusted=True, append_system_prompt=[f"{tmp_path}/p.md", "lit"])
    assert files.append_system_prompt == ["FILE", "lit"]
    assert files.append_system_prompt_sources == [f"{tmp_path}/p.md"]
    assert files.append_joined == "FILE\n\nlit"


def test_explicit_empty_system_prompt_disables_discovery(tmp_path: Path) -> None:
    cwd, agent = setup(tmp_path, {"agent/SYSTEM.md": "G"})
    assert resolve_prompt_files(cwd, agent, project_trusted=True, system_prompt="").system is None


def test_explicit_empty_append_list_disables_discovery(tmp_path: Path) -> None:
    cwd, agent = setup(tmp_path, {"agent/APPEND_SYSTEM.md": "GA"})
    assert resolve_prompt_files(cwd, agent, project_trusted=True, append_system_prompt=[]).append == ()


def test_existing_path_that_cannot_be_read_warns_and_is_used_as_text(tmp_path: Path) -> None:
    cwd, agent = setup(tmp_path, {})
    (tmp_path / "dir").mkdir()
    value = f"{tmp_path}/dir"
    files = resolve_prompt_files(cwd, agent, project_trusted=True, system_prompt=value)
    assert files.system is not None
    assert (files.system.kind, files.system_prompt, files.system_prompt_source) == ("unreadable-file", value, value)
    assert files.warnings == (f"Warning: Could not read system prompt file {value}: Error: {files.system.error}",)


def test_relative_explicit_value_is_looked_up_from_the_base_dir(tmp_path: Path) -> None:
    cwd, agent = setup(tmp_path, {"repo/prompts/s.md": "REL"})
    files = resolve_prompt_files(cwd, agent, project_trusted=True, system_prompt="prompts/s.md")
    assert (files.system_prompt, files.system_prompt_source) == ("REL", f"{cwd}/prompts/s.md")
