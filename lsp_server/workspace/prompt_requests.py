"""``pi/systemPrompt``: the system prompt Pi would send for a workspace folder, section by section.

Each section comes with its text, position, token counts (Pi's ``ceil(chars/4)`` and the
configured estimator) and the files behind it; the answer also has the rendered prompt, the
totals, trust and Pi's loading warnings. Open buffers count as the files' text. The numbers are
the ones ``pi-context prompt --json`` prints for the same folder.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsp_server import protocol
from lsp_server.project.prompt_answers import system_prompt_result
from lsp_server.workspace.session_access import resolve_folder

if TYPE_CHECKING:
    from lsp_server.workspace.workspace import Workspace


async def system_prompt(ws: Workspace, params: protocol.SystemPromptParams) -> protocol.SystemPromptResult:
    await ws.wait_ready()
    cwd = resolve_folder(ws, protocol.SYSTEM_PROMPT, params.workspace_folder, params.cwd)
    async with ws.projects.foreground():  # background checks hold back until the answer is made
        snapshot = await ws.projects.snapshot(cwd)
        return system_prompt_result(snapshot, ws.client.uri_for)
