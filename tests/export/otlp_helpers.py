"""Helpers of the OTLP export tests: spans of a store as typed records and as OTLP/JSON."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

from google.protobuf import json_format
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from tests.export.helpers import export_text
from zett_browser.export.otlp import SpanBuilder
from zett_browser.export.otlp_model import AttrValue, SpanData
from zett_browser.export.redact import Redactor
from zett_browser.export.walk import Walk
from zett_browser.storage import open_store

#: The session of tests/fixtures/agent_run.sqlite3 that delegates (task) and was compacted three times.
PARENT = "0193a5c0-0000-7000-8000-00000000a9e1"
CHILD = "01a2380a-8411-7587-9925-7a4bf47e62e0"


async def spans_of(
    store: Path | str, session: str, *, subtree: bool = True, content: bool = False, redact: bool = False
) -> list[SpanData]:
    """The spans an OTLP export of ``session`` builds, in the order they are handed over."""
    found: list[SpanData] = []
    storage = open_store(store)
    try:
        builder = SpanBuilder(found.append, Redactor(enabled=redact), content=content)
        await Walk(storage, builder, subtree=subtree).run(session)
    finally:
        await storage.close()
    return found


def attributes(span: SpanData) -> dict[str, AttrValue]:
    return dict(span.attributes)


def by_name(spans: list[SpanData], prefix: str) -> list[SpanData]:
    return [span for span in spans if span.name.startswith(prefix)]


async def otlp_json(store: Path | str, session: str, **options: Any) -> dict[str, Any]:
    """The OTLP/JSON document of an export (``format="otlp"``), parsed."""
    text, _ = await export_text(store, session, format="otlp", **options)
    value: dict[str, Any] = json.loads(text)
    return value


def parse_otlp_json(document: dict[str, Any]) -> ExportTraceServiceRequest:
    """An OTLP/JSON document read into the protobuf classes (hex ids back to the mapping's base64)."""
    copy = json.loads(json.dumps(document))
    for resource in copy["resourceSpans"]:
        for scope in resource["scopeSpans"]:
            for span in scope["spans"]:
                for key in ("traceId", "spanId", "parentSpanId"):
                    if key in span:
                        span[key] = base64.b64encode(bytes.fromhex(span[key])).decode("ascii")
    request = ExportTraceServiceRequest()
    json_format.ParseDict(copy, request)
    return request


def json_attributes(span: dict[str, Any]) -> dict[str, Any]:
    """An OTLP/JSON span's attributes as plain values."""
    found: dict[str, Any] = {}
    for item in span["attributes"]:
        value = item["value"]
        if "arrayValue" in value:
            found[item["key"]] = [entry["stringValue"] for entry in value["arrayValue"]["values"]]
        elif "intValue" in value:
            found[item["key"]] = int(value["intValue"])
        else:
            found[item["key"]] = next(iter(value.values()))
    return found
