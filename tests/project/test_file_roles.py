"""Where a file sits in the prompt, or why Pi does not read it: the code lens text."""

from __future__ import annotations

from lsp_server.project.file_roles import FileRole, file_role, is_prompt_file
from lsp_server.tokens.pi import pi_text_tokens
from tests.project.conftest import Project

SKILL = "---\nname: {name}\ndescription: Does {name}.\n---\n# {name}\nBody text.\n"


def role(project: Project, path: str, text: str | None = None, **config: object) -> FileRole:
    found = file_role(project.build(**config), path, text)
    assert found is not None
    return found


def test_a_loaded_context_file_is_its_position_among_the_files_and_the_cost_of_its_block(project: Project) -> None:
    project.write("AGENTS.md", "# Global\n", base=project.agent_dir)
    agents = project.write("AGENTS.md", "# Rules\n")
    found = role(project, str(agents))
    block = f'<project_instructions path="{agents}">\n# Rules\n\n</project_instructions>'
    assert (found.section, found.position, found.count) == ("project_context", 2, 2)
    assert found.tokens is not None and found.tokens.pi == pi_text_tokens(block)
    assert found.title() == f"project_context #2 of 2, ~{found.tokens.estimate:,} tokens (Pi: {found.tokens.pi:,})"


def test_a_candidate_outranked_in_its_folder_is_shadowed(project: Project) -> None:
    project.write("AGENTS.override.md", "# Override\n")
    agents = project.write("AGENTS.md", "# Rules\n")
    assert role(project, str(agents)).title() == "not loaded: shadowed by AGENTS.override.md"


def test_a_context_file_off_the_ancestor_chain_is_not_read(project: Project) -> None:
    nested = project.write("docs/AGENTS.md", "# Docs\n")
    assert role(project, str(nested)).reason == (
        "Pi reads context files only from the cwd, its parent folders and the agent dir; it is sent when Pi starts "
        "in docs or below"
    )


def test_system_md_is_the_preamble_section(project: Project) -> None:
    system = project.write("SYSTEM.md", "You are terse.\n", base=project.agent_dir)
    found = role(project, str(system))
    assert (found.section, found.position, found.item) == ("preamble", 1, "section")
    assert found.title().startswith(f"preamble (section 1 of {found.count}), ~")


def test_a_project_system_md_is_ignored_when_the_project_is_not_trusted(project: Project) -> None:
    system = project.write(".pi/SYSTEM.md", "Project prompt.\n")
    assert role(project, str(system), trust_override=False).reason == "the project is not trusted, so Pi ignores it"


def test_the_project_append_file_replaces_the_agent_dirs(project: Project) -> None:
    global_append = project.write("APPEND_SYSTEM.md", "Global.\n", base=project.agent_dir)
    local = project.write(".pi/APPEND_SYSTEM.md", "Local.\n")
    assert (
        role(project, str(global_append), trust_override=True).reason
        == "replaced by the project's .pi/APPEND_SYSTEM.md"
    )
    assert role(project, str(local), trust_override=True).section == "addendum"


def test_a_skill_costs_its_listing_entry_and_its_body_only_when_read(project: Project) -> None:
    for name in ("alpha", "beta"):
        project.write(f"skills/{name}/SKILL.md", SKILL.format(name=name), base=project.agent_dir)
    path = str(project.agent_dir / "skills" / "beta" / "SKILL.md")
    text = SKILL.format(name="beta")
    found = role(project, path, text)
    entry = (
        f"<skill>\n    <name>beta</name>\n    <description>Does beta.</description>\n"
        f"    <location>{path}</location>\n  </skill>"
    )
    assert (found.section, found.position, found.count) == ("skills", 2, 2)
    assert found.tokens is not None and found.tokens.pi == pi_text_tokens(entry)
    assert found.body is not None and found.body.pi == pi_text_tokens(text)
    assert found.title().endswith(f"; body ~{found.body.estimate:,} tokens when read")


def test_a_skill_hidden_from_the_model_is_loaded_but_not_listed(project: Project) -> None:
    text = "---\nname: secret\ndescription: Hidden.\ndisable-model-invocation: true\n---\n"
    path = project.write("skills/secret/SKILL.md", text, base=project.agent_dir)
    assert role(project, str(path)).reason == "not listed: disable-model-invocation (reachable as /skill:secret)"


def test_a_skill_pi_rejects_says_why(project: Project) -> None:
    path = project.write("skills/bad/SKILL.md", "---\nname: bad\n---\n", base=project.agent_dir)
    assert role(project, str(path)).reason == "description is required"


def test_a_skill_outside_the_scanned_folders_is_not_loaded(project: Project) -> None:
    path = project.write("notes/SKILL.md", SKILL.format(name="notes"))
    assert role(project, str(path)).reason == "not in a folder Pi scans for skills"


def test_project_skills_of_an_untrusted_project_are_ignored(project: Project) -> None:
    path = project.write(".pi/skills/p/SKILL.md", SKILL.format(name="p"))
    assert (
        role(project, str(path), trust_override=False).reason == "the project is not trusted, so Pi ignores its skills"
    )


def test_only_prompt_files_get_a_lens() -> None:
    assert is_prompt_file("/p/CLAUDE.md") and is_prompt_file("/p/.pi/skills/x/SKILL.md")
    assert not is_prompt_file("/p/README.md")
