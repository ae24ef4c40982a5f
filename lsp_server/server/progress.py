"""Long commands: ``$/progress`` reports and cancellation that actually stops the work.

A compaction can take a minute against a slow model, so the user sees it progress and can stop
it, from the progress bar (``window/workDoneProgress/cancel``) or by cancelling the request
(``$/cancelRequest``). Both arrive as a ``CancelToken`` being set.

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
import threading
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import Any, TypeVar

from lsprotocol import types
from pygls.exceptions import JsonRpcRequestCancelled
from pygls.progress import Progress

logger = logging.getLogger(__name__)

T = TypeVar("T")
MsgId = int | str
ProgressToken = int | str


class OperationCancelled(Exception):
    """Raised by ``CancelToken.raise_if_cancelled``; ends the operation like a task cancellation."""


class CancelToken:
    """Set once, from any thread; callbacks run in the thread that cancels."""

    def __init__(self) -> None:
        self._event = threading.Event()
        self._lock = threading.Lock()
        self._callbacks: list[Callable[[], None]] = []
        self.reason: str | None = None

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()

    def cancel(self, reason: str = "cancelled") -> bool:
        """Set the token; ``False`` if it was already set."""
        with self._lock:
            if self._event.is_set():
                return False
            self.reason = reason
            self._event.set()
            callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            try:
                callback()
            except Exception:
                logger.exception("cancel callback failed")
        return True

    def on_cancel(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` when the token is set (at once if it already is)."""
        with self._lock:
            if not self._event.is_set():
                self._callbacks.append(callback)
                return
        callback()

    def raise_if_cancelled(self) -> None:
        if self._event.is_set():
            raise OperationCancelled(self.reason or "cancelled")

    def wait(self, timeout: float | None = None) -> bool:
        """For worker threads: sleep until cancelled or ``timeout``; ``True`` if cancelled."""
        return self._event.wait(timeout)


class CancelRegistry:
    """Running operations' tokens by request id and by progress token."""

    def __init__(self) -> None:
        self._by_request: dict[MsgId, CancelToken] = {}
        self._by_progress: dict[ProgressToken, CancelToken] = {}

    @contextmanager
    def track(
        self, token: CancelToken, *, request_id: MsgId | None = None, progress_token: ProgressToken | None = None
    ) -> Iterator[CancelToken]:
        if request_id is not None:
            self._by_request[request_id] = token
        if progress_token is not None:
            self._by_progress[progress_token] = token
        try:
            yield token
        finally:
            if request_id is not None and self._by_request.get(request_id) is token:
                del self._by_request[request_id]
            if progress_token is not None and self._by_progress.get(progress_token) is token:
                del self._by_progress[progress_token]

    def cancel_request(self, request_id: MsgId, reason: str = "cancelled by the client") -> bool:
        token = self._by_request.get(request_id)
        return token is not None and token.cancel(reason)

    def cancel_progress(self, progress_token: ProgressToken, reason: str = "cancelled by the user") -> bool:
        token = self._by_progress.get(progress_token)
        return token is not None and token.cancel(reason)

    def active(self) -> int:
        return len(set(map(id, [*self._by_request.values(), *self._by_progress.values()])))


class Operation:
    """What a long command holds while it runs: its cancel token and a way to report progress."""

    def __init__(self, progress: Progress | None, progress_token: ProgressToken | None, token: CancelToken) -> None:
        self._progress = progress
        self.progress_token = progress_token
        self.token = token
        self.reports = 0

    @property
    def cancelled(self) -> bool:
        return self.token.cancelled

    def report(self, message: str | None = None, percentage: int | None = None) -> None:
        if self._progress is not None and self.progress_token is not None:
            self.reports += 1
            self._progress.report(
                self.progress_token, types.WorkDoneProgressReport(message=message, percentage=percentage)
            )

    def check(self) -> None:
        """Stop here if cancelled (for loops that do not ``await``)."""
        self.token.raise_if_cancelled()

    async def run_in_thread(self, fn: Callable[..., T], *args: Any) -> T:
        """Run blocking code in a worker thread; ``fn`` should poll ``self.token``.

        If the operation is cancelled meanwhile, this raises at once; the thread finishes on
        its own when it next looks at the token.
        """
        return await asyncio.get_running_loop().run_in_executor(None, fn, *args)

    def _begin(self, title: str, message: str | None, cancellable: bool) -> None:
        if self._progress is not None and self.progress_token is not None:
            self._progress.begin(
                self.progress_token,
                types.WorkDoneProgressBegin(title=title, cancellable=cancellable, message=message, percentage=0),
            )

    def _end(self, message: str) -> None:
        if self._progress is not None and self.progress_token is not None:
            self._progress.end(self.progress_token, types.WorkDoneProgressEnd(message=message))
            self._progress.tokens.pop(self.progress_token, None)  # pygls never forgets them


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
    operation = Operation(progress, progress_token, token)
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
        operation._begin(title, message, cancellable)
        try:
            yield operation
        except (asyncio.CancelledError, OperationCancelled) as exc:
            finished = True
            if not token.cancelled:
                operation._end("Stopped")
                raise  # cancelled from elsewhere (server shutdown): not ours to translate
            if task is not None and isinstance(exc, asyncio.CancelledError):
                task.uncancel()
            operation._end("Cancelled")
            raise JsonRpcRequestCancelled(f"{title}: {token.reason}") from None
        except BaseException as exc:
            finished = True
            operation._end(f"Failed: {exc}")
            raise
        else:
            finished = True
            operation._end("Done")
