"""Long commands: ``$/progress`` reports and cancellation that actually stops the work.

A compaction can take a minute against a slow model, so the user sees it progress and can stop
it, from the progress bar (``window/workDoneProgress/cancel``) or by cancelling the request
(``$/cancelRequest``). Both arrive as a ``CancelToken`` being set (:mod:`lsp_server.workspace.cancellation`:
the token, the registry and the ``Operation`` a command holds, without pygls; here what LSP adds).

Why our own token rather than pygls' machinery: for ``workspace/executeCommand`` pygls 2.1 keeps
the *outer* request future in its table, so ``$/cancelRequest`` answers "cancelled" but leaves the
command's task running (the server would go on and write a summary nobody wants), and
``window/workDoneProgress/cancel`` only cancels a bookkeeping future. ``long_operation`` ties
both to the token and the token to the command's asyncio task: cancelling raises
``CancelledError`` at the task's next ``await`` (an HTTP call to the model stops at once), and
code running in a thread sees ``token.cancelled`` and stops at its next check. The request then
answers JSON-RPC error -32800 (RequestCancelled), and the ``$/progress`` end says "Cancelled".
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from lsprotocol import types
from pygls.exceptions import JsonRpcRequestCancelled
from pygls.progress import Progress

from lsp_server.workspace.cancellation import (
    CancelRegistry,
    CancelToken,
    MsgId,
    Operation,
    OperationCancelled,
    ProgressToken,
)

logger = logging.getLogger(__name__)


class ClientProgress:
    """An operation's progress as ``$/progress`` with one token (``begin``, ``report``, ``end``)."""

    def __init__(self, progress: Progress, token: ProgressToken) -> None:
        self._progress = progress
        self._token = token

    def begin(self, title: str, message: str | None, cancellable: bool) -> None:
        self._progress.begin(
            self._token,
            types.WorkDoneProgressBegin(title=title, cancellable=cancellable, message=message, percentage=0),
        )

    def report(self, message: str | None, percentage: int | None) -> None:
        self._progress.report(self._token, types.WorkDoneProgressReport(message=message, percentage=percentage))

    def end(self, message: str) -> None:
        self._progress.end(self._token, types.WorkDoneProgressEnd(message=message))
        self._progress.tokens.pop(self._token, None)  # pygls never forgets them


async def create_progress_token(progress: Progress, client_supports: bool) -> ProgressToken | None:
    """Ask the client for a server-initiated progress token; ``None`` if it cannot show one."""
    if not client_supports:
        return None
    token = f"pi-context/{uuid.uuid4()}"
    try:
        await progress.create_async(token)
    except Exception as exc:  # a client refusing progress must not fail the command
        logger.info("window/workDoneProgress/create refused: %s", exc)
        return None
    return token


@asynccontextmanager
async def long_operation(
    title: str,
    *,
    registry: CancelRegistry,
    progress: Progress | None,
    progress_token: ProgressToken | None = None,
    request_id: MsgId | None = None,
    cancellable: bool = True,
    message: str | None = None,
) -> AsyncIterator[Operation]:
    """Run the body as a reported, cancellable operation of the current asyncio task.

    ``progress_token`` is the client's ``workDoneToken`` or one from ``create_progress_token``;
    without one nothing is reported but cancellation by request id still works. On
    cancellation the body's exception is replaced by ``JsonRpcRequestCancelled`` (-32800).
    """
    token = CancelToken()
    sink = ClientProgress(progress, progress_token) if progress is not None and progress_token is not None else None
    operation = Operation(sink, progress_token, token)
    task = asyncio.current_task()
    loop = asyncio.get_running_loop()
    finished = False

    def cancel_task() -> None:
        if not finished and task is not None:
            task.cancel()

    def on_cancel() -> None:  # any thread -> the task's loop
        loop.call_soon_threadsafe(cancel_task)

    token.on_cancel(on_cancel)
    with registry.track(token, request_id=request_id, progress_token=progress_token if cancellable else None):
        operation.begin(title, message, cancellable)
        try:
            yield operation
        except (asyncio.CancelledError, OperationCancelled) as exc:
            finished = True
            if not token.cancelled:
                operation.end("Stopped")
                raise  # cancelled from elsewhere (server shutdown): not ours to translate
            if task is not None and isinstance(exc, asyncio.CancelledError):
                task.uncancel()
            operation.end("Cancelled")
            raise JsonRpcRequestCancelled(f"{title}: {token.reason}") from None
        except BaseException as exc:
            finished = True
            operation.end(f"Failed: {exc}")
            raise
        else:
            finished = True
            operation.end("Done")
