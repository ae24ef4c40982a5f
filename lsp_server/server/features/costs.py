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
        from lsp_server.project.analysis import analyze
        from lsp_server.project.costs import prompt_update, turn_ledger
        from lsp_server.server.features.chat_live import drift_wire

        method = protocol.TURN_LEDGER
        request = parse_params(protocol.TurnLedgerParams, params, method)
        await ls.wait_ready()
        path = session_path(ls, method, request.session)
        chat = ls.chats.holder(path) if request.leaf_id is None and len(ls.chats) else None
        held = chat.held if chat is not None else None
        drift = chat.drift if chat is not None else None
        # What Pi would record after the drift's action: the prompt the files make now, as that Pi would read them.
        disk = await ls.projects.disk_snapshot(chat.spec.cwd) if chat is not None and drift and drift.sections else None

        def run(snapshot: PromptSnapshot, session: SessionFile) -> protocol.TurnLedgerResult:
            analysis = analyze(snapshot, session, request.leaf_id)
            result = turn_ledger(snapshot, session, request.leaf_id, analysis)
            if chat is None or held is None:
                return result
            live = protocol.LiveChatInfo(
                chat_id=chat.chat_id,
                held_since=held.read_at,
                drift=drift_wire(drift),
                reload=prompt_update(disk, analysis) if disk is not None else None,
            )
            return result.model_copy(update={"live_chat": live})

        result, _ = await in_session_project(ls, method, path, request.leaf_id, request.workspace_folder, run)
        return result.wire()
