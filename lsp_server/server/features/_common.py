"""What the custom-method modules share: params validated by the protocol models, and the folder a request means.

Custom requests arrive as plain JSON. :func:`parse_params` validates them with the method's
pydantic model and turns a validation error into JSON-RPC ``InvalidParams`` with a readable
message (``pi/sessionTree: session: Field required``), so a client bug is an answer, not a crash.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, TypeVar

from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams

from lsp_server.server.app import PiLanguageServer

if TYPE_CHECKING:
    from lsp_server.protocol import WireModel

M = TypeVar("M", bound="WireModel")

REQUEST_FAILED = -32803  # LSP's RequestFailed: a valid request the server could not carry out


def request_failed(message: str) -> JsonRpcException:
    return JsonRpcException(message=message, code=REQUEST_FAILED)


def invalid(method: str, message: str) -> JsonRpcInvalidParams:
    return JsonRpcInvalidParams(message=f"{method}: {message}")


def parse_params(model: type[M], params: Any, method: str) -> M:
    """``params`` (JSON; ``None`` means ``{}``) as ``model``, or InvalidParams naming each bad field."""
    from pydantic import ValidationError

    data = {} if params is None else params
    if isinstance(data, list) and len(data) == 1:  # commands: arguments = [object]
        data = data[0]
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(part) for part in error['loc']) or 'params'}: {error['msg']}" for error in exc.errors()
        )
        raise invalid(method, problems) from None


def resolve_folder(ls: PiLanguageServer, method: str, workspace_folder: str | None, cwd: str | None = None) -> str:
    """The cwd a request is about: ``cwd``, else the named folder, else the first folder."""
    if cwd is not None:
        if not os.path.isabs(cwd):
            raise invalid(method, f"cwd must be an absolute path (got {cwd!r})")
        return os.path.normpath(cwd)
    if workspace_folder is not None:
        path = ls.uri_to_path(workspace_folder)
        if path is None:
            raise invalid(method, f"workspaceFolder must be a file URI (got {workspace_folder!r})")
        if path not in ls.roots:
            raise invalid(method, f"{workspace_folder} is not a workspace folder of this server")
        return path
    if not ls.roots:
        raise invalid(method, "no workspace folder is open: pass cwd")
    return ls.roots[0]
