"""Provides the :class:`~zett_browser.model.export.ExportService` the app hands its dialog."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..launch import LazyStore, resolve
from ..model.export import ExportRequest
from . import ExportOptions
from .files import describe, export_file

if TYPE_CHECKING:
    from ..storage import SQLSessionStorage


class StoreExporter:
    """Exports from the store the app browses, on the app's loop (the storage's pool)."""

    def __init__(self, storage: SQLSessionStorage | LazyStore) -> None:
        self.storage = storage

    async def export(self, request: ExportRequest) -> str:
        """Write the file the request names; one line on what was written."""
        options = ExportOptions(
            format=request.format,
            subtree=request.subtree,
            reasoning=request.reasoning,
            tool_results=request.tool_results,
            usage=request.usage,
            redact=request.redact,
        )
        path = request.path.expanduser().absolute()  # the notification says exactly where
        report = await export_file(await resolve(self.storage), request.session_id, options, path, force=request.force)
        return describe(report, path)
