"""``pi/promptSectionsChanged``'s ``cache``: a real save measured against the two prompts the server built."""

from __future__ import annotations

import pytest

from lsp_server.js.strings import js_len
from lsp_server.tokens.pi import pi_text_tokens
from tests.lsp._custom import SECTIONS_CHANGED, domain_prompt, isolate, received, save
from tests.lsp.conftest import Launch, Workspace
from tests.lsp.test_prompt_sections import started


async def test_a_saved_agents_md_reports_the_patch_and_the_prefix_new_sessions_keep(
    launch: Launch, workspace: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    isolate(monkeypatch, workspace)
    agents = workspace.write("AGENTS.md", "# Rules\nBe brief.\n")
    before = domain_prompt(workspace).prompt.text
    session = await started(launch)
    edited = "# Rules\nBe thorough.\n"
    save(session, agents, edited)
    await session.wait_for(SECTIONS_CHANGED, lambda: bool(received(session, SECTIONS_CHANGED)))
    after = domain_prompt(workspace).prompt.text
    (params,) = received(session, SECTIONS_CHANGED)
    cache = params["cache"]
    index = next(i for i, (a, b) in enumerate(zip(before, after, strict=False)) if a != b)
    assert after[index:].startswith("thorough.")
    assert cache["firstDifference"] == js_len(after[:index])
    assert cache["keptTokens"]["pi"] == pi_text_tokens(after[:index])
    assert cache["resentTokens"]["pi"] == pi_text_tokens(after[index:])
    assert cache["patchTokens"]["pi"] == pi_text_tokens(params["renderedUpdate"])
    assert cache["keptTokens"]["estimate"] > 0 and cache["resentTokens"]["estimate"] > 0
