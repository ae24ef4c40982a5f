"""Code lenses (a file's place and cost in the prompt) and heading symbols in context files, over stdio."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types

from lsp_server.project.file_roles import file_role
from tests.lsp._custom import domain_prompt, isolate
from tests.lsp.conftest import Launch, Session, Workspace


async def lenses(session: Session, path: Path) -> list[types.CodeLens]:
    params = types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=session.workspace.uri(path)))
    return list(await session.client.text_document_code_lens_async(params) or [])


async def symbols(session: Session, path: Path) -> list[types.DocumentSymbol]:
    params = types.DocumentSymbolParams(text_document=types.TextDocumentIdentifier(uri=session.workspace.uri(path)))
    result = await session.client.text_document_document_symbol_async(params)
    return [symbol for symbol in result or [] if isinstance(symbol, types.DocumentSymbol)]


def title(lens: types.CodeLens) -> str:
    assert lens.command is not None
    return lens.command.title


async def test_a_loaded_agents_md_shows_its_position_and_cost(
    launch: Launch, workspace: Workspace, client_name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    isolate(monkeypatch, workspace)
    (workspace.agent_dir / "AGENTS.md").write_text("# Global rules\n", encoding="utf-8")
    agents = workspace.write("AGENTS.md", "# Rules\nKeep it short.\n")
    expected = file_role(domain_prompt(workspace), str(agents))
    assert expected is not None and expected.tokens is not None
    session = await launch(client_name)
    (lens,) = await lenses(session, agents)
    assert title(lens) == (
        f"project_context #2 of 2, ~{expected.tokens.estimate:,} tokens (Pi: {expected.tokens.pi:,})"
    )
    assert lens.range == types.Range(start=types.Position(0, 0), end=types.Position(0, 0))
    assert lens.command is not None and lens.command.command == ""  # text only


async def test_a_shadowed_agents_md_says_which_file_wins(launch: Launch, workspace: Workspace) -> None:
    workspace.write("AGENTS.override.md", "# Override\n")
    agents = workspace.write("AGENTS.md", "# Rules\n")
    session = await launch()
    (lens,) = await lenses(session, agents)
    assert title(lens) == "not loaded: shadowed by AGENTS.override.md"


async def test_the_lens_follows_unsaved_edits(launch: Launch, workspace: Workspace) -> None:
    agents = workspace.write("AGENTS.md", "# Rules\n")
    session = await launch()
    session.open(agents, "# Rules\n")
    before = title((await lenses(session, agents))[0])
    session.replace(agents, "# Rules\n" + "Many more words in the buffer. " * 20 + "\n")
    after = title((await lenses(session, agents))[0])
    assert before != after and after.startswith("project_context #1 of 1, ~")


async def test_a_skill_shows_its_listing_entry_and_body_cost(launch: Launch, workspace: Workspace) -> None:
    skill = workspace.agent_dir / "skills" / "pdf" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("---\nname: pdf\ndescription: Read PDFs.\n---\n# PDF\nLong instructions.\n", encoding="utf-8")
    session = await launch()
    (lens,) = await lenses(session, skill)
    assert title(lens).startswith("Pi loads this skill: #1 of 1 in the skills listing, ~")
    assert title(lens).endswith("tokens when read")


async def test_other_files_get_no_lens(launch: Launch, workspace: Workspace) -> None:
    readme = workspace.write("README.md", "# Readme\n")
    session = await launch()
    assert await lenses(session, readme) == []


async def test_headings_are_symbols_with_the_tokens_of_their_sections(
    launch: Launch, workspace: Workspace, client_name: str
) -> None:
    text = "# Rules 🚀\nIntro.\n\n## Testing\nRun pytest.\n\n## Style\nRuff.\n"
    agents = workspace.write("AGENTS.md", text)
    session = await launch(client_name)
    (top,) = await symbols(session, agents)
    assert (top.name, top.kind) == ("Rules 🚀", types.SymbolKind.String)
    assert [child.name for child in top.children or []] == ["Testing", "Style"]
    # The heading line is 9 code points; the emoji is 2 UTF-16 units (VS Code) or 4 UTF-8 bytes (Neovim offers UTF-8).
    encoding = session.initialize_result.capabilities.position_encoding
    width = {"utf-16": 10, "utf-8": 12, "utf-32": 9}[str(encoding or "utf-16")]
    assert top.selection_range == types.Range(start=types.Position(0, 0), end=types.Position(0, width))
    assert top.range == types.Range(start=types.Position(0, 0), end=types.Position(7, 5))
    testing = (top.children or [])[0]
    assert testing.range == types.Range(start=types.Position(3, 0), end=types.Position(4, 11))
    assert testing.detail is not None and testing.detail.endswith(" tokens (Pi: 6)")  # ceil(22 chars / 4)
