"""Provides the two wire forms of the spans: OTLP protobuf messages and the OTLP/JSON document.

Both carry one resource (``service.name`` ``zett-agent``) and one instrumentation scope
(``zett-browser`` and its version). :func:`spans_proto` builds an
``ExportTraceServiceRequest`` with the ``opentelemetry-proto`` classes (the body of one
OTLP/HTTP POST is those bytes, written directly by :mod:`.otlp_proto`).
:class:`OtlpJsonWriter` writes the same request as OTLP/JSON (the protobuf JSON mapping
with the OTLP rules: ids as hex, enums as numbers, 64-bit integers as decimal strings), one
span at a time as the walk goes, so a session of any length is written with flat memory.
The JSON is written directly rather than through ``google.protobuf.json_format`` (ten
times slower per span, pure Python); the tests parse it back with ``json_format`` into the
protobuf classes and compare it with :func:`spans_proto`.
Like every JSON the CLI writes it is ASCII (:func:`..text.safe_json`).
"""

from __future__ import annotations

from collections.abc import Iterable
from json.encoder import encode_basestring_ascii as _quote  # type: ignore[attr-defined]
from typing import TextIO

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, InstrumentationScope, KeyValue
from opentelemetry.proto.resource.v1.resource_pb2 import Resource
from opentelemetry.proto.trace.v1.trace_pb2 import ResourceSpans, ScopeSpans, Span

from .. import __version__
from ..text import safe_json
from .otlp_model import SCOPE, SERVICE, AttrValue, SpanData

#: ``Status.StatusCode.STATUS_CODE_ERROR``.
ERROR_CODE = 2


def valid_text(text: str) -> str:
    """``text`` as valid UTF-8 (a lone surrogate from a damaged row becomes U+FFFD): protobuf refuses it."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "replace").decode("utf-8")
    return text


def _set(target: AnyValue, value: AttrValue) -> None:
    if isinstance(value, bool):
        target.bool_value = value
    elif isinstance(value, int):
        target.int_value = value
    elif isinstance(value, float):
        target.double_value = value
    elif isinstance(value, list):
        add = target.array_value.values.add
        for item in value:
            add(string_value=valid_text(item))
    else:
        target.string_value = valid_text(value)


def span_proto(span: SpanData) -> Span:
    """The ``opentelemetry-proto`` message of one span.

    Attributes are added in place (``attributes.add``): building each ``KeyValue`` and
    ``AnyValue`` first and passing the lists to the constructor took 2.5 times as long.
    """
    message = Span(
        trace_id=span.trace_id,
        span_id=span.span_id,
        name=valid_text(span.name),
        kind=int(span.kind),  # type: ignore[arg-type]
        start_time_unix_nano=span.start_ns,
        end_time_unix_nano=span.end_ns,
    )
    add = message.attributes.add
    for key, value in span.attributes:
        _set(add(key=key).value, value)
    if span.parent_id is not None:
        message.parent_span_id = span.parent_id
    if span.error is not None:
        message.status.code = ERROR_CODE  # type: ignore[assignment]
        message.status.message = valid_text(span.error)
    return message


def resource_proto() -> Resource:
    return Resource(attributes=[KeyValue(key="service.name", value=AnyValue(string_value=SERVICE))])


def scope_proto() -> InstrumentationScope:
    return InstrumentationScope(name=SCOPE, version=__version__)


def spans_proto(spans: Iterable[SpanData]) -> ExportTraceServiceRequest:
    """An ``ExportTraceServiceRequest`` holding ``spans`` under the export's resource and scope."""
    scope_spans = ScopeSpans(scope=scope_proto(), spans=[span_proto(span) for span in spans])
    return ExportTraceServiceRequest(
        resource_spans=[ResourceSpans(resource=resource_proto(), scope_spans=[scope_spans])]
    )


# -- OTLP/JSON ------------------------------------------------------------------------------


def _json_value(value: AttrValue) -> str:
    if value is True or value is False:
        return '{"boolValue": true}' if value else '{"boolValue": false}'
    if isinstance(value, int):
        return f'{{"intValue": "{value}"}}'
    if isinstance(value, float):
        return f'{{"doubleValue": {safe_json(value)}}}'
    if isinstance(value, list):
        items = ", ".join(f'{{"stringValue": {_quote(valid_text(item))}}}' for item in value)
        return f'{{"arrayValue": {{"values": [{items}]}}}}'
    return f'{{"stringValue": {_quote(valid_text(value))}}}'


def span_json(span: SpanData) -> str:
    """One span in OTLP/JSON (the protobuf JSON mapping with hex ids and numeric enums), as ASCII text.

    Put together from pieces, each string through the standard library's C-accelerated
    ASCII quoting (what :func:`..text.safe_json` does to a whole value): a dict per span
    through ``json.dumps`` cost twice as much.
    """
    parent = f', "parentSpanId": "{span.parent_id.hex()}"' if span.parent_id is not None else ""
    attributes = ", ".join(f'{{"key": {_quote(key)}, "value": {_json_value(value)}}}' for key, value in span.attributes)
    status = ""
    if span.error is not None:
        status = f', "status": {{"code": {ERROR_CODE}, "message": {_quote(valid_text(span.error))}}}'
    return (
        f'{{"traceId": "{span.trace_id.hex()}", "spanId": "{span.span_id.hex()}"{parent}, '
        f'"name": {_quote(valid_text(span.name))}, "kind": {int(span.kind)}, '
        f'"startTimeUnixNano": "{span.start_ns}", "endTimeUnixNano": "{span.end_ns}", '
        f'"attributes": [{attributes}]{status}}}'
    )


def _head() -> str:
    resource = {"attributes": [{"key": "service.name", "value": {"stringValue": SERVICE}}]}
    scope = {"name": SCOPE, "version": __version__}
    head = f'{{"resource": {safe_json(resource)}, "scopeSpans": [{{"scope": {safe_json(scope)}, "spans": ['
    return '{"resourceSpans": [' + head


class OtlpJsonWriter:
    """Writes one OTLP/JSON ``ExportTraceServiceRequest`` to ``out``, a span at a time."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.count = 0

    def __call__(self, span: SpanData) -> None:
        self.out.write(_head() + "\n" if self.count == 0 else ",\n")
        self.out.write(span_json(span))
        self.count += 1

    def finish(self) -> None:
        """Close the document (an export with no span is a request with no span)."""
        if self.count == 0:
            self.out.write(_head())
        self.out.write("\n]}]}]}\n")


__all__ = [
    "ERROR_CODE",
    "OtlpJsonWriter",
    "resource_proto",
    "scope_proto",
    "span_json",
    "span_proto",
    "spans_proto",
    "valid_text",
]
