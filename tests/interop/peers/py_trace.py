"""OpenTelemetry for the Python SDK peers: `install(path)` sets a tracer
provider (the OpenTelemetry SDK, pinned in requirements.txt) whose finished
spans are appended to `path` as JSON lines, one per span, written when the
span ends:

    {"name": ..., "kind": "CLIENT"|"SERVER"|..., "traceId": 32 hex,
     "spanId": 16 hex, "parentSpanId": 16 hex|null, "status": "UNSET"|"OK"|"ERROR",
     "attributes": {...}}

The MCP SDK opens its spans through the global provider, so a client
request's span and the context it injects into `_meta` (or a server
request's span and the parent it extracts) are what the file records.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter, SpanExportResult


class JsonLines(SpanExporter):
    """Appends each span to a file as one JSON line."""

    def __init__(self, path: str) -> None:
        self._path = path

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        with open(self._path, "a", encoding="utf-8") as out:
            for span in spans:
                context = span.get_span_context()
                parent = span.parent
                out.write(
                    json.dumps(
                        {
                            "name": span.name,
                            "kind": span.kind.name,
                            "traceId": format(context.trace_id, "032x"),
                            "spanId": format(context.span_id, "016x"),
                            "parentSpanId": format(parent.span_id, "016x") if parent else None,
                            "status": span.status.status_code.name,
                            "attributes": dict(span.attributes or {}),
                        }
                    )
                    + "\n"
                )
        return SpanExportResult.SUCCESS


def install(path: str) -> None:
    """Records every span of this process into `path`."""
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(JsonLines(path)))
    trace.set_tracer_provider(provider)
