"""OpenAI-compatible chat completions, streamed: OpenAI, OpenRouter, vLLM, llama.cpp, Ollama ``/v1``.

Request: ``POST <base_url>/chat/completions`` with ``Authorization: Bearer <key>`` (no header when
no key is configured: local servers need none), the system prompt as the first ``system`` message,
``stream: true`` and ``stream_options.include_usage`` so the last chunk carries token usage. Nothing
that turns on prompt caching is sent (no ``prompt_cache_key``, no ``cache_control``).

Reply mapping follows pi-ai's ``openai-completions`` provider: ``finish_reason`` ``stop``/``end`` →
``stop``, ``length`` → ``length``, ``tool_calls``/``function_call`` → ``toolUse``, anything else
(``content_filter``, ...) → ``error`` with ``Provider finish_reason: <reason>``; usage ``input`` is
prompt tokens minus cached ones, and reasoning deltas are not part of the text.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Unpack

from lsp_server.llm.http_client import HttpClientOptions, HttpLlmClient, options_from_config
from lsp_server.llm.policy import is_transient_error_text
from lsp_server.llm.sse import SseEvent
from lsp_server.llm.stream_state import AttemptResult, as_dict, as_int, as_list, failed
from lsp_server.llm.types import CompletionRequest, MaxTokensField, Message, StopReason, Usage
from lsp_server.redaction import Secret

if TYPE_CHECKING:
    from lsp_server.llm.summarizer_config import SummarizerConfig


class OpenAiCompatClient(HttpLlmClient):
    provider = "openai-compatible"

    def __init__(
        self,
        *,
        max_tokens_field: MaxTokensField | None = None,
        session_affinity_headers: bool = False,
        **options: Unpack[HttpClientOptions],
    ) -> None:
        super().__init__(**options)
        # OpenAI itself wants max_completion_tokens; most compatible servers only know max_tokens.
        self.max_tokens_field: MaxTokensField = max_tokens_field or (
            "max_completion_tokens" if "api.openai.com" in self.base_url else "max_tokens"
        )
        self.session_affinity_headers = session_affinity_headers

    def _endpoint(self) -> str:
        return f"{self.base_url}/chat/completions"

    def _auth_headers(self, key: str) -> dict[str, str]:
        return {"authorization": f"Bearer {key}"}

    def _body(self, request: CompletionRequest, model: str) -> dict[str, Any]:
        messages: list[dict[str, Any]] = []
        if request.system:
            messages.append({"role": "system", "content": request.system})
        messages.extend(to_openai_messages(request.messages))
        body: dict[str, Any] = {
            "model": model,
            "messages": messages,
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        if request.max_tokens is not None:
            body[self.max_tokens_field] = request.max_tokens
        if request.temperature is not None:
            body["temperature"] = request.temperature
        if request.reasoning is not None and self.reasoning:
            body["reasoning_effort"] = request.reasoning
        return body

    def _headers(self, request: CompletionRequest) -> dict[str, str]:
        headers = super()._headers(request)
        if self.session_affinity_headers and request.session_id:
            headers["x-session-affinity"] = request.session_id
        return headers

    def _new_state(self, model: str) -> OpenAiStreamState:
        return OpenAiStreamState(model)


def client_from_config(
    config: SummarizerConfig, *, base_url: str, model: str, api_key: Secret | None
) -> OpenAiCompatClient:
    """The client for the ``openai`` row of :mod:`lsp_server.vocabulary.providers`."""
    options = options_from_config(config, base_url=base_url, model=model, api_key=api_key)
    return OpenAiCompatClient(
        max_tokens_field=config.max_tokens_field, session_affinity_headers=config.session_affinity_headers, **options
    )


def to_openai_messages(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """Pi's LLM messages as chat-completions messages (text and tool calls; images and thinking dropped).

    A text-only user message is sent as one string (its blocks concatenated, as Pi's serializer
    does): every OpenAI-compatible server accepts that, not all accept content-part arrays.
    """
    out: list[dict[str, Any]] = []
    for message in messages:
        role = message.get("role")
        content = message.get("content")
        if role == "user":
            text = _joined_text(content, "")
            if text:
                out.append({"role": "user", "content": text})
        elif role == "assistant":
            entry: dict[str, Any] = {"role": "assistant", "content": _joined_text(content, "") or None}
            calls = [
                {
                    "id": str(block.get("id", "")),
                    "type": "function",
                    "function": {
                        "name": str(block.get("name", "")),
                        "arguments": json.dumps(block.get("arguments", {}), ensure_ascii=False),
                    },
                }
                for block in as_list(content)
                if isinstance(block, dict) and block.get("type") == "toolCall"
            ]
            if calls:
                entry["tool_calls"] = calls
            if entry["content"] is not None or calls:
                out.append(entry)
        elif role == "toolResult":
            out.append(
                {
                    "role": "tool",
                    "tool_call_id": str(message.get("toolCallId", "")),
                    "content": _joined_text(content, ""),
                }
            )
    return out


def _joined_text(content: Any, separator: str) -> str:
    if isinstance(content, str):
        return content
    return separator.join(
        block["text"]
        for block in as_list(content)
        if isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str)
    )


def map_finish_reason(reason: str | None) -> tuple[StopReason, str | None]:
    """Pi's mapping of ``finish_reason`` (pi-ai ``openai-completions``)."""
    if reason is None or reason in ("stop", "end"):
        return "stop", None
    if reason == "length":
        return "length", None
    if reason in ("tool_calls", "function_call"):
        return "toolUse", None
    return "error", f"Provider finish_reason: {reason}"


def map_usage(raw: dict[str, Any]) -> Usage:
    """Pi's reading of chat-completions usage: cached prompt tokens are ``cacheRead``, not ``input``."""
    prompt = as_int(raw.get("prompt_tokens"))
    details = as_dict(raw.get("prompt_tokens_details"))
    if "cached_tokens" in details:
        cache_read = as_int(details.get("cached_tokens"))
    elif "prompt_cache_hit_tokens" in raw:
        cache_read = as_int(raw.get("prompt_cache_hit_tokens"))
    else:
        cache_read = as_int(raw.get("cached_tokens"))
    cache_write = as_int(details.get("cache_write_tokens"))
    return Usage(
        input=max(0, prompt - cache_read - cache_write),
        output=as_int(raw.get("completion_tokens")),
        cache_read=cache_read,
        cache_write=cache_write,
    )


class OpenAiStreamState:
    """Accumulates ``chat.completion.chunk`` events into one attempt result."""

    def __init__(self, model: str) -> None:
        self._model = model
        self._reported_model = ""
        self._text: list[str] = []
        self._chars = 0
        self._tool_call = False
        self._finish: str | None = None
        self._has_finish = False
        self._usage = Usage()
        self._error: AttemptResult | None = None
        self._done = False

    @property
    def done(self) -> bool:
        return self._done

    @property
    def text_chars(self) -> int:
        return self._chars

    def on_event(self, event: SseEvent) -> None:
        if event.data.strip() == "[DONE]":
            self._done = True
            return
        try:
            chunk = json.loads(event.data)
        except ValueError:
            self._fail(f"Invalid JSON in stream: {event.data}", retryable=False)  # cut by the client, after redaction
            return
        self._on_chunk(as_dict(chunk))

    def on_full_response(self, body: Any) -> None:
        """A server that answered ``stream: true`` with one ``chat.completion`` object."""
        data = as_dict(body)
        if "error" in data:
            self._on_chunk(data)
            return
        choices = as_list(data.get("choices"))
        if not choices:
            self._fail("Response has no choices", retryable=False)
            return
        choice = as_dict(choices[0])
        message = as_dict(choice.get("message"))
        self._add_text(message.get("content"))
        if as_list(message.get("tool_calls")):
            self._tool_call = True
        self._set_finish(choice)
        if isinstance(data.get("usage"), dict):
            self._usage = map_usage(data["usage"])
        if isinstance(data.get("model"), str):
            self._reported_model = data["model"]
        self._done = True

    def _on_chunk(self, chunk: dict[str, Any]) -> None:
        if "error" in chunk:
            error = chunk["error"]
            text = str(as_dict(error).get("message") or error)
            self._fail(text, retryable=is_transient_error_text(json.dumps(error)))
            return
        if isinstance(chunk.get("model"), str) and chunk["model"]:
            self._reported_model = chunk["model"]
        if isinstance(chunk.get("usage"), dict):
            self._usage = map_usage(chunk["usage"])
        for raw_choice in as_list(chunk.get("choices"))[:1]:
            choice = as_dict(raw_choice)
            delta = as_dict(choice.get("delta"))
            self._add_text(delta.get("content"))
            if as_list(delta.get("tool_calls")) or delta.get("function_call"):
                self._tool_call = True
            if not self._usage.total_tokens and isinstance(choice.get("usage"), dict):
                self._usage = map_usage(choice["usage"])  # Moonshot puts usage in the choice
            self._set_finish(choice)

    def _set_finish(self, choice: dict[str, Any]) -> None:
        reason = choice.get("finish_reason")
        if isinstance(reason, str) and reason:
            self._finish = reason
            self._has_finish = True

    def _add_text(self, content: Any) -> None:
        if isinstance(content, str) and content:
            self._text.append(content)
            self._chars += len(content)

    def _fail(self, message: str, *, retryable: bool) -> None:
        self._error = failed(message, retryable=retryable, model=self._reported_model)
        self._done = True

    def result(self) -> AttemptResult:
        if self._error is not None:
            return self._error
        if not self._has_finish:
            return failed("Stream ended without finish_reason", retryable=True, model=self._reported_model)
        stop_reason, message = map_finish_reason(self._finish)
        if stop_reason == "error":
            return AttemptResult(
                text="",
                stop_reason="error",
                usage=self._usage,
                error_message=message,
                has_tool_call=self._tool_call,
                model=self._reported_model,
                retryable=is_transient_error_text(message or ""),
            )
        return AttemptResult(
            text="".join(self._text),
            stop_reason=stop_reason,
            usage=self._usage,
            has_tool_call=self._tool_call or stop_reason == "toolUse",
            model=self._reported_model,
        )
