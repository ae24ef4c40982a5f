"""Cancellation that actually stops the work, and the operation a long command holds while it runs.

A compaction can take a minute against a slow model, so the user sees it progress and can stop it:
from the progress bar or by cancelling the request; both arrive as a :class:`CancelToken` being
set (the LSP binding, :mod:`lsp_server.server.progress`, ties ``$/cancelRequest`` and
``window/workDoneProgress/cancel`` to it and turns the end into an answer). Code running in a thread
sees ``token.cancelled`` and stops at its next check; the binding cancels the command's asyncio task
too, so an ``await`` (an HTTP call to the model) stops at once.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, Protocol, TypeVar

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


class ProgressSink(Protocol):
    """Where an operation's progress goes: the editor's progress UI (the LSP binding's ``$/progress``)."""

    def begin(self, title: str, message: str | None, cancellable: bool) -> None: ...
    def report(self, message: str | None, percentage: int | None) -> None: ...
    def end(self, message: str) -> None: ...


class Operation:
    """What a long command holds while it runs: its cancel token and a way to report progress."""

    def __init__(self, progress: ProgressSink | None, progress_token: ProgressToken | None, token: CancelToken) -> None:
        self._progress = progress
        self.progress_token = progress_token
        self.token = token
        self.reports = 0

    @property
    def cancelled(self) -> bool:
        return self.token.cancelled

    def report(self, message: str | None = None, percentage: int | None = None) -> None:
        if self._progress is not None:
            self.reports += 1
            self._progress.report(message, percentage)

    def check(self) -> None:
        """Stop here if cancelled (for loops that do not ``await``)."""
        self.token.raise_if_cancelled()

    async def run_in_thread(self, fn: Callable[..., T], *args: Any) -> T:
        """Run blocking code in a worker thread; ``fn`` should poll ``self.token``.

        If the operation is cancelled meanwhile, this raises at once; the thread finishes on
        its own when it next looks at the token.
        """
        return await asyncio.get_running_loop().run_in_executor(None, fn, *args)

    def begin(self, title: str, message: str | None, cancellable: bool) -> None:
        if self._progress is not None:
            self._progress.begin(title, message, cancellable)

    def end(self, message: str) -> None:
        if self._progress is not None:
            self._progress.end(message)
