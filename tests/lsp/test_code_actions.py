"""Quick fixes through the real server: ask for the fix, apply it like an editor, watch the diagnostic go.

Each case opens the smallest file that breaks one rule under one profile, takes the code action
whose title starts as given (linked to the client's diagnostic), applies its edit client-side in
the negotiated position encoding, sends the new text with ``didChange`` and waits until the
server publishes diagnostics without that rule. Both recorded clients run every case (VS Code
takes ``documentChanges`` with versions; Neovim gets plain ``changes`` and UTF-8 positions).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import client_capabilities

from lsp_server.rules.skill_rules import check_skill_text
from tests.lsp.conftest import Launch, Session, Workspace
from tests.lsp.editing_client import apply_text_edits, encoding_of, position_of, text_edits_for


@dataclass(frozen=True)
class Case:
    path: str
    text: str
    code: str
    title: str  # the start of the action's title


CASES: dict[str, list[Case]] = {
    "pi": [
        Case(
            ".pi/skills/emoji/SKILL.md",
            "---\nname: Emo😀ji\ndescription: d\n---\n",
            "skill/name-invalid-chars",
            "Make the name valid",
        ),
        Case(
            ".pi/skills/hyphens/SKILL.md",
            "---\nname: -hy--phens\ndescription: d\n---\n",
            "skill/name-hyphen-edge",
            "Make the name valid",
        ),
        Case(
            ".pi/skills/nodesc/SKILL.md",
            "---\nname: nodesc\n---\nBody\n",
            "skill/description-missing",
            "Add a placeholder",
        ),
        Case(
            ".pi/skills/crlf/SKILL.md",
            "\ufeff---\r\nname: crlf\r\n---\r\nBody\r\n",
            "skill/description-missing",
            "Add a placeholder",
        ),
        Case(
            ".pi/skills/open/SKILL.md",
            "---\nname: open\ndescription: d\n# Title\n",
            "skill/frontmatter-unclosed",
            "Close the frontmatter",
        ),
        Case(
            ".pi/skills/hidden/SKILL.md",
            "---\nname: hidden\ndescription: d\ndisable-model-invocation: yes\n---\n",
            "skill/boolean-value",
            "Set disable-model-invocation: true",
        ),
        Case(
            ".pi/skills/slashes/SKILL.md",
            "---\nname: slashes\ndescription: d\n---\nRun `scripts\\fill.py`.\n",
            "skill/windows-path",
            "Use forward slashes",
        ),
        Case(
            ".pi/skills/long/SKILL.md",
            f"---\nname: long\ndescription: {'éèê 😀 ' * 200}\n---\n",
            "skill/description-too-long",
            "Trim the description",
        ),
        Case(".pi/skills/loose.md", "---\nname: loose\n---\nBody\n", "skill/candidate-ignored", "Add a placeholder"),
    ],
    "agentskills": [
        Case(
            ".agents/skills/spec-keys/SKILL.md",
            "---\nname: spec-keys\ndescription: d\nhooks:\n  pre: x\n---\n",
            "skill/unknown-key",
            "Remove 'hooks'",
        ),
        Case(".agents/skills/no-fm/SKILL.md", "# Title\n", "skill/frontmatter-missing", "Insert frontmatter"),
        Case(
            ".agents/skills/upper/SKILL.md",
            "---\nname: UPPER\ndescription: d\n---\n",
            "skill/name-uppercase",
            "Lowercase the name",
        ),
        Case(
            ".agents/skills/folder/SKILL.md",
            "---\nname: other-name\ndescription: d\n---\n",
            "skill/name-directory-mismatch",
            "Rename the skill to 'folder'",
        ),
        Case(
            ".agents/skills/compat/SKILL.md",
            f"---\nname: compat\ndescription: d\ncompatibility: {'git ' * 200}\n---\n",
            "skill/compatibility-too-long",
            "Trim the compatibility",
        ),
        Case(
            ".agents/skills/compat-num/SKILL.md",
            "---\nname: compat-num\ndescription: d\ncompatibility: 3\n---\n",
            "skill/compatibility-not-string",
            "Quote compatibility",
        ),
        Case(
            ".agents/skills/unnamed/SKILL.md", "---\ndescription: d\n---\n", "skill/name-missing", "Add name: unnamed"
        ),
    ],
    "claude-code": [
        Case(
            ".claude/skills/cc-keys/SKILL.md",
            "---\nname: cc-keys\ndescription: d\ncolour: blue\n---\n",
            "skill/unknown-key",
            "Remove 'colour'",
        ),
        Case(
            ".claude/skills/cc-bool/SKILL.md",
            "---\nname: cc-bool\ndescription: d\nuser-invocable: maybe\n---\n",
            "skill/boolean-value",
            "Set user-invocable: false",
        ),
    ],
    "vscode": [
        Case(
            ".github/skills/vs-unnamed/SKILL.md",
            "---\ndescription: d\n---\n",
            "skill/name-missing",
            "Add name: vs-unnamed",
        ),
        Case(
            ".github/skills/vs-folder/SKILL.md",
            "---\nname: vs-other\ndescription: d\n---\n",
            "skill/name-directory-mismatch",
            "Rename the skill to 'vs-folder'",
        ),
        Case(
            ".github/skills/vs-bool/SKILL.md",
            "---\nname: vs-bool\ndescription: d\ndisable-model-invocation: 'true'\n---\n",
            "skill/boolean-value",
            "Set disable-model-invocation: true",
        ),
    ],
}


def options(profile: str) -> dict[str, object]:
    return {"piContext": {"ruleProfile": profile, "debounceMs": 20}}


def codes(session: Session, uri: str) -> list[str]:
    return [str(d.code) for d in session.client.diagnostics.get(uri, [])]


def cleared(session: Session, uri: str, code: str) -> Callable[[], bool]:
    return lambda: code not in codes(session, uri)


async def diagnostic(session: Session, uri: str, code: str) -> types.Diagnostic:
    await session.wait_for(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS, lambda: code in codes(session, uri))
    return next(d for d in session.client.diagnostics[uri] if d.code == code)


async def actions_for(session: Session, uri: str, diag: types.Diagnostic) -> list[types.CodeAction]:
    params = types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        range=diag.range,
        context=types.CodeActionContext(diagnostics=[diag]),
    )
    result = await session.client.text_document_code_action_async(params)
    return [action for action in result or [] if isinstance(action, types.CodeAction)]


async def open_broken(session: Session, case: Case) -> tuple[Path, str, types.Diagnostic]:
    path = session.workspace.write(case.path, case.text)
    session.open(path, case.text)
    uri = session.workspace.uri(path)
    return path, uri, await diagnostic(session, uri, case.code)


@pytest.mark.parametrize("profile", list(CASES))
async def test_each_quick_fix_applied_by_the_client_clears_its_diagnostic(
    launch: Launch, client_name: str, profile: str
) -> None:
    session = await launch(client_name, init_options=options(profile))
    encoding = encoding_of(session)
    for case in CASES[profile]:
        if profile == "vscode" and client_name == "visual-studio-code":
            await fix_on_vscodes_own_diagnostic(session, case, encoding)
            continue
        path, uri, diag = await open_broken(session, case)
        actions = await actions_for(session, uri, diag)
        action = next((a for a in actions if a.title.startswith(case.title)), None)
        assert action is not None, (case, [a.title for a in actions])
        assert action.kind == types.CodeActionKind.QuickFix and diag in (action.diagnostics or [])
        assert action.edit is not None
        fixed = apply_text_edits(case.text, text_edits_for(action.edit, uri), encoding)
        session.replace(path, fixed)
        await session.wait_for(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS, cleared(session, uri, case.code))
        if case.text.startswith("\ufeff"):
            assert fixed.startswith("\ufeff---\r\n") and "\r\ndescription: " in fixed


async def fix_on_vscodes_own_diagnostic(session: Session, case: Case, encoding: str) -> None:
    """In VS Code the vscode profile leaves these findings to VS Code's own skill checker (nothing
    published twice), and our quick fix still answers for the range VS Code marks."""
    path = session.workspace.write(case.path, case.text)
    session.open(path, case.text)
    uri = session.workspace.uri(path)
    end = types.Position(line=case.text.count("\n"), character=0)
    params = types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        range=types.Range(start=types.Position(line=0, character=0), end=end),
        context=types.CodeActionContext(diagnostics=[]),
    )
    action: types.CodeAction | None = None
    for _ in range(200):  # until the server has checked the new file (nothing is published to wait for)
        result = await session.client.text_document_code_action_async(params)
        found = [a for a in result or [] if isinstance(a, types.CodeAction) and a.title.startswith(case.title)]
        if found:
            action = found[0]
            break
        await asyncio.sleep(0.1)
    assert action is not None and action.edit is not None, case
    assert case.code not in codes(session, uri)  # checked, and left to VS Code
    fixed = apply_text_edits(case.text, text_edits_for(action.edit, uri), encoding)
    assert case.code not in {f.code for f in check_skill_text(str(path), fixed, "vscode").findings}


async def test_vscode_edits_carry_the_buffer_version(launch: Launch) -> None:
    session = await launch("visual-studio-code", init_options=options("pi"))
    _, uri, diag = await open_broken(session, CASES["pi"][0])
    (action, *_) = await actions_for(session, uri, diag)
    assert action.edit is not None and action.edit.document_changes is not None
    (change,) = action.edit.document_changes
    assert isinstance(change, types.TextDocumentEdit)
    assert change.text_document.version == session.versions[uri] == 1


async def test_neovim_edits_come_as_plain_changes(launch: Launch) -> None:
    session = await launch("neovim", init_options=options("pi"))
    _, uri, diag = await open_broken(session, CASES["pi"][0])
    (action, *_) = await actions_for(session, uri, diag)
    assert action.edit is not None and action.edit.document_changes is None
    assert list((action.edit.changes or {}).keys()) == [uri]


async def test_fixes_follow_the_current_buffer_not_the_diagnostic(launch: Launch, client_name: str) -> None:
    session = await launch(client_name, init_options=options("pi"))
    case = CASES["pi"][0]
    path, uri, old = await open_broken(session, case)
    moved = "---\n# a comment pushing the name down\n" + case.text[4:]
    session.replace(path, moved)
    (action, *_) = await actions_for(session, uri, old)  # the client still shows the old diagnostic
    assert action.edit is not None
    fixed = apply_text_edits(moved, text_edits_for(action.edit, uri), encoding_of(session))
    assert fixed == "---\n# a comment pushing the name down\nname: emoji\ndescription: d\n---\n"


async def test_an_action_is_offered_when_only_the_diagnostic_is_sent(launch: Launch) -> None:
    session = await launch("neovim", init_options=options("pi"))
    _, uri, diag = await open_broken(session, CASES["pi"][2])
    elsewhere = types.Range(start=types.Position(line=3, character=0), end=types.Position(line=3, character=0))
    params = types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        range=elsewhere,
        context=types.CodeActionContext(diagnostics=[diag]),
    )
    result = await session.client.text_document_code_action_async(params)
    assert [a.title for a in result or [] if isinstance(a, types.CodeAction)] == ["Add a placeholder description"]


async def test_no_quick_fix_when_the_client_asks_for_other_kinds(launch: Launch) -> None:
    session = await launch("visual-studio-code", init_options=options("pi"))
    _, uri, diag = await open_broken(session, CASES["pi"][2])
    params = types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        range=diag.range,
        context=types.CodeActionContext(diagnostics=[diag], only=[types.CodeActionKind.Refactor]),
    )
    assert not await session.client.text_document_code_action_async(params)


async def test_no_actions_in_a_context_file_without_fixable_findings(launch: Launch, workspace: Workspace) -> None:
    # Context files have fixes of their own now (prompt/forged-tag, tests/lsp/test_prompt_rules.py).
    session = await launch("visual-studio-code", init_options=options("pi"))
    path = workspace.write("AGENTS.md", "")
    session.open(path, "")
    params = types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=workspace.uri(path)),
        range=types.Range(start=types.Position(line=0, character=0), end=types.Position(line=0, character=0)),
        context=types.CodeActionContext(diagnostics=[]),
    )
    assert not await session.client.text_document_code_action_async(params)


MISMATCH = Case(
    ".agents/skills/pdf/SKILL.md", "---\nname: pdf-tools\ndescription: d\n---\n", "skill/name-directory-mismatch", ""
)


async def test_rename_the_folder_to_the_skill_name(launch: Launch, workspace: Workspace) -> None:
    session = await launch("visual-studio-code", init_options=options("agentskills"))
    path, uri, diag = await open_broken(session, MISMATCH)
    actions = await actions_for(session, uri, diag)
    action = next(a for a in actions if a.title == "Rename the folder to 'pdf-tools'")
    assert action.edit is not None and action.edit.document_changes is not None
    (rename,) = action.edit.document_changes
    assert isinstance(rename, types.RenameFile)
    assert rename.old_uri == workspace.uri(path.parent)
    new_folder = workspace.root / ".agents" / "skills" / "pdf-tools"
    assert rename.new_uri == workspace.uri(new_folder)
    # Apply it as VS Code does: move the folder, then the buffer follows the file to its new URI.
    await session.state(watcherReady=True)
    os.rename(path.parent, new_folder)
    session.close(path)
    moved = new_folder / "SKILL.md"
    session.open(moved, MISMATCH.text)
    await session.wait_for(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS, lambda: codes(session, uri) == [])
    state = await session.state(idle=True)
    assert str(moved) in state["stats"]["validations"] and str(moved) not in state["diagnostics"]


async def test_no_folder_rename_for_a_client_without_resource_operations(launch: Launch) -> None:
    capabilities = client_capabilities("visual-studio-code")
    assert capabilities.workspace is not None and capabilities.workspace.workspace_edit is not None
    capabilities.workspace.workspace_edit.resource_operations = [types.ResourceOperationKind.Create]
    session = await launch("visual-studio-code", init_options=options("agentskills"), capabilities=capabilities)
    _, uri, diag = await open_broken(session, MISMATCH)
    titles = [a.title for a in await actions_for(session, uri, diag)]
    assert titles == ["Rename the skill to 'pdf' (its folder name)"]


async def test_no_folder_rename_for_neovim_without_document_changes(launch: Launch) -> None:
    session = await launch("neovim", init_options=options("agentskills"))
    _, uri, diag = await open_broken(session, MISMATCH)
    titles = [a.title for a in await actions_for(session, uri, diag)]
    assert titles == ["Rename the skill to 'pdf' (its folder name)"]


async def test_the_requested_range_selects_the_findings_fixed(launch: Launch) -> None:
    session = await launch("neovim", init_options=options("pi"))
    text = "---\nname: PDF\n---\n"  # name-invalid-chars on line 1, description-missing at the fence
    path = session.workspace.write(".pi/skills/pdf/SKILL.md", text)
    session.open(path, text)
    uri = session.workspace.uri(path)
    await diagnostic(session, uri, "skill/name-invalid-chars")
    cursor = position_of(text, 1, 7, encoding_of(session))
    params = types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        range=types.Range(start=cursor, end=cursor),
        context=types.CodeActionContext(diagnostics=[]),
    )
    result = await session.client.text_document_code_action_async(params)
    titles = [a.title for a in result or [] if isinstance(a, types.CodeAction)]
    assert titles == ["Lowercase the name: 'pdf'"]


async def test_the_server_advertises_quick_fixes(launch: Launch) -> None:
    session = await launch("visual-studio-code")
    provider = session.initialize_result.capabilities.code_action_provider
    assert isinstance(provider, types.CodeActionOptions)
    assert list(provider.code_action_kinds or []) == [types.CodeActionKind.QuickFix]
