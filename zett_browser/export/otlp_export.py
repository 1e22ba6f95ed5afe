"""Provides the OTLP export's two ends: an OTLP/JSON document, or spans sent to a collector.

Both walk the session (and with ``subtree`` its delegated sessions) with the export's one
walk (:mod:`.walk`, a keyset page at a time), build the spans as the rows come
(:mod:`.otlp`) and hand each on at once: to :class:`.otlp_wire.OtlpJsonWriter`, or to
:class:`.otlp_send.OtlpSender`, which sends them in batches. The walk reads the stored rows
only: no totals, no summaries (the snapshots' times are read for each session's head).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TextIO

from ..storage import SQLSessionStorage
from .options import ExportOptions, ExportReport
from .otlp import SpanBuilder
from .otlp_model import SpanData
from .otlp_send import OtlpSender, Post, http_post, traces_url
from .plan import ExportError
from .redact import Redactor
from .source import Source
from .walk import Walk


async def _walk(
    storage: SQLSessionStorage | Source, session_id: str, options: ExportOptions, sink: Callable[[SpanData], None]
) -> tuple[int, int, int, int]:
    """Walk and build: (sessions, messages, spans, redactions)."""
    problem = options.problem()
    if problem is not None:
        raise ExportError(problem)
    redactor = Redactor(enabled=options.redact)
    builder = SpanBuilder(sink, redactor, content=options.otlp_content)
    stats = await Walk(storage, builder, subtree=options.subtree).run(session_id)
    return stats.sessions, stats.messages, builder.spans, redactor.count


async def write_otlp(
    storage: SQLSessionStorage | Source, session_id: str, out: TextIO, options: ExportOptions
) -> ExportReport:
    """Write ``session_id``'s spans to ``out`` as one OTLP/JSON ``ExportTraceServiceRequest``.

    Raises:
        ExportError: the options do not go together, or the session is not in the store.
    """
    from .otlp_wire import OtlpJsonWriter

    started = time.perf_counter()
    writer = OtlpJsonWriter(out)
    sessions, messages, spans, redacted = await _walk(storage, session_id, options, writer)
    writer.finish()
    return ExportReport(sessions, messages, redacted, time.perf_counter() - started, spans)


async def send_session(
    storage: SQLSessionStorage,
    session_id: str,
    options: ExportOptions,
    endpoint: str,
    headers: dict[str, str],
    *,
    post: Post | None = None,
) -> ExportReport:
    """Send ``session_id``'s spans to the OTLP/HTTP ``endpoint`` (see :mod:`.otlp_send`).

    Raises:
        ExportError: a bad endpoint, options that do not go together, an unknown session,
            a request that failed after its retries, or spans the collector rejected.
    """
    started = time.perf_counter()
    url = traces_url(endpoint)
    sender = OtlpSender(url, post if post is not None else http_post(url, headers))
    try:
        sessions, messages, spans, redacted = await _walk(storage, session_id, options, sender)
        sender.finish()
    finally:
        sender.close()
    return ExportReport(sessions, messages, redacted, time.perf_counter() - started, spans)


__all__ = ["send_session", "write_otlp"]
