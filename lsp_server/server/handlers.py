"""The custom methods' handlers, registered from the method table: params in, one call, result out.

:data:`HANDLERS` names, for every client → server row of :data:`lsp_server.methods.METHODS`, the
function of the application layer that answers it (``handler(workspace, params)``). :func:`register`
walks the table: each row's params are validated with its model (a bad request is an InvalidParams
answer naming each bad field), the handler is called with the server's workspace, and its answer is
sent as JSON (a protocol model as the row's result model). ``tests/lsp/test_method_table.py`` fails
when a row has no handler or a handler no row.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from pydantic import ValidationError

from lsp_server import protocol, protocol_names
from lsp_server.methods import METHODS, Method
from lsp_server.server.app import PiLanguageServer
from lsp_server.workspace import (
    budget_requests,
    chat_requests,
    cost_requests,
    prompt_requests,
    session_requests,
    summary_commands,
)
from lsp_server.workspace.errors import InvalidParams
from lsp_server.workspace.workspace import Workspace

Handler = Callable[[Workspace, Any], Awaitable[Any]]


async def _reload_workspace(ws: Workspace, params: None) -> dict[str, Any]:
    return await ws.reload(ws.client.folders())


HANDLERS: Mapping[str, Handler] = {
    protocol_names.SYSTEM_PROMPT: prompt_requests.system_prompt,
    protocol_names.CONTEXT_BUDGET: budget_requests.context_budget,
    protocol_names.PROJECTED_REQUEST: budget_requests.projected_request,
    protocol_names.TURN_LEDGER: cost_requests.ledger,
    protocol_names.USAGE: cost_requests.usage,
    protocol_names.SESSIONS: session_requests.sessions,
    protocol_names.SESSION_TREE: session_requests.session_tree,
    protocol_names.SESSION_RENAME: session_requests.rename,
    protocol_names.CMD_COMPACT: summary_commands.compact,
    protocol_names.CMD_BRANCH_SUMMARY: summary_commands.branch_summary,
    protocol_names.CMD_RELOAD_WORKSPACE: _reload_workspace,
    protocol_names.CHAT_LOCATE: chat_requests.locate,
    protocol_names.CHAT_START: chat_requests.start,
    protocol_names.CHAT_LIST: chat_requests.list_chats,
    protocol_names.CHAT_STATE: chat_requests.state,
    protocol_names.CHAT_PROMPT: chat_requests.prompt,
    protocol_names.CHAT_ABORT: chat_requests.abort,
    protocol_names.CHAT_STOP: chat_requests.stop,
    protocol_names.CHAT_COMPACT: chat_requests.compact,
    protocol_names.CHAT_COMPACT_PREVIEW: chat_requests.compact_preview,
    protocol_names.CHAT_FORK: chat_requests.fork,
    protocol_names.CHAT_FORK_POINTS: chat_requests.fork_points,
    protocol_names.CHAT_SET_MODEL: chat_requests.set_model,
    protocol_names.CHAT_SET_THINKING_LEVEL: chat_requests.set_thinking_level,
    protocol_names.CHAT_MESSAGES: chat_requests.messages,
    protocol_names.CHAT_COMMANDS: chat_requests.commands,
    protocol_names.CHAT_MODELS: chat_requests.models,
    protocol_names.CHAT_PREFLIGHT: chat_requests.preflight,
    protocol_names.CHAT_UI_RESPONSE: chat_requests.ui_response,
    protocol_names.CHAT_RELOAD: chat_requests.reload,
    protocol_names.CHAT_TRUST: chat_requests.trust,
    protocol_names.CHAT_CLEAR_QUEUE: chat_requests.clear_queue,
}


def parse_params(model: type[protocol.WireModel], params: Any, method: str) -> Any:
    """``params`` (JSON; ``None`` means ``{}``) as ``model``, or InvalidParams naming each bad field."""
    data = {} if params is None else params
    if isinstance(data, list) and len(data) == 1:  # commands: arguments = [object]
        data = data[0]
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(part) for part in error['loc']) or 'params'}: {error['msg']}" for error in exc.errors()
        )
        raise InvalidParams(method, problems) from None


def answer(value: Any) -> Any:
    """A handler's answer as JSON: a protocol model by its aliases without nulls, anything else as it is."""
    return value.wire() if isinstance(value, protocol.WireModel) else value


def _call(row: Method, handler: Handler) -> Callable[[PiLanguageServer, Any], Awaitable[Any]]:
    model = protocol.ALL_MODELS[row.params] if row.params is not None else None

    async def call(ls: PiLanguageServer, params: Any) -> Any:
        request = parse_params(model, params, row.name) if model is not None else None
        return answer(await handler(ls.ws, request))

    return call


def _command(call: Callable[[PiLanguageServer, Any], Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
    """A command handler as pygls calls it: ``(ls, *arguments)`` (pygls matches the signature's parameters)."""

    async def command(ls: PiLanguageServer, *args: Any) -> Any:
        return await call(ls, list(args))

    return command


def register(server: PiLanguageServer) -> None:
    """A handler for every client → server row of the method table (a command as a command)."""
    for row in METHODS:
        if not row.to_server:
            continue
        call = _call(row, HANDLERS[row.name])
        if row.kind == "command":
            server.command(row.name)(_command(call))
        else:
            server.feature(row.name)(call)
