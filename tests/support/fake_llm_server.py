"""A scriptable fake LLM server on 127.0.0.1 speaking both OpenAI chat completions and Anthropic Messages.

Tests give it a queue of :class:`ScriptedResponse` values (or their JSON form); each request takes
the next one (or the default when the queue is empty) and is answered in the wire format of the
path it came to: ``/v1/chat/completions`` (also ``/chat/completions``) streams OpenAI chunks,
``/v1/messages`` streams Anthropic events. Faults are part of the script: an HTTP status with a
``retry-after``, a connection dropped after N chunks, a stall, slow chunks, a tool call, a
``length`` stop, a mid-stream error event.

It is also the model behind a real Pi (``pi --mode rpc`` with a ``models.json`` pointing here):
``tool_calls`` script whole agent turns (Pi runs ``read``/``bash``/``edit``/``write`` and sends the
result back as a ``tool`` message), ``hold_after_chunks`` stops a stream until the test calls
:meth:`FakeLlmServer.release` (so a test can steer or abort mid-stream without sleeping),
``usage_in_stream`` drops the usage chunk Pi asks for with ``stream_options.include_usage``, and
:meth:`FakeLlmServer.wait_for_request` waits until request N arrived. The recorded bodies are the
witness of what Pi really sent.

Every request is recorded (method, path, headers with API keys replaced by ``<redacted>``, the JSON
body, and how the answer ended). The real key is kept apart and only compared by
:meth:`FakeLlmServer.received_key`, so a test can prove the key was sent without printing it.

Use as a context manager::

    with FakeLlmServer([ScriptedResponse(text="Hello")]) as server:
        client = OpenAiCompatClient(base_url=server.openai_base_url, model="m")

or as a script for editor end-to-end tests (stdlib only, any Python 3.11)::

    python tests/support/fake_llm_server.py --port 0 --script script.json [--record requests.jsonl]

which prints ``FAKE_LLM_LISTENING http://127.0.0.1:<port>`` once ready and serves until killed.
``script.json`` is ``{"responses": [...], "default": {...}}`` with each response in the JSON
form of :class:`ScriptedResponse` (camelCase keys, see :meth:`ScriptedResponse.from_json`).

The red team's servers (issue 18) are scripts too: ``echo_key`` answers with the key the request
carried in one of the disguises of ``tests/support/disguises.py`` (wherever ``{echo}`` is in the
text or the error body), ``flood_chars`` streams deltas as fast as the client reads them,
``chunks`` with ``chunk_delay_s`` trickles one word at a time, ``silent`` reads the request and
never answers, and ``raw_tail`` sends bytes as they are (a line that never ends).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import select
import signal
import socket
import sys
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

SECRET_HEADERS = ("authorization", "x-api-key", "api-key")
REDACTED = "<redacted>"

_OPENAI_PATHS = ("/v1/chat/completions", "/chat/completions")
_ANTHROPIC_PATHS = ("/v1/messages", "/messages")

# Neutral finish names → (OpenAI finish_reason, Anthropic stop_reason).
_FINISH = {
    "stop": ("stop", "end_turn"),
    "length": ("length", "max_tokens"),
    "tool": ("tool_calls", "tool_use"),
}


@dataclass
class ScriptedResponse:
    """One scripted answer. Defaults give a plain successful reply."""

    text: str = ""
    chunks: list[str] | None = None  # how ``text`` is split into deltas; default ~16-char pieces
    finish: str = "stop"  # "stop" | "length" | "tool" | any raw value of the target format
    usage: dict[str, int] = field(default_factory=lambda: {"input": 10, "output": 5})
    tool_call: dict[str, Any] | None = None  # {"name": ..., "arguments": {...}} (one call)
    tool_calls: list[dict[str, Any]] | None = None  # several: {"name", "arguments": dict | raw str, "id"?}
    thinking: str | None = None  # reasoning text, streamed before the answer
    model: str | None = None  # model name to report; default: the requested one
    status: int = 200  # non-2xx: answer with ``body`` as JSON, no stream
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    retry_after: float | None = None  # sets the retry-after header
    drop_after_chunks: int | None = None  # close the socket after this many text chunks
    stall_after_chunks: int | None = None  # stop sending (connection kept open) after this many
    chunk_delay_s: float = 0.0  # pause before each text chunk
    hold_after_chunks: int | None = None  # pause after this many text chunks until release() (or the end)
    usage_in_stream: bool = True  # OpenAI: send the final usage chunk (stream_options.include_usage)
    error_event: dict[str, Any] | None = None  # sent after the text instead of the normal end
    non_streaming: bool = False  # answer with one JSON object even though stream was requested
    # The red team's servers (issue 18):
    echo_key: str | None = None  # a disguise's name (tests/support/disguises.py): "{echo}" in text and body is
    # replaced by the key this request carried, so disguised
    silent: bool = False  # read the request, then send nothing at all (not even a status line) until closed
    flood_chars: int = 0  # after the text, this many more characters of deltas as fast as the socket takes them
    flood_chunk: int = 256  # characters per flooded delta
    raw_tail: str | None = None  # after the text, these bytes as they are (e.g. a line that never ends)

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> ScriptedResponse:
        """Build from the script-file form (camelCase keys, e.g. ``dropAfterChunks``)."""
        names = {
            "toolCall": "tool_call",
            "toolCalls": "tool_calls",
            "holdAfterChunks": "hold_after_chunks",
            "usageInStream": "usage_in_stream",
            "retryAfter": "retry_after",
            "dropAfterChunks": "drop_after_chunks",
            "stallAfterChunks": "stall_after_chunks",
            "chunkDelay": "chunk_delay_s",
            "errorEvent": "error_event",
            "nonStreaming": "non_streaming",
            "echoKey": "echo_key",
            "floodChars": "flood_chars",
            "floodChunk": "flood_chunk",
            "rawTail": "raw_tail",
        }
        return ScriptedResponse(**{names.get(k, k): v for k, v in data.items()})

    def text_chunks(self) -> list[str]:
        if self.chunks is not None:
            return list(self.chunks)
        return [self.text[i : i + 16] for i in range(0, len(self.text), 16)]

    def calls(self) -> list[dict[str, Any]]:
        """Every scripted tool call with its id and its arguments as the JSON text the model streams."""
        raw = ([self.tool_call] if self.tool_call is not None else []) + list(self.tool_calls or [])
        calls = []
        for number, call in enumerate(raw):
            arguments = call.get("arguments", {})
            calls.append(
                {
                    "id": call.get("id") or ("call_fake" if number == 0 else f"call_fake_{number + 1}"),
                    "name": call["name"],
                    "arguments": arguments if isinstance(arguments, str) else json.dumps(arguments),
                }
            )
        return calls


@dataclass
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]  # lower-case names; API keys replaced by <redacted>
    body: Any  # parsed JSON, or the raw text when it is not JSON
    wire: str  # "openai" | "anthropic" | "other"
    outcome: str = "pending"  # completed | error-status | dropped | stalled | client-disconnected | raw-tail
    chunks_sent: int = 0
    chunks_planned: int = 0
    held: bool = False  # the stream is paused at hold_after_chunks, waiting for release()
    flooded: int = 0  # characters of flooded deltas sent (flood_chars)
    client_closed: bool = False  # the client closed the connection while the stream stalled or was held

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


class FakeLlmServer:
    """The server; thread-based, so it works under any event loop (or none)."""

    def __init__(
        self,
        responses: Iterable[ScriptedResponse | Mapping[str, Any]] = (),
        *,
        default: ScriptedResponse | Mapping[str, Any] | None = None,
        port: int = 0,
        on_record: Callable[[RecordedRequest], None] | None = None,
    ) -> None:
        self._queue = [_coerce(r) for r in responses]
        self._default = _coerce(default) if default is not None else None
        self._requests: list[RecordedRequest] = []
        self._keys: list[str | None] = []
        self._lock = threading.Condition()
        self._stop = threading.Event()
        self._releases: dict[int, threading.Event] = {}
        self._on_record = on_record
        self._httpd = _Server(("127.0.0.1", port), _Handler)
        self._httpd.fake = self
        self._thread: threading.Thread | None = None

    # -- lifecycle ---------------------------------------------------------------------------

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def openai_base_url(self) -> str:
        return f"{self.url}/v1"

    @property
    def anthropic_base_url(self) -> str:
        return self.url

    def start(self) -> FakeLlmServer:
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, name="fake-llm-server", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()  # releases stalled handlers
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=10)

    def __enter__(self) -> FakeLlmServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- scripting and inspection ------------------------------------------------------------

    def enqueue(self, *responses: ScriptedResponse | Mapping[str, Any]) -> None:
        with self._lock:
            self._queue.extend(_coerce(r) for r in responses)

    def set_default(self, response: ScriptedResponse | Mapping[str, Any] | None) -> None:
        """The answer for every request once the queue is empty (None: answer 500)."""
        with self._lock:
            self._default = _coerce(response) if response is not None else None

    @property
    def requests(self) -> list[RecordedRequest]:
        with self._lock:
            return list(self._requests)

    def received_key(self, index: int, key: str) -> bool:
        """Whether request ``index`` carried exactly ``key`` (Bearer or x-api-key); never reveals it."""
        with self._lock:
            return self._keys[index] == key

    def wait_for(self, predicate: Callable[[list[RecordedRequest]], bool], timeout: float = 10.0) -> bool:
        """Block until ``predicate(requests)`` holds (checked on every change) or the timeout passes."""
        with self._lock:
            return self._lock.wait_for(lambda: predicate(self._requests), timeout)

    def wait_for_request(
        self,
        index: int,
        predicate: Callable[[RecordedRequest], bool] | None = None,
        timeout: float = 30.0,
    ) -> RecordedRequest:
        """Block until request ``index`` (0-based) arrived (and ``predicate`` holds for it); return it.

        Raises ``TimeoutError`` naming what was seen instead, so a failing test says why. From
        asyncio code call it through ``asyncio.to_thread``.
        """

        def ready(requests: list[RecordedRequest]) -> bool:
            return len(requests) > index and (predicate is None or predicate(requests[index]))

        if not self.wait_for(ready, timeout):
            seen = [(r.path, r.outcome) for r in self.requests]
            raise TimeoutError(f"request {index} did not arrive (or match) within {timeout:g} s; seen: {seen}")
        return self.requests[index]

    def wait_until_held(self, index: int, timeout: float = 30.0) -> RecordedRequest:
        """Block until request ``index`` is paused at its ``hold_after_chunks``."""
        return self.wait_for_request(index, lambda r: r.held, timeout)

    def release(self, index: int | None = None) -> None:
        """Let a held stream (request ``index``, or every one) go on to its scripted end."""
        with self._lock:
            if index is None:
                for event in self._releases.values():
                    event.set()
            else:
                self._releases.setdefault(index, threading.Event()).set()

    def _release_event(self, index: int) -> threading.Event:
        with self._lock:
            return self._releases.setdefault(index, threading.Event())

    # -- used by the handler -----------------------------------------------------------------

    def _next_response(self) -> ScriptedResponse | None:
        with self._lock:
            if self._queue:
                return self._queue.pop(0)
            return self._default

    def _record(self, request: RecordedRequest, key: str | None) -> int:
        with self._lock:
            self._requests.append(request)
            self._keys.append(key)
            self._lock.notify_all()
            return len(self._requests) - 1

    def _update(self, request: RecordedRequest, **changes: Any) -> None:
        with self._lock:
            for name, value in changes.items():
                setattr(request, name, value)
            self._lock.notify_all()
        if self._on_record is not None and changes.get("outcome", "pending") != "pending":
            self._on_record(request)


def _coerce(response: ScriptedResponse | Mapping[str, Any]) -> ScriptedResponse:
    return response if isinstance(response, ScriptedResponse) else ScriptedResponse.from_json(response)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    fake: FakeLlmServer

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that closes a kept-alive connection (as httpx does after the final event) is normal.
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


class _Dropped(Exception):
    """The script asked to drop the connection."""


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass  # keep test output clean

    def do_GET(self) -> None:
        if self.path.rstrip("/") in ("/v1/models", "/models"):
            self._send_json(200, {"object": "list", "data": [{"id": "fake-model", "object": "model"}]})
        else:
            self._send_json(404, {"error": {"message": f"no route {self.path}"}})

    def do_POST(self) -> None:
        fake = self.server.fake
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length).decode("utf-8", errors="replace")
        try:
            body: Any = json.loads(raw)
        except ValueError:
            body = raw
        path = self.path.split("?", 1)[0]
        wire = "openai" if path in _OPENAI_PATHS else "anthropic" if path in _ANTHROPIC_PATHS else "other"
        headers = {k.lower(): (REDACTED if k.lower() in SECRET_HEADERS else v) for k, v in self.headers.items()}
        record = RecordedRequest("POST", path, headers, body, wire)
        index = fake._record(record, _key_of(self.headers))
        if wire == "other":
            self._send_json(404, {"error": {"message": f"no route {path}"}})
            fake._update(record, outcome="error-status")
            return
        script = fake._next_response()
        if script is None:
            self._send_json(500, {"error": {"message": "fake LLM server: no scripted response left"}})
            fake._update(record, outcome="error-status")
            return
        model = script.model or (body.get("model") if isinstance(body, dict) else None) or "fake-model"
        if script.echo_key is not None:
            script = _echoing(script, _key_of(self.headers) or "")
        try:
            if script.silent:
                self._stall(record)
                return
            if script.status >= 300:
                self._send_error_status(script)
                fake._update(record, outcome="error-status")
            elif script.non_streaming:
                self._send_json(200, _full_body(wire, script, model), script.headers)
                fake._update(record, outcome="completed")
            else:
                self._stream(record, index, wire, script, model)
        except _Dropped:
            fake._update(record, outcome="dropped")
            self._abort_connection()
        except (BrokenPipeError, ConnectionResetError, ConnectionAbortedError):
            fake._update(record, outcome="client-disconnected")
            self.close_connection = True

    # -- answers -----------------------------------------------------------------------------

    def _send_json(self, status: int, payload: Any, extra: Mapping[str, str] | None = None) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        for name, value in (extra or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()

    def _send_error_status(self, script: ScriptedResponse) -> None:
        headers = dict(script.headers)
        if script.retry_after is not None:
            headers["retry-after"] = f"{script.retry_after:g}"
        body = script.body if script.body is not None else {"error": {"message": f"scripted status {script.status}"}}
        self._send_json(script.status, body, headers)

    def _stream(self, record: RecordedRequest, index: int, wire: str, script: ScriptedResponse, model: str) -> None:
        fake = self.server.fake
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.send_header("transfer-encoding", "chunked")
        for name, value in script.headers.items():
            self.send_header(name, value)
        self.end_headers()
        events = _openai_events(script, model) if wire == "openai" else _anthropic_events(script, model)
        pieces = script.text_chunks()
        fake._update(record, chunks_planned=len(pieces))
        sent = 0
        held = False
        for kind, payload in events:
            if kind == "flood":
                if not self._flood(record, wire, script, model):
                    return
                continue
            if kind == "raw":
                self._write_chunk(payload)
                fake._update(record, outcome="raw-tail")
                self.close_connection = True
                return
            if kind == "text":
                if script.drop_after_chunks is not None and sent >= script.drop_after_chunks:
                    raise _Dropped
                if script.stall_after_chunks is not None and sent >= script.stall_after_chunks:
                    self._stall(record)
                    return
                if not held and script.hold_after_chunks is not None and sent >= script.hold_after_chunks:
                    held = True
                    if not self._hold(record, index):
                        return
                if script.chunk_delay_s and fake._stop.wait(script.chunk_delay_s):
                    return
                self._write_chunk(payload)
                sent += 1
                fake._update(record, chunks_sent=sent)
            else:
                if kind == "end" and not held and script.hold_after_chunks is not None:
                    held = True
                    if not self._hold(record, index):
                        return
                self._write_chunk(payload)
        if script.drop_after_chunks is not None and sent >= script.drop_after_chunks:
            raise _Dropped
        if script.stall_after_chunks is not None:
            self._stall(record)
            return
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()
        fake._update(record, outcome="completed")

    def _flood(self, record: RecordedRequest, wire: str, script: ScriptedResponse, model: str) -> bool:
        """Stream ``flood_chars`` characters of deltas as fast as the client reads; False if it went away."""
        fake = self.server.fake
        piece = ("flood " * (script.flood_chunk // 6 + 1))[: script.flood_chunk]
        batch = 64  # deltas per write: the server is not what slows the flood down
        events = _text_event(wire, piece, model) * batch
        sent = 0
        while sent < script.flood_chars:
            if fake._stop.is_set():
                return False
            count = min(batch, -(-(script.flood_chars - sent) // len(piece)))
            try:
                self._write_chunk(events if count == batch else _text_event(wire, piece, model) * count)
            except OSError:
                fake._update(record, outcome="client-disconnected", flooded=sent)
                self.close_connection = True
                return False
            sent += count * len(piece)
            fake._update(record, flooded=sent)
        return True

    def _stall(self, record: RecordedRequest) -> None:
        fake = self.server.fake
        fake._update(record, outcome="stalled")
        self._wait_while_open(record, fake._stop)
        self.close_connection = True

    def _hold(self, record: RecordedRequest, index: int) -> bool:
        """Pause until release(); False when the client went away (or the server stops) meanwhile."""
        fake = self.server.fake
        release = fake._release_event(index)
        fake._update(record, held=True)
        self._wait_while_open(record, release)
        fake._update(record, held=False)
        if record.client_closed or fake._stop.is_set():
            fake._update(record, outcome="client-disconnected" if record.client_closed else "stalled")
            self.close_connection = True
            return False
        return True

    def _wait_while_open(self, record: RecordedRequest, until: threading.Event) -> None:
        """Wait for ``until`` (or the server's stop), noticing when the client closes the connection."""
        fake = self.server.fake
        while not until.is_set() and not fake._stop.is_set():
            try:
                readable, _, _ = select.select([self.connection], [], [], 0.05)
                if readable and not self.connection.recv(1, socket.MSG_PEEK):
                    fake._update(record, client_closed=True)
                    return
            except (OSError, ValueError):
                fake._update(record, client_closed=True)
                return

    def _write_chunk(self, data: bytes) -> None:
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def _abort_connection(self) -> None:
        """Close without finishing the chunked body, as a dropped connection looks to the client."""
        self.close_connection = True
        try:
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def _key_of(headers: Any) -> str | None:
    auth = headers.get("authorization")
    if isinstance(auth, str) and auth.lower().startswith("bearer "):
        return str(auth[7:])
    key = headers.get("x-api-key") or headers.get("api-key")
    return str(key) if key is not None else None


# -- wire formats ------------------------------------------------------------------------------


def _sse(data: Any, event: str | None = None) -> bytes:
    text = data if isinstance(data, str) else json.dumps(data)
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {text}\n\n".encode()


def _openai_events(script: ScriptedResponse, model: str) -> list[tuple[str, bytes]]:
    def chunk(delta: dict[str, Any], finish: str | None = None, usage: Any = None) -> dict[str, Any]:
        body: dict[str, Any] = {
            "id": "chatcmpl-fake",
            "object": "chat.completion.chunk",
            "created": 0,
            "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }
        if usage is not None:
            body["usage"] = usage
        return body

    events: list[tuple[str, bytes]] = [("meta", _sse(chunk({"role": "assistant", "content": ""})))]
    if script.thinking:
        events.append(("meta", _sse(chunk({"reasoning_content": script.thinking}))))
    events.extend(("text", _sse(chunk({"content": piece}))) for piece in script.text_chunks())
    events.extend(_flood_and_raw(script))
    for number, call in enumerate(script.calls()):
        head = {
            "index": number,
            "id": call["id"],
            "type": "function",
            "function": {"name": call["name"], "arguments": ""},
        }
        events.append(("meta", _sse(chunk({"tool_calls": [head]}))))
        arguments = call["arguments"]
        for start in range(0, len(arguments), 16):
            piece = {"index": number, "function": {"arguments": arguments[start : start + 16]}}
            events.append(("meta", _sse(chunk({"tool_calls": [piece]}))))
    if script.error_event is not None:
        events.append(("meta", _sse({"error": script.error_event})))
        return events
    finish = _FINISH.get(script.finish, (script.finish, script.finish))[0]
    events.append(("end", _sse(chunk({}, finish))))
    u = script.usage
    cached = u.get("cacheRead", 0)
    usage = {
        "prompt_tokens": u.get("input", 0) + cached,
        "completion_tokens": u.get("output", 0),
        "total_tokens": u.get("input", 0) + cached + u.get("output", 0),
        "prompt_tokens_details": {"cached_tokens": cached},
    }
    if script.usage_in_stream:
        events.append(
            (
                "meta",
                _sse(
                    {
                        "id": "chatcmpl-fake",
                        "object": "chat.completion.chunk",
                        "model": model,
                        "choices": [],
                        "usage": usage,
                    }
                ),
            )
        )
    events.append(("meta", _sse("[DONE]")))
    return events


def _anthropic_events(script: ScriptedResponse, model: str) -> list[tuple[str, bytes]]:
    u = script.usage
    start_usage = {
        "input_tokens": u.get("input", 0),
        "output_tokens": 1,
        "cache_read_input_tokens": u.get("cacheRead", 0),
        "cache_creation_input_tokens": u.get("cacheWrite", 0),
    }
    message = {
        "id": "msg_fake",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [],
        "usage": start_usage,
    }
    events: list[tuple[str, bytes]] = [("meta", _sse({"type": "message_start", "message": message}, "message_start"))]
    index = 0
    if script.thinking:
        events.append(
            (
                "meta",
                _sse(
                    {
                        "type": "content_block_start",
                        "index": index,
                        "content_block": {"type": "thinking", "thinking": ""},
                    },
                    "content_block_start",
                ),
            )
        )
        events.append(
            (
                "meta",
                _sse(
                    {
                        "type": "content_block_delta",
                        "index": index,
                        "delta": {"type": "thinking_delta", "thinking": script.thinking},
                    },
                    "content_block_delta",
                ),
            )
        )
        events.append(("meta", _sse({"type": "content_block_stop", "index": index}, "content_block_stop")))
        index += 1
    events.append(("meta", _sse({"type": "ping"}, "ping")))
    events.append(
        (
            "meta",
            _sse(
                {"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}},
                "content_block_start",
            ),
        )
    )
    for piece in script.text_chunks():
        events.append(
            (
                "text",
                _sse(
                    {"type": "content_block_delta", "index": index, "delta": {"type": "text_delta", "text": piece}},
                    "content_block_delta",
                ),
            )
        )
    events.extend(_flood_and_raw(script))
    events.append(("meta", _sse({"type": "content_block_stop", "index": index}, "content_block_stop")))
    for call in script.calls():
        index += 1
        tool_id = call["id"].replace("call_", "toolu_", 1)
        block = {"type": "tool_use", "id": tool_id, "name": call["name"], "input": {}}
        events.append(
            (
                "meta",
                _sse({"type": "content_block_start", "index": index, "content_block": block}, "content_block_start"),
            )
        )
        events.append(
            (
                "meta",
                _sse(
                    {
                        "type": "content_block_delta",
                        "index": index,
                        "delta": {"type": "input_json_delta", "partial_json": call["arguments"]},
                    },
                    "content_block_delta",
                ),
            )
        )
        events.append(("meta", _sse({"type": "content_block_stop", "index": index}, "content_block_stop")))
    if script.error_event is not None:
        events.append(("meta", _sse({"type": "error", "error": script.error_event}, "error")))
        return events
    stop = _FINISH.get(script.finish, (script.finish, script.finish))[1]
    delta_usage = {"output_tokens": u.get("output", 0)}
    events.append(
        (
            "end",
            _sse(
                {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None}, "usage": delta_usage},
                "message_delta",
            ),
        )
    )
    events.append(("meta", _sse({"type": "message_stop"}, "message_stop")))
    return events


def _flood_and_raw(script: ScriptedResponse) -> list[tuple[str, bytes]]:
    """Markers the stream expands: the flood of deltas, then the raw tail (after which nothing is sent)."""
    return ([("flood", b"")] if script.flood_chars else []) + (
        [("raw", script.raw_tail.encode())] if script.raw_tail is not None else []
    )


def _text_event(wire: str, piece: str, model: str) -> bytes:
    """One text delta of the wire format (the text block is block 0 for Anthropic's flood)."""
    if wire == "openai":
        body = {
            "id": "chatcmpl-fake",
            "object": "chat.completion.chunk",
            "created": 0,
            "model": model,
            "choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": None}],
        }
        return _sse(body)
    delta = {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": piece}}
    return _sse(delta, "content_block_delta")


def _echoing(script: ScriptedResponse, key: str) -> ScriptedResponse:
    """``script`` with "{echo}" in its text, body and error event replaced by the request's key, disguised."""
    try:
        from tests.support.disguises import disguise_named
    except ImportError:  # run as a script: this folder is on the path
        from disguises import disguise_named  # type: ignore[import-not-found,no-redef]

    echoed = disguise_named(key, script.echo_key or "whole")

    def fill(value: Any) -> Any:
        if isinstance(value, str):
            return value.replace("{echo}", echoed)
        if isinstance(value, dict):
            return {k: fill(v) for k, v in value.items()}
        if isinstance(value, list):
            return [fill(v) for v in value]
        return value

    chunks = [fill(chunk) for chunk in script.chunks] if script.chunks is not None else None
    return dataclasses.replace(
        script, text=fill(script.text), chunks=chunks, body=fill(script.body), error_event=fill(script.error_event)
    )


def _full_body(wire: str, script: ScriptedResponse, model: str) -> dict[str, Any]:
    u = script.usage
    if wire == "openai":
        finish = _FINISH.get(script.finish, (script.finish, script.finish))[0]
        return {
            "id": "chatcmpl-fake",
            "object": "chat.completion",
            "model": model,
            "choices": [
                {"index": 0, "message": {"role": "assistant", "content": script.text}, "finish_reason": finish}
            ],
            "usage": {"prompt_tokens": u.get("input", 0), "completion_tokens": u.get("output", 0)},
        }
    stop = _FINISH.get(script.finish, (script.finish, script.finish))[1]
    return {
        "id": "msg_fake",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [{"type": "text", "text": script.text}],
        "stop_reason": stop,
        "usage": {"input_tokens": u.get("input", 0), "output_tokens": u.get("output", 0)},
    }


# -- standalone --------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Fake OpenAI/Anthropic streaming server for tests.")
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (0: any free port)")
    parser.add_argument("--script", help='JSON file: {"responses": [...], "default": {...}}')
    parser.add_argument("--record", help="append each finished request to this JSONL file (keys redacted)")
    args = parser.parse_args(argv)

    script: dict[str, Any] = {}
    if args.script:
        with open(args.script, encoding="utf-8") as handle:
            script = json.load(handle)
    record_lock = threading.Lock()

    def record(request: RecordedRequest) -> None:
        if args.record:
            with record_lock, open(args.record, "a", encoding="utf-8") as out:
                out.write(json.dumps(request.to_json()) + "\n")

    server = FakeLlmServer(script.get("responses", []), default=script.get("default"), port=args.port, on_record=record)
    stopped = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stopped.set())
    signal.signal(signal.SIGINT, lambda *_: stopped.set())
    with server:
        print(f"FAKE_LLM_LISTENING {server.url}", flush=True)
        while not stopped.wait(0.2):
            pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
