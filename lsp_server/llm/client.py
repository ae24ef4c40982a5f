"""The interface every model client implements, and the cancel token callers pass to it.

Compaction and branch summaries depend on :class:`LlmClient` only, so the offline summarizer, the
HTTP adapters and a test double are interchangeable.

Cancellation has two forms, on purpose:

* a :class:`CancelToken` (the editor's "cancel" button, ``$/cancelRequest``): ``complete`` stops the
  HTTP stream and *returns* an ``aborted`` reply, so the caller can report it and write nothing;
* cancelling the task that awaits ``complete`` (``asyncio``): the stream is closed the same way and
  ``CancelledError`` propagates, as asyncio code expects (nobody is left to receive a reply).

Either way no partial text is ever returned as a success.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Protocol, TypeVar

from lsp_server.llm.types import (
    ABORTED_MESSAGE,
    AssistantReply,
    CompletionRequest,
    RetryCallback,
    TextProgress,
)

T = TypeVar("T")


class CancelToken:
    """A one-shot cancel flag usable from the event loop that runs the request."""

    def __init__(self) -> None:
        self._event = asyncio.Event()

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()

    def cancel(self) -> None:
        self._event.set()

    async def wait(self) -> None:
        await self._event.wait()


class LlmClient(Protocol):
    """Something that turns a :class:`CompletionRequest` into an :class:`AssistantReply`."""

    @property
    def provider(self) -> str: ...

    async def complete(
        self,
        request: CompletionRequest,
        *,
        cancel: CancelToken | None = None,
        on_text_delta: TextProgress | None = None,
        on_retry: RetryCallback | None = None,
    ) -> AssistantReply: ...

    async def aclose(self) -> None: ...


def aborted_reply(*, model: str, provider: str, attempts: int = 0) -> AssistantReply:
    """The reply for a cancelled request: no text, Pi's abort message."""
    return AssistantReply(
        text="",
        stop_reason="aborted",
        error_message=ABORTED_MESSAGE,
        model=model,
        provider=provider,
        attempts=attempts,
    )


async def run_cancellable(
    work: Callable[[], Awaitable[T]], cancel: CancelToken | None, on_cancel: Callable[[], T]
) -> T:
    """Run ``work()`` until it finishes or ``cancel`` fires; on cancel, stop it and return ``on_cancel()``.

    Stopping means cancelling the task, which makes httpx close the response stream (and so the
    connection) immediately. Cancellation of the *calling* task is forwarded to the work and re-raised.
    """
    if cancel is None:
        return await work()
    if cancel.cancelled:
        return on_cancel()

    async def _wrapped() -> T:
        return await work()

    task: asyncio.Task[T] = asyncio.ensure_future(_wrapped())
    waiter = asyncio.ensure_future(cancel.wait())
    try:
        await asyncio.wait({task, waiter}, return_when=asyncio.FIRST_COMPLETED)
    except asyncio.CancelledError:
        await _stop(task, waiter)
        raise
    if task.done():
        waiter.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await waiter
        return task.result()
    await _stop(task, waiter)
    return on_cancel()


async def _stop(*tasks: asyncio.Future[object] | asyncio.Task[object]) -> None:
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
