"""``pi/usage``: usage and cost across every session, as ``pi-context usage --json`` shows it.

The answer is :func:`lsp_server.usage.collect.collect` (through the server's :class:`UsageStore`)
over the asked folders, default the ``sessions/`` folder of every workspace folder's agent dir,
priced with the project of ``workspaceFolder`` (its agent dir's models.json, then Pi's catalog). It
runs in a worker thread: the first run over a large folder reads every session; later runs read
only what Pi appended.
"""

from __future__ import annotations

import asyncio
import os
from typing import TYPE_CHECKING, Any

from lsp_server import protocol_names as names
from lsp_server.server.app import PiLanguageServer
from lsp_server.server.features._common import invalid, parse_params, resolve_folder

if TYPE_CHECKING:  # imported in the handler: the server answers initialize without them
    from lsp_server import protocol


def register(server: PiLanguageServer) -> None:
    @server.feature(names.USAGE)
    async def usage(ls: PiLanguageServer, params: Any) -> dict[str, Any]:
        from lsp_server import protocol
        from lsp_server.project.usage import default_roots, usage_query, usage_result

        method = protocol.USAGE
        request = parse_params(protocol.UsageParams, params, method)
        await ls.wait_ready()
        folders = ls.roots or [os.getcwd()]
        roots = (
            _roots(ls, method, request) if request.folders else default_roots([ls.projects.open(f) for f in folders])
        )
        query = usage_query(request, roots)
        if isinstance(query, str):
            raise invalid(method, query)
        cwd = resolve_folder(ls, method, request.workspace_folder) if ls.roots else os.getcwd()
        prices_for = ls.projects.open(cwd).prices.prices_for
        limits = ls.session_limits()
        report = await asyncio.get_running_loop().run_in_executor(None, ls.usage.report, query, prices_for, limits)
        return usage_result(report, roots).wire()


def _roots(ls: PiLanguageServer, method: str, request: protocol.UsageParams) -> tuple[str, ...]:
    roots: list[str] = []
    for folder in request.folders or ():
        path = ls.uri_to_path(folder) if folder.startswith("file:") else folder
        if path is None or not os.path.isabs(path):
            raise invalid(method, f"folders: {folder!r} is not an absolute path or a file URI")
        roots.append(os.path.normpath(path))
    return tuple(roots)
