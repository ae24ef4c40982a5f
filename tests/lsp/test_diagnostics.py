"""Diagnostics for every SKILL.md and context file, open or not, kept current per file."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types

from tests.lsp.conftest import Launch, Session, Workspace

BROKEN = "---\nname: demo\n---\n# Demo\n"  # no description: Pi warns and does not load it
FIXED = "---\nname: demo\ndescription: Shows the demo.\n---\n# Demo\n"
SKILL = ".pi/skills/demo/SKILL.md"


def codes(session: Session, path: Path) -> list[str]:
    return sorted(str(d.code) for d in session.client.diagnostics.get(session.workspace.uri(path), []))


async def wait_for_codes(session: Session, path: Path, expected: list[str]) -> None:
    await session.wait_for(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS, lambda: codes(session, path) == expected)


async def test_a_broken_skill_on_disk_is_reported_at_start(
    launch: Launch, workspace: Workspace, client_name: str
) -> None:
    path = workspace.write(SKILL, BROKEN)
    session = await launch(client_name)
    await wait_for_codes(session, path, ["skill/description-missing", "skill/not-loaded"])
    (missing,) = [d for d in session.client.diagnostics[session.workspace.uri(path)] if d.code.endswith("missing")]
    assert missing.severity == types.DiagnosticSeverity.Warning
    assert missing.message == "description is required"  # Pi's own warning text
    assert missing.source == "pi-context"


async def test_a_never_opened_skill_broken_on_disk_is_reported(launch: Launch, client_name: str) -> None:
    session = await launch(client_name)
    await session.state(watcherReady=True)
    path = session.workspace.write(SKILL, BROKEN)
    await wait_for_codes(session, path, ["skill/description-missing", "skill/not-loaded"])


async def test_fixing_a_skill_on_disk_clears_its_diagnostics(launch: Launch, client_name: str) -> None:
    session = await launch(client_name)
    path = session.workspace.write(SKILL, BROKEN)
    await wait_for_codes(session, path, ["skill/description-missing", "skill/not-loaded"])
    await session.state(watcherReady=True)
    path.write_text(FIXED, encoding="utf-8")
    await wait_for_codes(session, path, [])


async def test_deleting_a_skill_clears_its_diagnostics(launch: Launch, client_name: str) -> None:
    session = await launch(client_name)
    path = session.workspace.write(SKILL, BROKEN)
    await wait_for_codes(session, path, ["skill/description-missing", "skill/not-loaded"])
    await session.state(watcherReady=True)
    path.unlink()
    await wait_for_codes(session, path, [])


async def test_deleting_a_skill_folder_clears_its_diagnostics(launch: Launch) -> None:
    session = await launch()
    path = session.workspace.write(SKILL, BROKEN)
    await wait_for_codes(session, path, ["skill/description-missing", "skill/not-loaded"])
    await session.state(watcherReady=True)
    path.unlink()
    path.parent.rmdir()
    await wait_for_codes(session, path, [])


async def test_the_open_buffer_is_checked_not_the_disk(launch: Launch, client_name: str) -> None:
    session = await launch(client_name)
    path = session.workspace.write(SKILL, FIXED)
    session.open(path, FIXED)
    version = session.replace(path, BROKEN)
    await wait_for_codes(session, path, ["skill/description-missing", "skill/not-loaded"])
    state = await session.state(idle=True)
    assert state["stats"]["lastVersion"][str(path)] == version
    assert path.read_text(encoding="utf-8") == FIXED


async def test_one_edit_is_checked_without_waiting_for_the_debounce(launch: Launch, client_name: str) -> None:
    session = await launch(client_name, init_options={"debounceMs": 60_000})  # a pause the test would not survive
    path = session.workspace.write(SKILL, FIXED)
    session.open(path, FIXED)
    await session.state(idle=True)
    session.replace(path, BROKEN)
    await wait_for_codes(session, path, ["skill/description-missing", "skill/not-loaded"])


async def test_500_rapid_edits_end_in_one_check_of_the_last_version(launch: Launch, client_name: str) -> None:
    session = await launch(client_name, init_options={"debounceMs": 500})
    path = session.workspace.write(SKILL, FIXED)
    session.open(path, FIXED)
    first = await session.state(idle=True)
    for n in range(500):
        last = session.replace(path, FIXED if n % 2 == 0 else BROKEN)  # the last one (n = 499) is broken
    await wait_for_codes(session, path, ["skill/description-missing", "skill/not-loaded"])
    state = await session.state(idle=True)
    assert state["stats"]["lastVersion"][str(path)] == last
    repeats = state["stats"]["repeats"].get(str(path), 0) - first["stats"]["repeats"].get(str(path), 0)
    assert repeats == 0  # the last version was checked once, and no version twice
    assert state["scheduler"]["pending"] == []
    checks = state["stats"]["validations"][str(path)] - first["stats"]["validations"][str(path)]
    scheduled = {key: state["scheduler"][key] - first["scheduler"][key] for key in ("submitted", "superseded")}
    # every edit was either checked or folded into a later check: none lost, none checked twice
    print(f"500 edits -> {checks} checks")
    assert 1 <= checks <= 500
    assert checks + scheduled["superseded"] == scheduled["submitted"]


async def test_switching_the_rule_profile_rechecks_with_its_messages(launch: Launch, client_name: str) -> None:
    session = await launch(client_name)
    path = session.workspace.write(SKILL, BROKEN)
    await wait_for_codes(session, path, ["skill/description-missing", "skill/not-loaded"])
    session.client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"piContext": {"ruleProfile": "agentskills"}})
    )

    def spec_message() -> bool:
        found = session.client.diagnostics.get(session.workspace.uri(path), [])
        return any(d.message == "Missing required field in frontmatter: description" for d in found)

    await session.wait_for(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS, spec_message)


async def test_renaming_one_skill_clears_the_collision_of_the_other(launch: Launch) -> None:
    session = await launch()
    first = session.workspace.write(".pi/skills/a/SKILL.md", "---\nname: twin\ndescription: First.\n---\n")
    second = session.workspace.write(".pi/skills/b/SKILL.md", "---\nname: twin\ndescription: Second.\n---\n")
    await session.wait_for(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS, lambda: "skill/collision" in codes(session, second))
    session.open(first, first.read_text(encoding="utf-8"))
    session.replace(first, "---\nname: a\ndescription: First.\n---\n")
    await session.wait_for(
        types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS, lambda: "skill/collision" not in codes(session, second)
    )


async def test_pulled_diagnostics_answer_fresh_and_stop_pushes_for_that_file(launch: Launch) -> None:
    session = await launch("neovim")
    path = session.workspace.write(SKILL, FIXED)
    session.open(path, BROKEN)
    uri = session.workspace.uri(path)
    report = await session.client.text_document_diagnostic_async(
        types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    assert isinstance(report, types.RelatedFullDocumentDiagnosticReport)
    assert sorted(str(d.code) for d in report.items) == ["skill/description-missing", "skill/not-loaded"]
    session.replace(path, "---\nname: Demo_Skill\n---\n")  # other problems, still broken
    state = await session.state(idle=True)
    assert state["pulled"] == [str(path)]
    assert state["diagnostics"][str(path)] >= 3  # checked ...
    assert codes(session, path) == []  # ... but not pushed: the client pulls this file


async def test_skills_of_the_agent_dir_and_home_are_checked_too(launch: Launch, workspace: Workspace) -> None:
    user_skill = workspace.agent_dir / "skills" / "mine" / "SKILL.md"
    home_skill = workspace.home / ".agents" / "skills" / "shared" / "SKILL.md"
    for path in (user_skill, home_skill):
        path.parent.mkdir(parents=True)
        path.write_text("---\nname: " + path.parent.name + "\n---\n", encoding="utf-8")
    session = await launch()
    for path in (user_skill, home_skill):
        await wait_for_codes(session, path, ["skill/description-missing", "skill/not-loaded"])


async def test_the_limits_setting_decides_the_size_rules(launch: Launch, workspace: Workspace) -> None:
    """``piContext.limits`` reaches the checks (one settings type for the rules' thresholds)."""
    agents = workspace.write("AGENTS.md", "# Rules\n" + "Keep it short.\n" * 8)
    session = await launch(init_options={"piContext": {"limits": {"contextMaxBytes": 40}}})
    await wait_for_codes(session, agents, ["context/too-large"])
    message = next(d.message for d in session.client.diagnostics[session.workspace.uri(agents)])
    assert "40" in message


async def test_under_the_vscode_profile_what_vs_code_reports_itself_is_left_to_it(
    launch: Launch, workspace: Workspace
) -> None:
    """VS Code's own skill validation reports bad names, unknown keys and missing files; the server
    publishes only what VS Code does not check, so Problems lists each problem once."""
    text = "---\nname: Demo!\ndescription: Shows the demo.\ncolour: blue\n---\nSee `scripts\\run.py`.\n"
    path = workspace.write(SKILL, text)
    from lsp_server.rules.skill_rules import check_skill_text

    everything = sorted(f.code for f in check_skill_text(str(path), text, "vscode").findings)
    assert {"skill/name-invalid-chars", "skill/unknown-key", "skill/windows-path"} <= set(everything)
    session = await launch(init_options={"piContext": {"ruleProfile": "vscode"}})
    await session.wait_for(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS, lambda: bool(codes(session, path)))
    assert "skill/windows-path" in codes(session, path)
    assert not {"skill/name-invalid-chars", "skill/unknown-key", "skill/name-directory-mismatch"} & set(
        codes(session, path)
    )


async def test_under_the_vscode_profile_another_editor_gets_every_finding(launch: Launch, workspace: Workspace) -> None:
    """Neovim has no VS Code skill checker: writing skills for VS Code's agent there, the user needs them all."""
    text = "---\nname: Demo!\ndescription: Shows the demo.\ncolour: blue\n---\n"
    path = workspace.write(SKILL, text)
    session = await launch("neovim", init_options={"piContext": {"ruleProfile": "vscode"}})
    await session.wait_for(
        types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS,
        lambda: {"skill/name-invalid-chars", "skill/unknown-key"} <= set(codes(session, path)),
    )


async def test_a_context_file_below_the_folder_says_when_pi_sends_it(launch: Launch, workspace: Workspace) -> None:
    """The server's findings and hover speak of the workspace folder as Pi's cwd (issue 22, items 1-2)."""
    big = "Keep functions small.\n" * 2000  # 44,000 bytes
    workspace.write("skills/react/SKILL.md", "---\nname: react\ndescription: React rules.\n---\n")
    guide = workspace.write("skills/react/AGENTS.md", big)
    root = workspace.write("AGENTS.md", big)
    claude = workspace.write("CLAUDE.md", big)  # a copy beside AGENTS.md: Pi ignores it
    session = await launch("neovim")
    await wait_for_codes(session, claude, ["context/shadowed"])
    await wait_for_codes(session, guide, ["context/token-heavy", "context/too-large"])
    await wait_for_codes(session, root, ["context/token-heavy", "context/too-large"])
    by_code = {d.code: d for d in session.client.diagnostics[session.workspace.uri(guide)]}
    assert by_code["context/too-large"].severity == types.DiagnosticSeverity.Information
    assert by_code["context/too-large"].message == (
        "context file is 44000 bytes (limit 32768); Pi sends it with every request only when started in "
        "skills/react or below (it is not in the cwd or a parent of it); using the skill does not send it"
    )
    (too_large,) = [d for d in session.client.diagnostics[session.workspace.uri(root)] if d.code == "context/too-large"]
    assert too_large.severity == types.DiagnosticSeverity.Warning
    assert too_large.message == "context file is 44000 bytes (limit 32768); Pi sends it with every request"
    session.open(guide, big)
    hovered = await session.client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=session.workspace.uri(guide)),
            position=types.Position(line=0, character=1),
        )
    )
    assert hovered is not None and isinstance(hovered.contents, types.MarkupContent)
    assert "Pi takes this file for its folder: Pi sends it with every request only when started in skills/react" in (
        hovered.contents.value
    )


async def test_excluded_paths_get_no_diagnostics_and_fixtures_are_lowered(launch: Launch, workspace: Workspace) -> None:
    """``piContext.check.exclude`` and ``check.fixtureFolders`` in the editor, as in ``pi-context check``."""
    fixture = workspace.write("test/fixtures/skills/broken/SKILL.md", BROKEN)
    draft = workspace.write("drafts/skills/wip/SKILL.md", BROKEN)
    real = workspace.write(SKILL, BROKEN)
    session = await launch("neovim", init_options={"piContext": {"check": {"exclude": ["drafts"]}}})
    await wait_for_codes(session, real, ["skill/description-missing", "skill/not-loaded"])
    await wait_for_codes(session, fixture, ["skill/description-missing", "skill/not-loaded"])
    lowered = {d.code: d for d in session.client.diagnostics[session.workspace.uri(fixture)]}
    assert lowered["skill/not-loaded"].severity == types.DiagnosticSeverity.Information
    assert lowered["skill/not-loaded"].message.endswith("[test fixture (test/fixtures): error lowered to info]")
    await session.state(idle=True)
    assert codes(session, draft) == []
