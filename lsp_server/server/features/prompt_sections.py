"""``pi/promptSectionsChanged``: the open projects follow every change that can touch their prompt.

The work is :class:`lsp_server.server.projects.OpenProjects` (``ls.projects``); this module
connects it to the server's file events and offers its debug view.
"""

from __future__ import annotations

import asyncio
from typing import Any

from lsp_server.server.app import PiLanguageServer
from lsp_server.server.errors import log_failure

DEBUG_PROMPT_STATE = "pi.debug.promptState"


def register(server: PiLanguageServer) -> None:
    def listener(reason: str, paths: list[str]) -> None:
        try:
            server.projects.on_event(reason, paths)  # built on first use, not at start-up
        except Exception as exc:
            log_failure(server, f"prompt sections ({reason})", exc)

    server.listeners.append(listener)

    if server.debug:

        @server.command(DEBUG_PROMPT_STATE)
        async def debug_prompt_state(ls: PiLanguageServer, *args: Any) -> dict[str, Any]:
            """Per cwd: builds, notifications sent, skill cache use (``{"idle": true}`` waits first)."""
            await ls.wait_ready()
            options = args[0] if args and isinstance(args[0], dict) else {}
            if options.get("idle"):
                await asyncio.wait_for(ls.scheduler.idle(), timeout=30)
            return ls.projects.describe()
