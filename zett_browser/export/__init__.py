"""Provides exports of a session (or its subtree) to Markdown, HTML, JSON or OTLP, toolkit-free.

:func:`export_session` walks the store read-only (:mod:`.walk`) and writes as it reads,
so memory stays flat on any session length. Markdown and HTML take each record's words
from :mod:`zett_browser.views.formatting`, the renderer the Raw Log and the detail view use;
JSON keeps the stored rows unchanged (:mod:`.jsondoc`), and :func:`.restore.restore`
writes such a file back through the storage API. ``redact`` replaces common secrets in
every format (:mod:`.redact`). OTLP gives OpenTelemetry spans (:mod:`.otlp`): an OTLP/JSON
document here, or sent to a collector by :func:`.otlp_export.send_session`. The CLI is
``zett_browser/cli/export.py``; the app's dialog is ``screens/export.py``.
"""

from __future__ import annotations

import asyncio
import time
from typing import TextIO

from ..storage import SQLSessionStorage
from .html import HtmlWriter
from .jsondoc import JsonWriter
from .markdown import MarkdownWriter
from .options import FORMATS, SUFFIX, ExportOptions, ExportReport
from .redact import Redactor
from .review import read_review
from .segments import ExportChoices
from .source import Source
from .walk import ExportError, Walk


async def export_session(
    storage: SQLSessionStorage | Source, session_id: str, out: TextIO, options: ExportOptions
) -> ExportReport:
    """Write ``session_id`` (with ``options.subtree`` its delegated sessions too) to ``out``.

    Raises:
        ExportError: The options do not go together, or the session is not in the store.
        StoreError: The store cannot be read.
    """
    problem = options.problem()
    if problem is not None:
        raise ExportError(problem)
    started = time.perf_counter()
    redactor = Redactor(enabled=options.redact)
    choices = ExportChoices(reasoning=options.reasoning, tool_results=options.tool_results, usage=options.usage)
    if options.format == "otlp":
        from .otlp_export import write_otlp  # protobuf is imported only by an OTLP export

        return await write_otlp(storage, session_id, out, options)
    writer: MarkdownWriter | HtmlWriter | JsonWriter
    if options.format == "md":
        writer = MarkdownWriter(out, choices, redactor)
    elif options.format == "html":
        writer = HtmlWriter(out, choices, redactor)
    else:
        writer = JsonWriter(out, redactor)
    story = options.format != "json"  # JSON: the stored rows (snapshots hold the summaries), nothing derived
    if options.notes is not None:
        writer.review = await asyncio.to_thread(read_review, options.notes, storage)
    # JSON without redaction: a SQLite store's rows as the JSON text SQLite writes (where exact).
    encoded = options.format == "json" and not redactor.enabled
    walk = Walk(
        storage, writer, subtree=options.subtree, summaries=story, totals=story and options.usage, encoded=encoded
    )
    stats = await walk.run(session_id)
    writer.finish()
    return ExportReport(stats.sessions, stats.messages, redactor.count, time.perf_counter() - started)


__all__ = ["FORMATS", "SUFFIX", "ExportError", "ExportOptions", "ExportReport", "export_session"]
