"""``pi.reloadWorkspace``: forget nothing, re-read everything.

For when the server may have missed something (a folder the watcher could not see, a change made
while watching was off): restart the watcher, re-check every file the checker wants plus every file
it checked before (those deleted meanwhile are cleared), and tell the feature listeners to rebuild.
"""

from __future__ import annotations

from typing import Any

from lsp_server.protocol_names import CMD_RELOAD_WORKSPACE
from lsp_server.server.app import PiLanguageServer


def register(server: PiLanguageServer) -> None:
    @server.command(CMD_RELOAD_WORKSPACE)
    async def reload_workspace(ls: PiLanguageServer, *args: Any) -> dict[str, Any]:
        await ls.wait_started()  # after the first watcher and workspace check, not beside them
        ls.roots = ls.workspace_roots()
        ls.start_watcher()
        count = await ls.check_workspace()
        await ls.watcher_settled()  # the answer says what is watched: by then it is
        ls.notify_listeners("reload", list(ls.roots))
        watcher = ls.watcher
        return {"roots": ls.roots, "watching": watcher.roots if watcher is not None else [], "files": count}
