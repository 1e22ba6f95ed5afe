"""Provides the :class:`~zett_browser.model.export.ExportService` the app hands its dialog."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING

from ..model.export import ExportRequest
from ..notes.db import default_file
from ..startup.launch import LazyStore, resolve
from . import ExportOptions, ExportReport
from .files import describe, export_file

if TYPE_CHECKING:
    from ..storage import SQLSessionStorage


class StoreExporter:
    """Exports from the store the app browses, off the app's loop.

    Rendering, cleaning and redacting a session is CPU work (seconds for a big session with
    ``--redact``); on the app's loop it froze the screen. The export runs on a worker thread
    with an event loop of its own: the store keeps one pool per loop, and that loop's pool
    is released before the thread ends (as the warm start does).
    """

    def __init__(self, storage: SQLSessionStorage | LazyStore, notes_file: Path | None = None) -> None:
        self.storage = storage
        #: Where pins, labels and notes are kept (None: the default notes file).
        self.notes_file = notes_file

    async def export(self, request: ExportRequest) -> str:
        """Write the file the request names; one line on what was written."""
        options = ExportOptions(
            format=request.format,
            subtree=request.subtree,
            reasoning=request.reasoning,
            tool_results=request.tool_results,
            usage=request.usage,
            redact=request.redact,
            notes=(self.notes_file or default_file()) if request.notes else None,
        )
        path = request.path.expanduser().absolute()  # the notification says exactly where
        storage = await resolve(self.storage)

        async def run() -> ExportReport:
            try:
                return await export_file(storage, request.session_id, options, path, force=request.force)
            finally:
                await storage.release_loop()

        report = await asyncio.to_thread(lambda: asyncio.run(run()))
        return describe(report, path)
