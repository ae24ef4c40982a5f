"""The Anthropic Messages API, streamed.

Request: ``POST <base_url>/v1/messages`` with ``x-api-key`` and ``anthropic-version: 2023-06-01``;
the system prompt is the top-level ``system`` string (never a block list with ``cache_control``:
summary requests must not write to the prompt cache); ``max_tokens`` is required by the API, so
when the caller gives none the client's ``default_max_tokens`` is sent. A reasoning level turns on
extended thinking with Pi's default budgets (1024/2048/8192/16384 for minimal..high, ``xhigh``
counted as high), keeping at least 1024 tokens for the answer.

Reply mapping follows pi-ai's ``anthropic-messages`` provider: ``end_turn``/``pause_turn``/
``stop_sequence`` → ``stop``, ``max_tokens`` → ``length``, ``tool_use`` → ``toolUse``, ``refusal``
and ``sensitive`` → ``error``; usage comes from ``message_start`` and is updated by
``message_delta``; text blocks are joined with ``\\n``; thinking blocks are not text.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Unpack

from lsp_server.llm.http_client import HttpClientOptions, HttpLlmClient, options_from_config
from lsp_server.llm.policy import is_transient_error_text
from lsp_server.llm.sse import SseEvent
from lsp_server.llm.stream_state import AttemptResult, as_dict, as_int, as_list, failed
from lsp_server.llm.types import CompletionRequest, Message, ReasoningLevel, StopReason, Usage
from lsp_server.redaction import Secret
from lsp_server.vocabulary.providers import DEFAULT_MAX_TOKENS

if TYPE_CHECKING:
    from lsp_server.llm.summarizer_config import SummarizerConfig

ANTHROPIC_VERSION = "2023-06-01"

THINKING_BUDGETS: dict[str, int] = {"minimal": 1024, "low": 2048, "medium": 8192, "high": 16384}
MIN_ANSWER_TOKENS = 1024
MIN_THINKING_BUDGET = 1024  # the API rejects smaller budgets


class AnthropicClient(HttpLlmClient):
    provider = "anthropic"

    def __init__(self, *, default_max_tokens: int = DEFAULT_MAX_TOKENS, **options: Unpack[HttpClientOptions]) -> None:
        super().__init__(**options)
        self.default_max_tokens = default_max_tokens

    def _endpoint(self) -> str:
        return f"{self.base_url}/v1/messages"

    def _auth_headers(self, key: str) -> dict[str, str]:
        return {"x-api-key": key}

    def _headers(self, request: CompletionRequest) -> dict[str, str]:
        headers = super()._headers(request)
        headers["anthropic-version"] = ANTHROPIC_VERSION
        return headers

    def _body(self, request: CompletionRequest, model: str) -> dict[str, Any]:
        max_tokens = request.max_tokens if request.max_tokens is not None else self.default_max_tokens
        thinking_budget = 0
        if request.reasoning is not None and self.reasoning:
            max_tokens, thinking_budget = thinking_allowance(request.reasoning, request.max_tokens, max_tokens)
        body: dict[str, Any] = {
            "model": model,
            "max_tokens": max_tokens,
            "messages": to_anthropic_messages(request.messages),
            "stream": True,
        }
        if request.system:
            body["system"] = request.system
        if thinking_budget:
            body["thinking"] = {"type": "enabled", "budget_tokens": thinking_budget}
        elif request.temperature is not None:
            body["temperature"] = request.temperature  # the API refuses a temperature with thinking
        return body

    def _new_state(self, model: str) -> AnthropicStreamState:
        return AnthropicStreamState(model)


def client_from_config(
    config: SummarizerConfig, *, base_url: str, model: str, api_key: Secret | None
) -> AnthropicClient:
    """The client for the ``anthropic`` row of :mod:`lsp_server.vocabulary.providers`."""
    options = options_from_config(config, base_url=base_url, model=model, api_key=api_key)
    return AnthropicClient(default_max_tokens=config.max_tokens, **options)


def thinking_allowance(level: ReasoningLevel, requested: int | None, default_cap: int) -> tuple[int, int]:
    """``(max_tokens, thinking_budget)``: the answer keeps its room; budget 0 means no thinking."""
    budget = THINKING_BUDGETS["high" if level == "xhigh" else level]
    max_tokens = default_cap if requested is None else requested + budget
    budget = min(budget, max(0, max_tokens - MIN_ANSWER_TOKENS))
    return max_tokens, budget if budget >= MIN_THINKING_BUDGET else 0


def to_anthropic_messages(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """Pi's LLM messages as Messages-API turns; tool results become ``tool_result`` blocks of a user turn.

    Empty text blocks are dropped (the API rejects them); consecutive tool results share one user turn.
    """
    out: list[dict[str, Any]] = []
    for message in messages:
        role = message.get("role")
        content = message.get("content")
        if role == "user":
            blocks = _text_blocks(content)
            if blocks:
                out.append({"role": "user", "content": blocks})
        elif role == "assistant":
            blocks = _text_blocks(content)
            for block in as_list(content):
                if isinstance(block, dict) and block.get("type") == "toolCall":
                    blocks.append(
                        {
                            "type": "tool_use",
                            "id": str(block.get("id", "")),
                            "name": str(block.get("name", "")),
                            "input": as_dict(block.get("arguments")),
                        }
                    )
            if blocks:
                out.append({"role": "assistant", "content": blocks})
        elif role == "toolResult":
            result: dict[str, Any] = {
                "type": "tool_result",
                "tool_use_id": str(message.get("toolCallId", "")),
                "content": _text_blocks(content),
            }
            if message.get("isError") is True:
                result["is_error"] = True
            if out and out[-1]["role"] == "user" and out[-1]["content"][0].get("type") == "tool_result":
                out[-1]["content"].append(result)
            else:
                out.append({"role": "user", "content": [result]})
    return out


def _text_blocks(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    return [
        {"type": "text", "text": block["text"]}
        for block in as_list(content)
        if isinstance(block, dict)
        and block.get("type") == "text"
        and isinstance(block.get("text"), str)
        and block["text"]
    ]


def map_stop_reason(reason: str, details: Any = None) -> tuple[StopReason, str | None]:
    """Pi's mapping of Anthropic ``stop_reason`` values (unknown ones are errors, as in Pi)."""
    if reason in ("end_turn", "pause_turn", "stop_sequence"):
        return "stop", None
    if reason == "max_tokens":
        return "length", None
    if reason == "tool_use":
        return "toolUse", None
    if reason == "refusal":
        explanation = as_dict(details).get("explanation")
        return "error", explanation if isinstance(explanation, str) and explanation else (
            "The model refused to complete the request"
        )
    if reason == "sensitive":
        return "error", "Provider stopped with: sensitive"
    return "error", f"Unhandled stop reason: {reason}"


class AnthropicStreamState:
    """Accumulates Messages-API stream events into one attempt result."""

    def __init__(self, model: str) -> None:
        self._model = model
        self._reported_model = ""
        self._blocks: dict[int, list[str]] = {}  # text blocks by index, in start order
        self._chars = 0
        self._tool_call = False
        self._stop: tuple[StopReason, str | None] | None = None
        self._input = self._output = self._cache_read = self._cache_write = 0
        self._error: AttemptResult | None = None
        self._done = False

    @property
    def done(self) -> bool:
        return self._done

    @property
    def text_chars(self) -> int:
        return self._chars

    def on_event(self, event: SseEvent) -> None:
        try:
            data = as_dict(json.loads(event.data))
        except ValueError:
            self._fail(f"Invalid JSON in stream: {event.data}", retryable=False)  # cut by the client, after redaction
            return
        kind = data.get("type", event.event)
        if kind == "message_start":
            message = as_dict(data.get("message"))
            if isinstance(message.get("model"), str):
                self._reported_model = message["model"]
            self._read_usage(as_dict(message.get("usage")))
        elif kind == "content_block_start":
            block = as_dict(data.get("content_block"))
            index = as_int(data.get("index"))
            if block.get("type") == "text":
                self._blocks[index] = []
                self._add_text(index, block.get("text"))
            elif block.get("type") in ("tool_use", "server_tool_use"):
                self._tool_call = True
        elif kind == "content_block_delta":
            delta = as_dict(data.get("delta"))
            if delta.get("type") == "text_delta":
                self._add_text(as_int(data.get("index")), delta.get("text"))
            elif delta.get("type") == "input_json_delta":
                self._tool_call = True
        elif kind == "message_delta":
            delta = as_dict(data.get("delta"))
            if isinstance(delta.get("stop_reason"), str):
                self._stop = map_stop_reason(delta["stop_reason"], delta.get("stop_details"))
            self._read_usage(as_dict(data.get("usage")))
        elif kind == "message_stop":
            self._done = True
        elif kind == "error":
            error = as_dict(data.get("error"))
            text = str(error.get("message") or error.get("type") or "Unknown error")
            self._fail(text, retryable=is_transient_error_text(json.dumps(error)))

    def on_full_response(self, body: Any) -> None:
        """A server that answered ``stream: true`` with one ``message`` object."""
        data = as_dict(body)
        if data.get("type") == "error":
            error = as_dict(data.get("error"))
            self._fail(
                str(error.get("message") or "Unknown error"), retryable=is_transient_error_text(json.dumps(error))
            )
            return
        if isinstance(data.get("model"), str):
            self._reported_model = data["model"]
        for index, block in enumerate(as_list(data.get("content"))):
            block = as_dict(block)
            if block.get("type") == "text":
                self._blocks[index] = []
                self._add_text(index, block.get("text"))
            elif block.get("type") == "tool_use":
                self._tool_call = True
        if isinstance(data.get("stop_reason"), str):
            self._stop = map_stop_reason(data["stop_reason"], data.get("stop_details"))
        self._read_usage(as_dict(data.get("usage")))
        self._done = True

    def _read_usage(self, usage: dict[str, Any]) -> None:
        # Fields present (even 0) replace earlier values; absent or null ones keep them (Pi's rule).
        if usage.get("input_tokens") is not None:
            self._input = as_int(usage["input_tokens"])
        if usage.get("output_tokens") is not None:
            self._output = as_int(usage["output_tokens"])
        if usage.get("cache_read_input_tokens") is not None:
            self._cache_read = as_int(usage["cache_read_input_tokens"])
        if usage.get("cache_creation_input_tokens") is not None:
            self._cache_write = as_int(usage["cache_creation_input_tokens"])

    def _add_text(self, index: int, text: Any) -> None:
        if isinstance(text, str) and text:
            self._blocks.setdefault(index, []).append(text)
            self._chars += len(text)

    def _fail(self, message: str, *, retryable: bool) -> None:
        self._error = failed(message, retryable=retryable, model=self._reported_model)
        self._done = True

    def result(self) -> AttemptResult:
        if self._error is not None:
            return self._error
        usage = Usage(self._input, self._output, self._cache_read, self._cache_write)
        if self._stop is None:
            return failed("Anthropic stream ended without a stop reason", retryable=True, model=self._reported_model)
        stop_reason, message = self._stop
        if stop_reason == "error":
            return AttemptResult(
                text="",
                stop_reason="error",
                usage=usage,
                error_message=message,
                has_tool_call=self._tool_call,
                model=self._reported_model,
            )
        return AttemptResult(
            text="\n".join("".join(parts) for _, parts in sorted(self._blocks.items())),
            stop_reason=stop_reason,
            usage=usage,
            has_tool_call=self._tool_call or stop_reason == "toolUse",
            model=self._reported_model,
        )
