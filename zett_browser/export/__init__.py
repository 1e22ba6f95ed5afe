"""Provides exports of a session (or its subtree) to Markdown, HTML or JSON, toolkit-free.

:func:`export_session` walks the store read-only (:mod:`.walk`) and writes as it reads,
so memory stays flat on any session length. Markdown and HTML take each record's words
from :mod:`zett_browser.views.formatting`, the renderer the Raw Log and the detail view use;
JSON keeps the stored rows unchanged (:mod:`.jsondoc`), and :func:`.restore.restore`
writes such a file back through the storage API. ``redact`` replaces common secrets in
every format (:mod:`.redact`). The CLI is ``zett_browser/cli/export.py``; the app's
dialog is ``screens/export.py``.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from ..storage import SQLSessionStorage
from .html import HtmlWriter
from .jsondoc import JsonWriter
from .markdown import MarkdownWriter
from .redact import Redactor
from .review import read_review
from .segments import ExportChoices
from .source import Source
from .walk import ExportError, Walk

FORMATS = ("md", "html", "json")
#: File name suffix of each format.
SUFFIX = {"md": ".md", "html": ".html", "json": ".json"}


@dataclass(frozen=True, slots=True)
class ExportOptions:
    """What to export and how."""

    format: str = "md"
    subtree: bool = False
    reasoning: bool = True
    tool_results: bool = True
    usage: bool = True
    redact: bool = False
    #: The notes file whose pins, labels and notes the export carries (None: none).
    notes: Path | None = None

    def problem(self) -> str | None:
        """Why these options cannot be used together, or None."""
        if self.format not in FORMATS:
            return f"unknown format {self.format!r}: use md, html or json"
        if self.format == "json":
            left_out = [
                name
                for name, keep in (("--no-reasoning", self.reasoning), ("--no-tool-results", self.tool_results))
                if not keep
            ] + ([] if self.usage else ["--no-usage"])
            if left_out:
                return f"{', '.join(left_out)}: JSON keeps the stored rows unchanged; use md or html to leave parts out"
        return None


@dataclass(frozen=True, slots=True)
class ExportReport:
    """What an export wrote."""

    sessions: int
    messages: int
    redacted: int
    seconds: float


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
    walk = Walk(storage, writer, subtree=options.subtree, summaries=story, totals=story and options.usage)
    stats = await walk.run(session_id)
    writer.finish()
    return ExportReport(stats.sessions, stats.messages, redactor.count, time.perf_counter() - started)


__all__ = ["FORMATS", "SUFFIX", "ExportError", "ExportOptions", "ExportReport", "export_session"]
