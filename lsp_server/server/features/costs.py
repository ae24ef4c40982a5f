"""``pi/turnLedger``: what every request of a session cost, as ``pi-context session --costs --json`` shows it.

The answer is :func:`lsp_server.project.costs.turn_ledger` in the project the session belongs to
(the same folder rule as ``pi/contextBudget``), so the sidebar's chart and the CLI's table agree.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lsp_server import protocol_names as names
from lsp_server.server.app import PiLanguageServer
from lsp_server.server.features._common import parse_params
from lsp_server.server.features.sessions import in_session_project, session_path

if TYPE_CHECKING:  # imported in the handler: the server answers initialize without them
    from lsp_server import protocol
    from lsp_server.project.prompt_state import PromptSnapshot
    from lsp_server.session.tail import SessionFile


def register(server: PiLanguageServer) -> None:
    @server.feature(names.TURN_LEDGER)
    async def ledger(ls: PiLanguageServer, params: Any) -> dict[str, Any]:
        from lsp_server import protocol
        from lsp_server.project.costs import turn_ledger

        method = protocol.TURN_LEDGER
        request = parse_params(protocol.TurnLedgerParams, params, method)
        await ls.wait_ready()
        path = session_path(ls, method, request.session)

        def run(snapshot: PromptSnapshot, session: SessionFile) -> protocol.TurnLedgerResult:
            return turn_ledger(snapshot, session, request.leaf_id)

        result, _ = await in_session_project(ls, method, path, request.leaf_id, request.workspace_folder, run)
        return result.wire()
