"""Provides the :class:`~zett_browser.model.export.ExportService` the app hands its dialog."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from ..model.export import ExportRequest
from ..model.store import BrowsingStore
from ..notes.db import default_file
from ..startup.launch import LazyStore, resolve
from . import ExportOptions, ExportReport
from .files import describe, export_file
from .source import Source

if TYPE_CHECKING:
    from ..storage import SQLSessionStorage


def _options(request: ExportRequest) -> ExportOptions:
    return ExportOptions(
        format=request.format,
        subtree=request.subtree,
        reasoning=request.reasoning,
        tool_results=request.tool_results,
        usage=request.usage,
        redact=request.redact,
    )


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
        notes = (self.notes_file or default_file()) if request.notes else None
        options = replace(_options(request), notes=notes)
        path = request.path.expanduser().absolute()  # the notification says exactly where
        storage = await resolve(self.storage)

        async def run() -> ExportReport:
            try:
                return await export_file(storage, request.session_id, options, path, force=request.force)
            finally:
                await storage.release_loop()

        report = await asyncio.to_thread(lambda: asyncio.run(run()))
        return describe(report, path)


class JoinedExporter:
    """Exports from several stores opened together (an :class:`ExportService`): a subtree
    follows its delegated sessions into whichever store holds them (:class:`.source.Source`),
    off the app's loop as :class:`StoreExporter` does.

    Args:
        joined: The browsing queries over all the stores.
        locate: Which of ``storages`` holds a session.
        storages: The stores, in the joined store's order.
    """

    def __init__(
        self,
        joined: BrowsingStore,
        locate: Callable[[str], Awaitable[int | None]],
        storages: Sequence[SQLSessionStorage | LazyStore],
    ) -> None:
        self.joined = joined
        self.locate = locate
        self.storages = list(storages)

    async def export(self, request: ExportRequest) -> str:
        """Write the file the request names; one line on what was written."""
        # Marks are kept per store: each store's are read (the default notes file).
        options = replace(_options(request), notes=default_file() if request.notes else None)
        path = request.path.expanduser().absolute()
        storages = [await resolve(storage) for storage in self.storages]
        source = Source(storages, self.joined, self.locate)

        async def run() -> ExportReport:
            try:
                return await export_file(source, request.session_id, options, path, force=request.force)
            finally:
                await source.release_loop()

        report = await asyncio.to_thread(lambda: asyncio.run(run()))
        return describe(report, path)
