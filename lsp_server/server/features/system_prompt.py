"""``pi/systemPrompt``: the system prompt Pi would send for a workspace folder, section by section.

Each section comes with its text, position, token counts (Pi's ``ceil(chars/4)`` and the
configured estimator) and the files behind it; the answer also has the rendered prompt, the
totals, trust and Pi's loading warnings. Open buffers count as the files' text. The numbers are
the ones ``pi-context prompt --json`` prints for the same folder.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lsp_server import protocol_names as names
from lsp_server.server.app import PiLanguageServer
from lsp_server.server.features._common import parse_params, resolve_folder
from lsp_server.server.lazy import lazy_module

if TYPE_CHECKING:
    from lsp_server import protocol
else:
    protocol = lazy_module("lsp_server.protocol")  # pydantic on first use, not at start-up (server/lazy.py)


def register(server: PiLanguageServer) -> None:
    @server.feature(names.SYSTEM_PROMPT)
    async def system_prompt(ls: PiLanguageServer, params: Any) -> dict[str, Any]:
        from lsp_server.project.prompt_answers import system_prompt_result

        request = parse_params(protocol.SystemPromptParams, params, protocol.SYSTEM_PROMPT)
        await ls.wait_ready()
        cwd = resolve_folder(ls, protocol.SYSTEM_PROMPT, request.workspace_folder, request.cwd)
        async with ls.projects.foreground():  # background checks hold back until the answer is made
            snapshot = await ls.projects.snapshot(cwd)
            return system_prompt_result(snapshot, ls.path_to_uri).wire()
