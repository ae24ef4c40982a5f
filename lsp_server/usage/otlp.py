"""Each counted request as one OpenTelemetry span, sent over OTLP/HTTP with the official SDK and exporter.

**Why spans.** The GenAI semantic conventions define the per-call usage attributes
(``gen_ai.usage.input_tokens``, ``gen_ai.usage.output_tokens``, ``gen_ai.usage.cache_read.input_tokens``,
``gen_ai.usage.cache_creation.input_tokens``) on the *inference span* (``span.gen_ai.inference.client``:
one span per call to a model, named ``{gen_ai.operation.name} {gen_ai.request.model}``, kind CLIENT).
The metrics (``gen_ai.client.token.usage``) are histograms aggregated over calls, so they cannot carry
one record per request, and the event ``gen_ai.client.inference.operation.details`` is opt-in and meant
for message content. A backend can derive the metrics from the spans; the reverse is not possible.
docs/usage.md lists every attribute.

Each span starts when Pi started the request (the reply's ``timestamp``) and ends when Pi wrote the
entry. Its trace and span ids are derived from the request's identity (entry id and timestamp, the
pair a fork or clone copies, :mod:`.lineage`), so a span sent twice (a crash between the export and
the cursor's write, :mod:`.cursor`) has the same ids both times and a backend can drop the repeat.

Resource attributes say who and where: ``service.name`` ``pi``, ``host.name``, ``user.name`` and
``pi.project`` (the session's cwd); one resource per project, so every export groups its spans by
project. ``OTEL_RESOURCE_ATTRIBUTES`` adds more (the SDK's own rule). No prompt or reply text is sent
unless asked (``--otlp-content``: the conventions' opt-in message attributes, :mod:`.content`).

The SDK is an optional extra (``pip install 'pi-context[otel]'``): this module imports it, and the CLI
imports this module only for ``--otlp`` (an ImportError there becomes the install hint).
"""

from __future__ import annotations

import contextlib
import getpass
import hashlib
import socket
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from opentelemetry.context import Context
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, Span, SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export import SpanExportResult
from opentelemetry.sdk.trace.id_generator import IdGenerator
from opentelemetry.sdk.trace.sampling import ALWAYS_ON
from opentelemetry.trace import SpanKind, Status, StatusCode, Tracer

from lsp_server import __version__
from lsp_server.usage.records import SessionHead, UsageRecord

BATCH_SIZE: Final = 512  # spans per export request (the SDK's own default batch)
TRACES_PATH: Final = "/v1/traces"

# Pi's provider ids -> the GenAI conventions' well-known ``gen_ai.provider.name`` values; any other
# provider is sent under Pi's own id (the conventions allow a custom value).
PROVIDER_NAMES: Final[Mapping[str, str]] = {
    "anthropic": "anthropic",
    "openai": "openai",
    "azure-openai-responses": "azure.ai.openai",
    "amazon-bedrock": "aws.bedrock",
    "google": "gcp.gemini",
    "google-vertex": "gcp.vertex_ai",
    "google-gemini-cli": "gcp.gen_ai",
    "deepseek": "deepseek",
    "groq": "groq",
    "mistral": "mistral_ai",
    "xai": "x_ai",
    "cohere": "cohere",
    "perplexity": "perplexity",
}
ERROR_STOPS: Final = frozenset({"error", "aborted"})


def traces_url(endpoint: str) -> str:
    """``http://host:4318`` -> ``http://host:4318/v1/traces`` (a URL already ending so is kept)."""
    stripped = endpoint.rstrip("/")
    return stripped if stripped.endswith(TRACES_PATH) else stripped + TRACES_PATH


def record_ids(record: UsageRecord, path: str) -> tuple[int, int]:
    """The span's trace id (128 bits) and span id (64 bits), from the request's identity."""
    key = record.key
    seed = f"{key[0]}\0{key[1]}" if key is not None else f"{path}\0{record.line}"
    digest = hashlib.blake2b(seed.encode("utf-8", "surrogatepass"), digest_size=24).digest()
    trace_id = int.from_bytes(digest[:16], "big") or 1
    span_id = int.from_bytes(digest[16:], "big") or 1
    return trace_id, span_id


def record_id_text(record: UsageRecord, path: str) -> str:
    """The trace id as 32 hex digits: what the cursor remembers of a sent request."""
    return f"{record_ids(record, path)[0]:032x}"


@dataclass(frozen=True)
class Outgoing:
    """One counted request to send, with its session and its cost."""

    path: str
    head: SessionHead
    record: UsageRecord
    cost: float | None
    cost_source: str
    input_messages: str | None = None  # with --otlp-content only (:mod:`.content`)
    output_messages: str | None = None


def span_attributes(item: Outgoing) -> dict[str, Any]:
    """The span's attributes: the GenAI conventions' usage keys, Pi's own counts and the cost under ``pi.``."""
    record = item.record
    provider = PROVIDER_NAMES.get(record.provider or "", record.provider or "unknown")
    attributes: dict[str, Any] = {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": provider,
        "gen_ai.system": provider,  # the name before gen_ai.provider.name; older backends read it
        # The conventions count every input token here, cached ones included.
        "gen_ai.usage.input_tokens": int(record.input + record.cache_read + record.cache_write),
        "gen_ai.usage.output_tokens": int(record.output),
        "gen_ai.usage.cache_read.input_tokens": int(record.cache_read),
        "gen_ai.usage.cache_creation.input_tokens": int(record.cache_write),
        "pi.usage.input_tokens": int(record.input),  # Pi's "input": the uncached part
        "pi.usage.cost_source": item.cost_source,
        "pi.request.kind": record.kind,
        "pi.session.file": item.path,
    }
    if record.model:
        attributes["gen_ai.request.model"] = record.model
        attributes["gen_ai.response.model"] = record.model
    if item.head.id:
        attributes["gen_ai.conversation.id"] = item.head.id
    if record.stop_reason:
        attributes["gen_ai.response.finish_reasons"] = [record.stop_reason]
        if record.stop_reason in ERROR_STOPS:
            attributes["error.type"] = record.stop_reason
    if item.cost is not None:
        attributes["pi.usage.cost"] = item.cost  # US dollars
    if record.entry_id:
        attributes["pi.entry.id"] = record.entry_id
    if item.input_messages is not None:
        attributes["gen_ai.input.messages"] = item.input_messages
    if item.output_messages is not None:
        attributes["gen_ai.output.messages"] = item.output_messages
    return attributes


def resource_attributes(project: str | None) -> dict[str, str]:
    attributes = {"service.name": "pi", "host.name": socket.gethostname(), "pi_context.version": __version__}
    with contextlib.suppress(KeyError, OSError):  # no user name for this uid
        attributes["user.name"] = getpass.getuser()
    if project:
        attributes["pi.project"] = project
    return attributes


class SpanSender:
    """Builds spans with the SDK (one tracer provider per project) and exports them in batches."""

    def __init__(self, endpoint: str, *, headers: Mapping[str, str] | None = None, timeout_s: float = 10.0) -> None:
        self.url = traces_url(endpoint)
        self._exporter = OTLPSpanExporter(
            endpoint=self.url, headers=dict(headers) if headers else None, timeout=timeout_s
        )
        self._providers: dict[str | None, TracerProvider] = {}
        self._ids = _PresetIds()
        self._ended: list[ReadableSpan] = []

    def _tracer(self, project: str | None) -> Tracer:
        provider = self._providers.get(project)
        if provider is None:
            provider = TracerProvider(
                sampler=ALWAYS_ON,  # every request is a record: no sampler from the environment drops one
                resource=Resource.create(resource_attributes(project)),
                shutdown_on_exit=False,
                id_generator=self._ids,
            )
            provider.add_span_processor(_Collect(self._ended))
            self._providers[project] = provider
        return provider.get_tracer("pi-context.usage", __version__)

    def spans(self, items: Iterable[Outgoing]) -> list[ReadableSpan]:
        """One ended span per item, in order."""
        self._ended.clear()
        for item in items:
            record = item.record
            tracer = self._tracer(item.head.cwd)
            self._ids.next = record_ids(record, item.path)
            start = record.time_ms if record.time_ms is not None else record.end_ms
            end = record.end_ms if record.end_ms is not None and start is not None and record.end_ms >= start else start
            span = tracer.start_span(
                f"chat {record.model}" if record.model else "chat",
                kind=SpanKind.CLIENT,
                attributes=span_attributes(item),
                start_time=start * 1_000_000 if start is not None else None,
            )
            if record.stop_reason in ERROR_STOPS:
                span.set_status(Status(StatusCode.ERROR, record.stop_reason))
            span.end(end_time=end * 1_000_000 if end is not None else None)
        ended = list(self._ended)
        self._ended.clear()
        return ended

    def export(self, spans: Sequence[ReadableSpan]) -> str | None:
        """Send the spans (the exporter retries what can be retried); ``None`` or the reason it failed."""
        result = self._exporter.export(list(spans))
        if result is SpanExportResult.SUCCESS:
            return None
        return f"the OTLP endpoint {self.url} did not accept {len(spans)} span{'s' if len(spans) != 1 else ''}"

    def close(self) -> None:
        self._exporter.shutdown()  # type: ignore[no-untyped-call]
        for provider in self._providers.values():
            provider.shutdown()


class _PresetIds(IdGenerator):
    """The SDK's id generator, answering with the ids set for the next span (derived from the request)."""

    def __init__(self) -> None:
        self.next: tuple[int, int] = (1, 1)

    def generate_trace_id(self) -> int:
        return self.next[0]

    def generate_span_id(self) -> int:
        return self.next[1]

    def is_trace_id_random(self) -> bool:
        return False


class _Collect(SpanProcessor):
    """A span processor that keeps each ended span for the caller to export."""

    def __init__(self, into: list[ReadableSpan]) -> None:
        self.into = into

    def on_start(self, span: Span, parent_context: Context | None = None) -> None:
        return None

    def on_end(self, span: ReadableSpan) -> None:
        self.into.append(span)

    def shutdown(self) -> None:
        return None

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return True
