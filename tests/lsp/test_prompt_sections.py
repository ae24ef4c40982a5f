"""``pi/promptSectionsChanged``: Pi's patch after a save or a change on disk, nothing when nothing changed."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types

from lsp_server.project.prompt_state import PromptSnapshot
from tests.lsp._custom import SECTIONS_CHANGED, domain_prompt, isolate, prompt_state, received, record, save
from tests.lsp.conftest import Launch, Session, Workspace


def counts(snapshot: PromptSnapshot, name: str) -> dict[str, int]:
    section = snapshot.section(name)
    assert section is not None
    return {"pi": section.pi_tokens, "estimate": section.tokens}


def totals(snapshot: PromptSnapshot) -> dict[str, int]:
    return {"pi": snapshot.prompt.pi_tokens, "estimate": snapshot.prompt.tokens}


def project_context(path: Path, content: str) -> str:
    return (
        "<project_context>\nProject-specific instructions and guidelines:\n\n"
        f'<project_instructions path="{path}">\n{content}\n</project_instructions>\n</project_context>'
    )


async def started(launch: Launch, client_name: str = "visual-studio-code", trust: str = "pi") -> Session:
    session = await launch(client_name, init_options={"piContext": {"trust": trust}})
    record(session, SECTIONS_CHANGED)
    await prompt_state(session)  # the first build (the baseline) is done
    return session


async def test_saving_an_edited_agents_md_sends_the_patch_with_token_deltas(
    launch: Launch, workspace: Workspace, client_name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    isolate(monkeypatch, workspace)
    agents = workspace.write("AGENTS.md", "# Rules\nBe brief.\n")
    before = domain_prompt(workspace)
    session = await started(launch, client_name)
    session.open(agents, "# Rules\nBe brief.\n")
    edited = "# Rules\nBe brief.\nRun the tests before every commit.\n"
    session.replace(agents, edited)
    save(session, agents, edited)
    await session.wait_for(SECTIONS_CHANGED, lambda: bool(received(session, SECTIONS_CHANGED)))
    after = domain_prompt(workspace)
    (params,) = received(session, SECTIONS_CHANGED)
    params.pop("cache")  # the change in prompt-cache terms: tests/lsp/test_save_cost.py
    text = project_context(agents, edited)
    delta = {
        key: counts(after, "project_context")[key] - counts(before, "project_context")[key]
        for key in ("pi", "estimate")
    }
    assert params == {
        "workspaceFolder": workspace.uri(workspace.root),
        "cwd": str(workspace.root),
        "patch": {"project_context": text},
        "changes": [
            {
                "name": "project_context",
                "status": "changed",
                "tokensBefore": counts(before, "project_context"),
                "tokensAfter": counts(after, "project_context"),
                "delta": delta,
            }
        ],
        "totalBefore": totals(before),
        "totalAfter": totals(after),
        "renderedUpdate": f'Updated system prompt section "project_context":\n\n{text}',
        "triggerPaths": [str(agents)],
    }
    assert delta["pi"] > 0 and delta["estimate"] > 0


async def test_an_agents_md_changed_on_disk_and_never_opened_sends_the_patch(
    launch: Launch, workspace: Workspace
) -> None:
    agents = workspace.write("AGENTS.md", "# Rules\n")
    session = await started(launch)
    await session.state(watcherReady=True)
    agents.write_text("# Rules\nWritten by an agent.\n", encoding="utf-8")
    await session.wait_for(SECTIONS_CHANGED, lambda: bool(received(session, SECTIONS_CHANGED)))
    (params,) = received(session, SECTIONS_CHANGED)
    assert params["patch"] == {"project_context": project_context(agents, "# Rules\nWritten by an agent.\n")}
    assert params["triggerPaths"] == [str(agents)]


async def test_a_save_that_changes_nothing_sends_nothing(
    launch: Launch, workspace: Workspace, client_name: str
) -> None:
    agents = workspace.write("AGENTS.md", "# Rules\n")
    session = await started(launch, client_name)
    builds = (await prompt_state(session))[str(workspace.root)]["builds"]
    session.open(agents, "# Rules\n")
    save(session, agents, "# Rules\n")
    state = (await prompt_state(session))[str(workspace.root)]
    assert state["builds"] == builds + 1  # the save was looked at...
    assert state["notifications"] == 0  # ...and found to change nothing
    assert received(session, SECTIONS_CHANGED) == []


async def test_a_deleted_context_file_is_a_removed_section(launch: Launch, workspace: Workspace) -> None:
    agents = workspace.write("AGENTS.md", "# Rules\n")
    session = await started(launch)
    await session.state(watcherReady=True)
    agents.unlink()
    await session.wait_for(SECTIONS_CHANGED, lambda: bool(received(session, SECTIONS_CHANGED)))
    (params,) = received(session, SECTIONS_CHANGED)
    assert params["patch"] == {"project_context": None}
    (change,) = params["changes"]
    assert (change["status"], change.get("tokensAfter")) == ("removed", None)
    assert change["delta"]["pi"] == -change["tokensBefore"]["pi"]
    assert params["renderedUpdate"] == 'Removed system prompt section "project_context".'


async def test_a_saved_skill_changes_the_skills_section(launch: Launch, workspace: Workspace) -> None:
    skill = workspace.write(".pi/skills/demo/SKILL.md", "---\nname: demo\ndescription: Old words.\n---\n")
    session = await started(launch, trust="trusted")  # project skills need a trusted project
    session.open(skill, skill.read_text())
    save(session, skill, "---\nname: demo\ndescription: New words.\n---\n")
    await session.wait_for(SECTIONS_CHANGED, lambda: bool(received(session, SECTIONS_CHANGED)))
    (params,) = received(session, SECTIONS_CHANGED)
    assert list(params["patch"]) == ["skills"]
    assert "<description>New words.</description>" in params["patch"]["skills"]


async def test_saving_agents_md_reuses_the_skills_found_before(launch: Launch, workspace: Workspace) -> None:
    for n in range(3):
        workspace.write(f".pi/skills/s{n}/SKILL.md", f"---\nname: s{n}\ndescription: Skill {n}.\n---\n")
    agents = workspace.write("AGENTS.md", "# Rules\n")
    session = await started(launch, trust="trusted")
    cache = (await prompt_state(session))[str(workspace.root)]["skillCache"]
    session.open(agents, "# Rules\n")
    session.replace(agents, "# Rules\nMore.\n")
    save(session, agents, "# Rules\nMore.\n")
    await session.wait_for(SECTIONS_CHANGED, lambda: bool(received(session, SECTIONS_CHANGED)))
    after = (await prompt_state(session))[str(workspace.root)]["skillCache"]
    assert after["misses"] == cache["misses"]  # no new walk of the skill folders
    assert after["hits"] > cache["hits"]


async def test_a_file_that_cannot_feed_the_prompt_triggers_no_rebuild(launch: Launch, workspace: Workspace) -> None:
    nested = workspace.write("docs/AGENTS.md", "# Not an ancestor of the cwd\n")
    session = await started(launch)
    builds = (await prompt_state(session))[str(workspace.root)]["builds"]
    session.open(nested, nested.read_text())
    save(session, nested, "# Changed\n")
    assert (await prompt_state(session))[str(workspace.root)]["builds"] == builds
    assert received(session, SECTIONS_CHANGED) == []


async def test_a_trust_setting_change_sends_the_sections_it_adds(launch: Launch, workspace: Workspace) -> None:
    workspace.write(".pi/APPEND_SYSTEM.md", "Always answer in French.\n")
    session = await started(launch, trust="untrusted")
    session.client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"piContext": {"trust": "trusted"}})
    )
    await session.wait_for(SECTIONS_CHANGED, lambda: bool(received(session, SECTIONS_CHANGED)))
    (params,) = received(session, SECTIONS_CHANGED)
    assert params["patch"] == {"addendum": "<addendum>\nAlways answer in French.\n\n</addendum>"}
    assert params["changes"][0]["status"] == "added"
    assert params["triggerPaths"] == []


async def test_saving_a_skills_description_re_reads_that_skill_only(launch: Launch, workspace: Workspace) -> None:
    skill = workspace.agent_dir / "skills" / "demo" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("---\nname: demo\ndescription: Old words.\n---\n", encoding="utf-8")
    session = await started(launch)
    cache = (await prompt_state(session))[str(workspace.root)]["skillCache"]
    session.open(skill, skill.read_text())
    save(session, skill, "---\nname: demo\ndescription: New words.\n---\n")
    await session.wait_for(SECTIONS_CHANGED, lambda: bool(received(session, SECTIONS_CHANGED)))
    after = (await prompt_state(session))[str(workspace.root)]["skillCache"]
    assert (after["misses"], after["updates"]) == (cache["misses"], cache["updates"] + 1)
    assert "<description>New words.</description>" in received(session, SECTIONS_CHANGED)[0]["patch"]["skills"]


async def test_an_open_file_reloaded_after_an_agent_changed_it_counts_as_a_save(
    launch: Launch, workspace: Workspace
) -> None:
    agents = workspace.write("AGENTS.md", "# Rules\n")
    session = await started(launch)
    session.open(agents, "# Rules\n")
    agents.write_text("# Rules\nAdded by the agent.\n", encoding="utf-8")  # behind the editor's back
    session.replace(agents, "# Rules\nAdded by the agent.\n")  # the editor reloads the clean buffer: no didSave
    await session.wait_for(SECTIONS_CHANGED, lambda: bool(received(session, SECTIONS_CHANGED)))
    (params,) = received(session, SECTIONS_CHANGED)
    assert params["patch"] == {"project_context": project_context(agents, "# Rules\nAdded by the agent.\n")}


async def test_unsaved_typing_sends_nothing(launch: Launch, workspace: Workspace) -> None:
    agents = workspace.write("AGENTS.md", "# Rules\n")
    session = await started(launch)
    session.open(agents, "# Rules\n")
    session.replace(agents, "# Rules\nNot saved yet.\n")
    state = (await prompt_state(session))[str(workspace.root)]
    assert (state["dirty"], state["notifications"]) == (True, 0)
    assert received(session, SECTIONS_CHANGED) == []


async def test_trusting_the_project_in_pis_trust_store_adds_its_sections(launch: Launch, workspace: Workspace) -> None:
    workspace.write(".pi/APPEND_SYSTEM.md", "Always answer in French.\n")  # needs trust; Pi would ask
    session = await started(launch)
    await session.state(watcherReady=True)
    (workspace.agent_dir / "trust.json").write_text(f'{{"{workspace.root}": true}}', encoding="utf-8")
    await session.wait_for(SECTIONS_CHANGED, lambda: bool(received(session, SECTIONS_CHANGED)))
    (params,) = received(session, SECTIONS_CHANGED)
    assert list(params["patch"]) == ["addendum"]
    assert params["triggerPaths"] == [str(workspace.agent_dir / "trust.json")]
