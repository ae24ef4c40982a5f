"""Hover on SKILL.md frontmatter through the real server, in both recorded clients."""

from __future__ import annotations

import pytest
from lsprotocol import types
from pytest_lsp import client_capabilities

from tests.lsp.conftest import Launch, Session, Workspace
from tests.lsp.editing_client import encoding_of, position_of

SKILL = ".pi/skills/pdf/SKILL.md"
TEXT = "---\ndescription: Fill 😀 forms\ndisable-model-invocation: yes\n---\nBody\n"


async def hover(session: Session, text: str, line: int, column: int, path: str = SKILL) -> types.Hover | None:
    file = session.workspace.write(path, text)
    if session.workspace.uri(file) not in session.versions:
        session.open(file, text)
    params = types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=session.workspace.uri(file)),
        position=position_of(text, line, column, encoding_of(session)),
    )
    return await session.client.text_document_hover_async(params)


def markup(result: types.Hover | None) -> types.MarkupContent:
    assert result is not None and isinstance(result.contents, types.MarkupContent)
    return result.contents


async def test_hover_on_a_key_says_what_it_does_and_who_honours_it(launch: Launch, client_name: str) -> None:
    session = await launch(client_name)
    content = markup(await hover(session, TEXT, 2, 3))
    assert content.kind == types.MarkupKind.Markdown
    assert content.value.startswith("**`disable-model-invocation`** · boolean")
    for agent in ("**Pi**", "**Claude Code**", "**VS Code**", "**Agent Skills spec (skills-ref)**", "**Codex**"):
        assert agent in content.value


async def test_hover_on_a_value_explains_it_first(launch: Launch, client_name: str) -> None:
    session = await launch(client_name)
    result = await hover(session, TEXT, 2, 27)
    assert markup(result).value.startswith('This is the string "yes", not the boolean `true`: Pi keeps the skill')
    assert result is not None and result.range is not None
    encoding = encoding_of(session)
    assert result.range.start == position_of(TEXT, 2, 26, encoding)


async def test_hover_range_and_length_count_in_the_clients_encoding(launch: Launch, client_name: str) -> None:
    session = await launch(client_name)
    result = await hover(session, TEXT, 1, 20)  # after the emoji
    assert result is not None and result.range is not None
    encoding = encoding_of(session)
    assert (result.range.start, result.range.end) == (
        position_of(TEXT, 1, 13, encoding),
        position_of(TEXT, 1, 25, encoding),
    )
    assert "Length: 13 of 1024 UTF-16 units (12 characters)" in markup(result).value


async def prompt_built(session: Session) -> None:
    """Wait for the folder's prompt: a hover waits for it only a moment (PROMPT_WAIT_S), and on a busy
    machine even a small workspace's first build may take longer than that."""
    await session.client.protocol.send_request_async("pi/systemPrompt", {})


async def test_hover_on_the_name_shows_the_name_pi_uses(launch: Launch) -> None:
    session = await launch("neovim")
    text = "---\nname: 12\ndescription: d\n---\n"
    session.open(session.workspace.write(SKILL, text), text)
    await prompt_built(session)
    value = markup(await hover(session, text, 1, 1)).value
    assert "Pi uses the name `pdf` (the folder name)." in value
    # The workspace is not trusted: the hover says what the code lens says (FileRole.load_sentence).
    assert "Pi does not load this skill: the project is not trusted, so Pi ignores its skills." in value


@pytest.mark.parametrize("trusted", [False, True])
async def test_the_code_lens_and_the_hover_agree_on_whether_pi_loads_the_skill(
    launch: Launch, workspace: Workspace, trusted: bool
) -> None:
    from tests.lsp.test_symbols import lenses, title

    text = "---\nname: pdf\ndescription: Read PDFs.\n---\n# PDF\n"
    path = workspace.write(SKILL, text)
    session = await launch(init_options={"piContext": {"trust": "trusted" if trusted else "untrusted"}})
    session.open(path, text)
    (lens,) = await lenses(session, path)  # the lens waits for the prompt; the hover then has it
    value = markup(await hover(session, text, 2, 2)).value
    sentence = title(lens).split(", ~")[0].split("; body")[0]  # the sentence, without the costs
    assert sentence.startswith("Pi loads this skill" if trusted else "Pi does not load this skill")
    assert f"{sentence}." in value


async def test_a_plaintext_client_gets_plain_text(launch: Launch) -> None:
    capabilities = client_capabilities("visual-studio-code")
    assert capabilities.text_document is not None and capabilities.text_document.hover is not None
    capabilities.text_document.hover.content_format = [types.MarkupKind.PlainText]
    session = await launch("visual-studio-code", capabilities=capabilities)
    content = markup(await hover(session, TEXT, 2, 3))
    assert content.kind == types.MarkupKind.PlainText
    assert content.value.startswith("disable-model-invocation · boolean") and "**" not in content.value


async def test_no_hover_in_the_body(launch: Launch) -> None:
    session = await launch("visual-studio-code")
    assert await hover(session, TEXT, 4, 1) is None


async def test_hover_on_a_context_files_first_line_shows_which_candidate_pi_takes(launch: Launch) -> None:
    session = await launch("neovim")
    session.workspace.write("CLAUDE.md", "# Claude\n")
    value = markup(await hover(session, "# Agents\n", 0, 2, path="AGENTS.md")).value
    assert value.startswith("**`AGENTS.md`** · context file\n\nPi takes this file for its folder")
    assert "- `CLAUDE.md`: ignored: an earlier name wins" in value
