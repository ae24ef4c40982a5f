"""Project trust as Pi decides it: trust.json, project resources, defaultProjectTrust, overrides."""

from __future__ import annotations

import json
import os
from pathlib import Path

from lsp_server.context.trust import (
    nearest_trust_entry,
    project_trust,
    read_trust_store,
    trust_requiring_project_resources,
)


def setup(tmp_path: Path, store: object | None = None, files: tuple[str, ...] = ()) -> tuple[str, str, str]:
    agent = tmp_path / "agent"
    agent.mkdir()
    home = tmp_path / "home"
    home.mkdir()
    project = tmp_path / "work" / "proj"
    project.mkdir(parents=True)
    for rel in files:
        target = project / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text("x", encoding="utf-8")
    if store is not None:
        text = store if isinstance(store, str) else json.dumps(store)
        (agent / "trust.json").write_text(text, encoding="utf-8")
    return str(project), str(agent), str(home)


def test_project_without_gated_resources_is_trusted(tmp_path: Path) -> None:
    cwd, agent, home = setup(tmp_path, files=("AGENTS.md",))
    decision = project_trust(cwd, agent, home=home)
    assert (decision.trusted, decision.source) == (True, "no-project-resources")


def test_stored_distrust_applies_even_without_gated_resources(tmp_path: Path) -> None:
    cwd, agent, home = setup(tmp_path, store={str(tmp_path / "work" / "proj"): False})
    decision = project_trust(cwd, agent, home=home)
    assert (decision.trusted, decision.source) == (False, "store")


def test_project_with_gated_resources_and_no_decision_is_untrusted_ask(tmp_path: Path) -> None:
    cwd, agent, home = setup(tmp_path, files=(".pi/SYSTEM.md",))
    decision = project_trust(cwd, agent, home=home)
    assert (decision.trusted, decision.source) == (False, "ask")
    assert decision.project_resources == (f"{cwd}/.pi/SYSTEM.md",)


def test_nearest_ancestor_decision_wins(tmp_path: Path) -> None:
    store = {str(tmp_path / "work"): True, str(tmp_path / "work" / "proj"): False, str(tmp_path): True}
    cwd, agent, home = setup(tmp_path, store=store, files=(".pi/settings.json",))
    decision = project_trust(cwd, agent, home=home)
    assert (decision.trusted, decision.entry and decision.entry.path) == (False, str(tmp_path / "work" / "proj"))


def test_null_entry_is_skipped_and_the_parent_decides(tmp_path: Path) -> None:
    store = {str(tmp_path / "work"): True, str(tmp_path / "work" / "proj"): None}
    cwd, agent, home = setup(tmp_path, store=store, files=(".pi/skills/x",))
    decision = project_trust(cwd, agent, home=home)
    assert (decision.trusted, decision.entry and decision.entry.path) == (True, str(tmp_path / "work"))


def test_default_project_trust_always_and_never(tmp_path: Path) -> None:
    cwd, agent, home = setup(tmp_path, files=(".pi/APPEND_SYSTEM.md",))
    assert project_trust(cwd, agent, home=home, default_project_trust="always").trusted is True
    assert project_trust(cwd, agent, home=home, default_project_trust="never").trusted is False
    assert project_trust(cwd, agent, home=home, default_project_trust="bogus").source == "ask"


def test_default_project_trust_is_read_from_global_settings(tmp_path: Path) -> None:
    cwd, agent, home = setup(tmp_path, files=(".pi/skills/x",))
    (tmp_path / "agent" / "settings.json").write_text('{"defaultProjectTrust": "always"}', encoding="utf-8")
    decision = project_trust(cwd, agent, home=home)
    assert (decision.trusted, decision.source) == (True, "default-setting")


def test_override_beats_the_store(tmp_path: Path) -> None:
    cwd, agent, home = setup(tmp_path, store={str(tmp_path / "work" / "proj"): False}, files=(".pi/SYSTEM.md",))
    decision = project_trust(cwd, agent, home=home, override=True)
    assert (decision.trusted, decision.source) == (True, "override")


def test_store_value_other_than_true_false_null_is_pis_error(tmp_path: Path) -> None:
    cwd, agent, home = setup(tmp_path, store={"/x": "yes"})
    decision = project_trust(cwd, agent, home=home)
    assert (decision.trusted, decision.source) == (False, "store-error")
    assert decision.error == f'Invalid trust store {agent}/trust.json: value for "/x" must be true, false, or null'


def test_store_that_is_not_an_object_is_pis_error(tmp_path: Path) -> None:
    _, agent, _ = setup(tmp_path, store="[]")
    assert read_trust_store(agent).error == f"Invalid trust store {agent}/trust.json: expected an object"


def test_store_with_bad_json_names_the_file(tmp_path: Path) -> None:
    _, agent, _ = setup(tmp_path, store="{oops")
    error = read_trust_store(agent).error
    assert error is not None and error.startswith(f"Failed to read trust store {agent}/trust.json: ")


def test_store_with_bom_is_read(tmp_path: Path) -> None:
    cwd, agent, _ = setup(tmp_path, store="\ufeff" + json.dumps({str(tmp_path / "work" / "proj"): True}))
    entry = nearest_trust_entry(read_trust_store(agent), cwd)
    assert entry is not None and entry.decision is True


def test_store_entries_match_the_real_path_of_a_symlinked_cwd(tmp_path: Path) -> None:
    cwd, agent, home = setup(tmp_path, store={str(tmp_path / "work" / "proj"): False}, files=(".pi/SYSTEM.md",))
    os.symlink(cwd, tmp_path / "link")
    assert project_trust(str(tmp_path / "link"), agent, home=home).trusted is False


def test_agents_skills_in_an_ancestor_needs_trust(tmp_path: Path) -> None:
    cwd, _, home = setup(tmp_path)
    (tmp_path / "work" / ".agents" / "skills").mkdir(parents=True)
    assert trust_requiring_project_resources(cwd, home) == (str(tmp_path / "work" / ".agents" / "skills"),)


def test_user_agents_skills_is_not_a_project_resource(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".agents" / "skills").mkdir(parents=True)
    (home / "proj").mkdir()
    assert trust_requiring_project_resources(str(home / "proj"), str(home)) == ()
