"""Pi's resource loading as one call: settings, context files and prompt files together."""

from __future__ import annotations

from pathlib import Path

from lsp_server.context.resources import ResourceOptions, load_resources


def setup(tmp_path: Path, files: dict[str, str]) -> tuple[str, str]:
    for rel, content in files.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content, encoding="utf-8")
    (tmp_path / "repo").mkdir(exist_ok=True)
    (tmp_path / "agent").mkdir(exist_ok=True)
    return str(tmp_path / "repo"), str(tmp_path / "agent")


PROJECT = {
    "agent/SYSTEM.md": "GLOBAL",
    "agent/settings.json": '{"defaultModel": "global-model"}',
    "repo/AGENTS.md": "repo rules",
    "repo/.pi/SYSTEM.md": "PROJECT",
    "repo/.pi/settings.json": '{"defaultModel": "project-model"}',
}


def test_untrusted_project_keeps_agents_md_but_not_its_settings_or_system_md(tmp_path: Path) -> None:
    cwd, agent = setup(tmp_path, PROJECT)
    resources = load_resources(ResourceOptions(cwd=cwd, agent_dir=agent, project_trusted=False))
    assert [f.content for f in resources.context.files] == ["repo rules"]
    assert resources.prompt_files.system_prompt == "GLOBAL"
    assert resources.settings.effective.default_model == "global-model"
    assert resources.settings.project_layer.untrusted


def test_trusted_project_uses_its_settings_and_system_md(tmp_path: Path) -> None:
    cwd, agent = setup(tmp_path, PROJECT)
    resources = load_resources(ResourceOptions(cwd=cwd, agent_dir=agent, project_trusted=True))
    assert resources.prompt_files.system_prompt == "PROJECT"
    assert resources.settings.effective.default_model == "project-model"


def test_no_context_files_switch_leaves_prompt_files_alone(tmp_path: Path) -> None:
    cwd, agent = setup(tmp_path, PROJECT)
    resources = load_resources(ResourceOptions(cwd=cwd, agent_dir=agent, no_context_files=True))
    assert resources.context.files == ()
    assert resources.prompt_files.system_prompt == "PROJECT"


def test_warnings_of_every_part_are_collected(tmp_path: Path) -> None:
    cwd, agent = setup(tmp_path, {})
    (tmp_path / "agent" / "SYSTEM.md").mkdir()
    resources = load_resources(ResourceOptions(cwd=cwd, agent_dir=agent))
    assert len(resources.warnings) == 1
    assert resources.warnings[0].startswith(f"Warning: Could not read system prompt file {agent}/SYSTEM.md: ")
