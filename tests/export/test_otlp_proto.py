"""The OTLP/HTTP body written directly in protobuf's wire format (``export/otlp_proto.py``) is
byte for byte what the ``opentelemetry-proto`` messages serialise to: on the spans of stores
real zett-agent wrote (with content), and on every kind of attribute value at its edges."""

from __future__ import annotations

import math

import pytest

from tests.export.otlp_helpers import PARENT, spans_of
from tests.realstore.stores import RealStores
from tests.support import private_fixture
from zett_browser.export import otlp_proto
from zett_browser.export.otlp_model import AttrValue, SpanData, SpanKind
from zett_browser.export.otlp_proto import request_bytes, span_bytes
from zett_browser.export.otlp_wire import span_proto, spans_proto

STORE = private_fixture("agent_run.sqlite3")


def _same(spans: list[SpanData]) -> None:
    for span in spans:
        assert span_bytes(span) == span_proto(span).SerializeToString(), span.name
    assert request_bytes(spans) == spans_proto(spans).SerializeToString()


@pytest.mark.parametrize("content", [False, True])
async def test_fixture_spans(content: bool) -> None:
    spans = await spans_of(STORE, PARENT, content=content)
    assert len(spans) > 10
    _same(spans)
    assert all(otlp_proto._span(span) for span in spans)  # written directly, none left to upb


async def test_real_runtime_spans(real_stores: RealStores) -> None:
    import sqlite3

    total = 0
    for store in (real_stores.main, real_stores.children):
        connection = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
        try:
            sessions = [row[0] for row in connection.execute("select id from agent_sessions")]
        finally:
            connection.close()
        for session in sessions:
            spans = await spans_of(store, session, content=True)
            _same(spans)
            total += len(spans)
    assert total > 20


_VALUES: list[AttrValue] = [
    True,
    False,
    0,
    1,
    127,
    128,
    -1,
    2**63 - 1,
    -(2**63),
    0.0,
    -0.0,
    1 / 3,
    math.inf,
    -math.inf,
    math.nan,
    "",
    "plain",
    "\x00\x1b[31m\u202e\U0001f600",
    "lone \ud800 surrogate",
    "x" * 300,
    ["a"],
    ["", "b", "\ud83d", "é" * 200],
]


def _span(**changes: object) -> SpanData:
    fields: dict[str, object] = {
        "trace_id": bytes(range(16)),
        "span_id": bytes(range(8)),
        "parent_id": None,
        "name": "chat m",
        "kind": SpanKind.CLIENT,
        "start_ns": 1,
        "end_ns": 2**64 - 1,
        "attributes": [],
        "error": None,
    }
    fields.update(changes)
    return SpanData(**fields)  # type: ignore[arg-type]


def test_every_value_and_field_at_its_edges() -> None:
    spans = [_span(attributes=[(f"k{n}", value) for n, value in enumerate(_VALUES)])]
    spans += [_span(attributes=[("one", value)]) for value in _VALUES]
    spans += [
        _span(parent_id=bytes(8), error=""),
        _span(parent_id=b"\x01" * 8, error="failed \ud800 \x1b]52;c;x\x07"),
        _span(name="", kind=0, start_ns=0, end_ns=0),
        _span(name="é\U0001f600", kind=SpanKind.INTERNAL),
        _span(attributes=[("empty list", [])]),  # left to the upb message (is it set at all?)
        _span(attributes=[("", "no key")]),
    ]
    _same(spans)


@pytest.mark.parametrize("changes", [{"attributes": [("big", 2**63)]}, {"start_ns": -1}, {"end_ns": 2**64}])
def test_values_protobuf_refuses_are_refused_alike(changes: dict[str, object]) -> None:
    span = _span(**changes)
    with pytest.raises(ValueError) as upb:
        span_proto(span)
    with pytest.raises(type(upb.value)):
        span_bytes(span)
