"""A real OTLP/HTTP trace receiver on 127.0.0.1 that decodes what it gets with the official protobuf definitions.

``POST /v1/traces`` bodies are parsed as ``ExportTraceServiceRequest`` (``opentelemetry-proto``, the
collector's own schema); every span is kept with its resource's attributes, flattened to Python values.
:attr:`OtlpReceiver.refuse` makes it answer an HTTP error instead (the exporter does not retry a 400).
"""

from __future__ import annotations

import gzip
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue


def any_value(value: AnyValue) -> Any:
    kind = value.WhichOneof("value")
    if kind == "array_value":
        return [any_value(item) for item in value.array_value.values]
    if kind == "kvlist_value":
        return {item.key: any_value(item.value) for item in value.kvlist_value.values}
    return getattr(value, kind) if kind is not None else None


def attributes(items: Any) -> dict[str, Any]:
    return {item.key: any_value(item.value) for item in items if isinstance(item, KeyValue)}


@dataclass(frozen=True)
class ReceivedSpan:
    name: str
    kind: int
    trace_id: str
    span_id: str
    parent_span_id: str
    start_ns: int
    end_ns: int
    status_code: int
    attributes: dict[str, Any]
    resource: dict[str, Any]
    scope: str


class OtlpReceiver:
    """Collects the spans of every accepted export request."""

    def __init__(self) -> None:
        self.spans: list[ReceivedSpan] = []
        self.requests = 0
        self.refuse: int | None = None  # an HTTP status to answer with instead of accepting
        self.headers: list[dict[str, str]] = []
        self._changed = threading.Condition()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                return None

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                if self.headers.get("Content-Encoding") == "gzip":
                    body = gzip.decompress(body)
                if self.path != "/v1/traces":
                    self.send_error(404)
                    return
                request = ExportTraceServiceRequest()
                request.ParseFromString(body)
                with receiver._changed:
                    receiver.requests += 1
                    receiver.headers.append(dict(self.headers.items()))
                    refuse = receiver.refuse
                    if refuse is None:
                        receiver.spans.extend(_spans(request))
                    receiver._changed.notify_all()
                if refuse is not None:
                    self.send_error(refuse)
                    return
                answer = ExportTraceServiceResponse().SerializeToString()
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def endpoint(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def wait_for(self, count: int, timeout: float = 60.0) -> list[ReceivedSpan]:
        """Wait until ``count`` spans arrived (a hang guard, not a timing check); then the spans."""
        with self._changed:
            if not self._changed.wait_for(lambda: len(self.spans) >= count, timeout):
                raise TimeoutError(f"{len(self.spans)} spans arrived, waited for {count}")
            return list(self.spans)

    def __enter__(self) -> OtlpReceiver:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()


def _spans(request: ExportTraceServiceRequest) -> Iterator[ReceivedSpan]:
    for resource_spans in request.resource_spans:
        resource = attributes(resource_spans.resource.attributes)
        for scope_spans in resource_spans.scope_spans:
            for span in scope_spans.spans:
                yield ReceivedSpan(
                    span.name,
                    span.kind,
                    span.trace_id.hex(),
                    span.span_id.hex(),
                    span.parent_span_id.hex(),
                    span.start_time_unix_nano,
                    span.end_time_unix_nano,
                    span.status.code,
                    attributes(span.attributes),
                    resource,
                    scope_spans.scope.name,
                )


@contextmanager
def receiver() -> Iterator[OtlpReceiver]:
    with OtlpReceiver() as running:
        yield running
