"""Provides the spans of an OpenTelemetry export: the typed record, ids, times and names.

A :class:`SpanData` is what :mod:`.otlp` builds from the stored rows and what both wire
forms are made from (:mod:`.otlp_wire`: the ``opentelemetry-proto`` messages sent over
OTLP/HTTP, and the OTLP/JSON document written to a file). Ids are derived from the store,
never drawn at random: the trace id from the exported (root) session's id, each span id
from its session's id and the sequence of the row it stands for (plus the call's place in
that row for a tool call), so exporting the same session again gives the same ids and a
backend that keys spans by id stores them once.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from enum import IntEnum

#: An attribute's value: what OTLP's ``AnyValue`` holds for these spans.
AttrValue = str | bool | int | float | list[str]

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_NAIVE_EPOCH = datetime(1970, 1, 1)
_MICROSECOND = timedelta(microseconds=1)
#: OTLP start and end times are unsigned 64-bit nanoseconds.
_MAX_NS = 2**64 - 1

#: What the instrumentation scope is called in every export.
SCOPE = "zett-browser"
#: ``service.name`` of the resource: the program whose work the spans describe.
SERVICE = "zett-agent"


class SpanKind(IntEnum):
    """OTLP's ``Span.SpanKind`` numbers (the JSON form writes them as numbers)."""

    INTERNAL = 1
    CLIENT = 3


@dataclass(slots=True)
class SpanData:
    """One finished span: ids, name, kind, times in nanoseconds since the epoch, attributes."""

    trace_id: bytes
    span_id: bytes
    parent_id: bytes | None
    name: str
    kind: SpanKind
    start_ns: int
    end_ns: int
    attributes: list[tuple[str, AttrValue]] = field(default_factory=list)
    #: The status message of a failed span (None: status unset).
    error: str | None = None


def _digest(text: str, size: int) -> bytes:
    value = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=size).digest()
    # An all-zero id is invalid in OTLP; one in 2**64 digests, but never sent.
    return value if any(value) else b"\x00" * (size - 1) + b"\x01"


def trace_id(root_session: str) -> bytes:
    """The trace id of an export of ``root_session`` (16 bytes)."""
    return _digest(f"zett-trace\x00{root_session}", 16)


def span_id(session: str, sequence: int | str, part: str = "") -> bytes:
    """A span's id (8 bytes) from its session, the row's sequence and the part of that row."""
    return _digest(f"zett-span\x00{session}\x00{sequence}\x00{part}", 8)


def nanoseconds(value: object) -> int | None:
    """A stored time as nanoseconds since the epoch (None: not a readable time).

    ``value`` as the store gives it: SQLite's text (naive UTC, as zett-agent writes it) or
    a server's ``datetime`` (naive UTC or aware), read as :func:`..storage.values.stored_time`
    reads it, without building an aware copy of each (a third of the export's time).
    """
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value)
        except (ValueError, OverflowError):
            return None
    if not isinstance(value, datetime):
        return None
    try:
        found = (value - (_NAIVE_EPOCH if value.tzinfo is None else _EPOCH)) // _MICROSECOND * 1000
    except OverflowError:
        return None
    return found if 0 <= found <= _MAX_NS else None


__all__ = ["SCOPE", "SERVICE", "AttrValue", "SpanData", "SpanKind", "nanoseconds", "span_id", "trace_id"]
