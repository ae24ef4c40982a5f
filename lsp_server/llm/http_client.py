"""The part of every HTTP adapter that is not about a wire format: one streaming POST per attempt,
the retry loop, the deadlines, the limits on what is read, cancellation and redaction.

Subclasses say where to post (:meth:`HttpLlmClient._endpoint`), with which headers and body, and
how to read the stream (:meth:`HttpLlmClient._new_state`). The policy itself is described in
:mod:`lsp_server.llm.policy`.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Required, TypedDict

import httpx

from lsp_server import __version__
from lsp_server.llm.client import CancelToken, aborted_reply, run_cancellable
from lsp_server.llm.policy import (
    MAX_LINE_CHARS,
    RetryPolicy,
    Timeouts,
    deadline_message,
    idle_message,
    is_retryable_status,
    line_too_long_message,
    output_cap,
    parse_retry_after,
    too_long_message,
)
from lsp_server.llm.sse import BoundedLines, SseParser
from lsp_server.llm.stream_state import AttemptResult, StreamState, failed
from lsp_server.llm.types import (
    AssistantReply,
    CompletionRequest,
    RetryCallback,
    RetryNotice,
    TextProgress,
)
from lsp_server.redaction import Redactor, Secret
from lsp_server.vocabulary.providers import DEFAULT_MAX_TOKENS

if TYPE_CHECKING:
    from lsp_server.llm.summarizer_config import SummarizerConfig

log = logging.getLogger("lsp_server.llm")

_MAX_ERROR_BODY = 64 * 1024  # bytes of an error response we read
_MAX_ERROR_TEXT = 500  # characters of an error message we pass on (cut after redaction)


class HttpClientOptions(TypedDict, total=False):
    """What every HTTP adapter is built with; an adapter's constructor adds its own keywords."""

    base_url: Required[str]
    model: Required[str]
    api_key: Secret | None
    retry: RetryPolicy | None
    timeouts: Timeouts | None
    extra_headers: Mapping[str, str] | None
    reasoning: bool  # the model accepts a reasoning level (each format sends it its own way)
    output_tokens: int  # the output limit a reply is read against when the request sets none


def options_from_config(
    config: SummarizerConfig, *, base_url: str, model: str, api_key: Secret | None
) -> HttpClientOptions:
    """The common options from a checked summarizer configuration (each adapter's ``client_from_config``)."""
    return HttpClientOptions(
        base_url=base_url,
        model=model,
        api_key=api_key,
        retry=config.retry,
        timeouts=config.timeouts,
        extra_headers=config.extra_headers,
        reasoning=config.reasoning,
        output_tokens=config.max_tokens,
    )


class HttpLlmClient(ABC):
    """A streaming model client over one ``httpx.AsyncClient`` (created on first use)."""

    provider: str = "http"

    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        api_key: Secret | None = None,
        retry: RetryPolicy | None = None,
        timeouts: Timeouts | None = None,
        extra_headers: Mapping[str, str] | None = None,
        reasoning: bool = False,
        output_tokens: int = DEFAULT_MAX_TOKENS,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.model = model
        self._api_key = api_key
        self._redactor = Redactor([api_key])  # the key in any form: replies and messages pass through it
        self.retry = retry or RetryPolicy()
        self.timeouts = timeouts or Timeouts()
        self._extra_headers = dict(extra_headers or {})
        self.reasoning = reasoning
        self.output_tokens = output_tokens
        self._client: httpx.AsyncClient | None = None

    def __repr__(self) -> str:
        key = "set" if self._api_key else "none"
        return f"{type(self).__name__}(base_url={self._redact(self.base_url)!r}, model={self.model!r}, api_key={key})"

    # -- what subclasses provide -------------------------------------------------------------

    @abstractmethod
    def _endpoint(self) -> str: ...

    @abstractmethod
    def _auth_headers(self, key: str) -> dict[str, str]: ...

    @abstractmethod
    def _body(self, request: CompletionRequest, model: str) -> dict[str, Any]: ...

    @abstractmethod
    def _new_state(self, model: str) -> StreamState: ...

    def _error_message(self, status: int, body: str) -> str:
        """``<status> <message>``: the provider's ``error.message`` when the body has one."""
        message = body.strip()
        try:
            parsed = json.loads(body)
        except ValueError:
            parsed = None
        if isinstance(parsed, dict):
            error = parsed.get("error")
            if isinstance(error, dict) and isinstance(error.get("message"), str):
                message = error["message"]
            elif isinstance(error, str):
                message = error
            elif isinstance(parsed.get("message"), str):
                message = parsed["message"]
        return f"{status} {message}" if message else f"{status} (empty response body)"

    # -- the interface -----------------------------------------------------------------------

    async def complete(
        self,
        request: CompletionRequest,
        *,
        cancel: CancelToken | None = None,
        on_text_delta: TextProgress | None = None,
        on_retry: RetryCallback | None = None,
    ) -> AssistantReply:
        model = request.model or self.model
        attempts = [0]

        async def work() -> AssistantReply:
            return await self._complete_with_retries(request, model, attempts, on_text_delta, on_retry)

        def on_cancel() -> AssistantReply:
            log.info("%s request cancelled after %d attempt(s)", self.provider, attempts[0])
            return aborted_reply(model=model, provider=self.provider, attempts=attempts[0])

        return await run_cancellable(work, cancel, on_cancel)

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None

    async def __aenter__(self) -> HttpLlmClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    # -- the retry loop ----------------------------------------------------------------------

    async def _complete_with_retries(
        self,
        request: CompletionRequest,
        model: str,
        attempts: list[int],
        on_text_delta: TextProgress | None,
        on_retry: RetryCallback | None,
    ) -> AssistantReply:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.timeouts.total_s
        retries = 0
        while True:
            attempts[0] += 1
            try:
                async with asyncio.timeout_at(deadline):
                    result = await self._attempt(request, model, on_text_delta)
            except TimeoutError:
                result = failed(deadline_message(self.timeouts.total_s), retryable=False, model=model)
            # Every message leaves the attempt clean: retry notices, logs and the reply all see
            # only this form.
            result = self._cleaned(result)
            if result.stop_reason != "error" or not result.retryable or retries >= self.retry.max_retries:
                return self._reply(result, model, attempts[0])
            retries += 1
            delay = result.retry_after_s if result.retry_after_s is not None else self.retry.backoff_s(retries)
            if result.retry_after_s is not None and result.retry_after_s > self.retry.max_retry_after_s:
                message = (
                    f"{result.error_message} (server asked to retry after {result.retry_after_s:g}s, "
                    f"more than the {self.retry.max_retry_after_s:g}s limit)"
                )
                return self._reply(failed(message, retryable=False, model=model), model, attempts[0])
            if loop.time() + delay >= deadline:
                return self._reply(result, model, attempts[0])
            notice = RetryNotice(retries, self.retry.max_retries, delay, result.error_message or "Unknown error")
            log.info(
                "%s request failed (%s); retry %d/%d in %.3gs",
                self.provider,
                notice.error_message,
                retries,
                self.retry.max_retries,
                delay,
            )
            if on_retry is not None:
                on_retry(notice)
            await asyncio.sleep(delay)

    def _cleaned(self, result: AttemptResult) -> AttemptResult:
        """``result`` with its text and error message redacted, the message then cut to :data:`_MAX_ERROR_TEXT`.

        A model that echoes the key it was sent (in any disguise) gets it neither into an error
        nor into a summary that would be printed and stored. Redacting before cutting matters: a
        cut could leave less of a key than the redactor recognises.
        """
        text = self._redact(result.text) if result.text else result.text
        if result.error_message is None:
            return result if text is result.text else dataclasses.replace(result, text=text)
        message = self._redact(result.error_message)
        if len(message) > _MAX_ERROR_TEXT:
            message = message[:_MAX_ERROR_TEXT] + "…"
        return dataclasses.replace(result, text=text, error_message=message)

    def _reply(self, result: AttemptResult, model: str, attempts: int) -> AssistantReply:
        return AssistantReply(
            text=result.text,
            stop_reason=result.stop_reason,
            usage=result.usage,
            error_message=result.error_message,
            has_tool_call=result.has_tool_call,
            model=result.model or model,
            provider=self.provider,
            attempts=attempts,
        )

    # -- one attempt -------------------------------------------------------------------------

    def _http(self) -> httpx.AsyncClient:
        if self._client is None:
            t = self.timeouts
            self._client = httpx.AsyncClient(
                timeout=httpx.Timeout(connect=t.connect_s, read=t.read_idle_s, write=t.read_idle_s, pool=t.connect_s),
                follow_redirects=False,
            )
        return self._client

    def _headers(self, request: CompletionRequest) -> dict[str, str]:
        headers = {
            "content-type": "application/json",
            "accept": "text/event-stream",
            "user-agent": f"pi-context/{__version__}",
        }
        headers.update(self._extra_headers)
        if self._api_key:
            headers.update(self._auth_headers(self._api_key.reveal()))
        return headers

    async def _attempt(
        self, request: CompletionRequest, model: str, on_text_delta: TextProgress | None
    ) -> AttemptResult:
        url = self._endpoint()
        log.debug("%s POST %s model=%s", self.provider, self._redact(url), model)
        output_tokens = request.max_tokens if request.max_tokens is not None else self.output_tokens
        try:
            async with self._http().stream(
                "POST", url, json=self._body(request, model), headers=self._headers(request)
            ) as response:
                if response.status_code >= 300:
                    return await self._http_error(response, model)
                state = self._new_state(model)
                content_type = response.headers.get("content-type", "")
                if "json" in content_type and "event-stream" not in content_type:
                    problem = await self._read_json(response, state)
                else:
                    problem = await self._read_stream(response, state, on_text_delta, output_tokens)
                if problem is not None:
                    return failed(problem, retryable=False, model=model)  # leaving the block closes the stream
                return state.result()
        except httpx.ReadTimeout:
            return failed(idle_message(self.timeouts.read_idle_s), retryable=True, model=model)
        except httpx.TimeoutException as exc:
            return failed(f"Request timed out ({type(exc).__name__})", retryable=True, model=model)
        except httpx.TransportError as exc:
            # Connection refused/reset, or the server closed the connection mid-body.
            detail = str(exc) or type(exc).__name__
            return failed(f"Connection error: {detail}", retryable=True, model=model)

    async def _http_error(self, response: httpx.Response, model: str) -> AttemptResult:
        raw = bytearray()
        async for chunk in response.aiter_bytes():
            raw.extend(chunk)
            if len(raw) >= _MAX_ERROR_BODY:
                break
        body = raw[:_MAX_ERROR_BODY].decode("utf-8", errors="replace")
        status = response.status_code
        return failed(
            self._error_message(status, body),
            retryable=is_retryable_status(status, body),
            model=model,
            retry_after_s=parse_retry_after(response.headers) if status == 429 or status >= 500 else None,
        )

    async def _read_json(self, response: httpx.Response, state: StreamState) -> str | None:
        """One JSON body (a server that ignored ``stream: true``), read up to :data:`MAX_LINE_CHARS` bytes."""
        raw = bytearray()
        async for chunk in response.aiter_bytes():
            raw.extend(chunk)
            if len(raw) > MAX_LINE_CHARS:
                return line_too_long_message()
        try:
            body = json.loads(raw)
        except ValueError:
            body = None
        state.on_full_response(body)
        return None

    async def _read_stream(
        self, response: httpx.Response, state: StreamState, on_text_delta: TextProgress | None, output_tokens: int
    ) -> str | None:
        """Feed the stream's events to ``state``; a sentence when a limit stopped the reading, else None."""
        parser = SseParser()
        cap = output_cap(output_tokens)
        reported = 0
        lines = BoundedLines(MAX_LINE_CHARS)
        async for chunk in response.aiter_text():
            for line in lines.feed(chunk):
                event = parser.feed_line(line)
                if parser.pending_chars > MAX_LINE_CHARS:
                    return line_too_long_message()
                if event is None:
                    continue
                state.on_event(event)
                if state.text_chars > cap:
                    return too_long_message(cap, output_tokens)
                if on_text_delta is not None and state.text_chars != reported:
                    reported = state.text_chars
                    on_text_delta(reported)
                if state.done:
                    return None
            if lines.overflowed:
                return line_too_long_message()
        for line in lines.flush():
            event = parser.feed_line(line)
            if event is not None:
                state.on_event(event)
        event = parser.flush()
        if event is not None:
            state.on_event(event)
        return too_long_message(cap, output_tokens) if state.text_chars > cap else None

    def _redact(self, text: str) -> str:
        return self._redactor.text(text)
