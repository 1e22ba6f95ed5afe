"""Provides the search, usage and export services that import their modules when first used.

The side index (``zett_browser.index``, ``searching``) costs ~50–90 ms to import, and its
first sync starts only after the first page is painted: :func:`make_app` hands the
screen a :class:`LazySearch`, which builds the real :class:`~.searching.IndexSearch` at
its first call, and a :class:`LazyUsage` reading that same index (one sync for both).
Every call is passed on unchanged. :class:`LazyExporter` does the same for the exporter
(the export package imports the SQL storage: it loads when the first export starts), and
:func:`lazy_notes` builds the notes service, which takes the store's identity at first use.
"""

from __future__ import annotations

import asyncio
import importlib
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from .launch import LazyStore, resolve

if TYPE_CHECKING:
    from ..index.search_service import IndexSearch
    from ..index.usage_service import IndexUsage
    from ..model.export import ExportRequest, ExportService
    from ..model.notes import NotesService
    from ..model.search import BuildProgress, HitPage, SearchService, SessionMatches
    from ..model.store import BrowsingStore
    from ..model.usage import SessionUsage, TreeSort
    from ..model.usage_service import UsageService
    from ..notes.identity import Identity
    from ..storage import SQLSessionStorage


def _import_index() -> None:
    """Import the index's service modules (the first sync then builds on them at once)."""
    for name in ("zett_browser.index.search_service", "zett_browser.index.usage_service"):
        importlib.import_module(name)


class LazySearch:
    """An :class:`~.searching.IndexSearch` built on first use (a :class:`SearchService`)."""

    def __init__(
        self, storage: SQLSessionStorage | LazyStore, directory: Path | None = None, notes_file: Path | None = None
    ) -> None:
        self._storage = storage
        self._directory = directory
        self._notes_file = notes_file
        self._real: IndexSearch | None = None

    def service(self) -> IndexSearch:
        """The real service (imported and built now, the first time)."""
        if self._real is None:
            from ..index.search_service import IndexSearch

            storage = self._storage
            if isinstance(storage, LazyStore):  # opened after the first paint: wait for it here
                storage = storage.loaded()
            self._real = IndexSearch(storage, self._directory, self._notes_file)
        return self._real

    @property
    def path(self) -> Path:
        return self.service().path

    @property
    def syntax(self) -> str:
        return self.service().syntax

    def check(self, text: str) -> None:
        self.service().check(text)

    async def steps(self) -> AsyncIterator[BuildProgress]:
        await resolve(self._storage)  # the first sync waits for the storage without blocking the loop
        if self._real is None:
            # The index and its price table (~100 ms) are imported on a thread, not on the loop.
            await asyncio.to_thread(_import_index)
        async for step in self.service().steps():
            yield step

    async def search(
        self, text: str, *, after: int | None = None, session: str | None = None, limit: int = 100
    ) -> HitPage:
        return await self.service().search(text, after=after, session=session, limit=limit)

    async def sessions_matching(self, text: str, session: str | None = None) -> SessionMatches:
        return await self.service().sessions_matching(text, session)

    async def sequences_in(self, text: str, session_id: str) -> list[int]:
        return await self.service().sequences_in(text, session_id)

    def hold_background(self, held: bool) -> None:
        if self._real is not None:  # nothing to hold before the service exists (no import for a key)
            self._real.hold_background(held)

    async def close(self) -> None:
        if self._real is not None:
            await self._real.close()


class LazyUsage:
    """An :class:`~.usage_service.IndexUsage` over the index of ``search``, built on first use
    (a :class:`UsageService`)."""

    def __init__(self, search: LazySearch) -> None:
        self._search = search
        self._real: IndexUsage | None = None

    def service(self) -> IndexUsage:
        """The real service (imported and built now, the first time)."""
        if self._real is None:
            from ..index.usage_service import IndexUsage

            self._real = IndexUsage(self._search.service().index)
        return self._real

    @property
    def prices_date(self) -> str:
        return self.service().prices_date

    async def usage(self, session_ids: Sequence[str]) -> dict[str, SessionUsage]:
        return await self.service().usage(session_ids)

    async def ordered_children(self, parent_id: str | None, order: TreeSort, offset: int, limit: int) -> list[str]:
        return await self.service().ordered_children(parent_id, order, offset, limit)

    async def ordered_orphans(self, order: TreeSort, offset: int, limit: int) -> list[str]:
        return await self.service().ordered_orphans(order, offset, limit)

    async def complete(self) -> bool:
        return await self.service().complete()


class LazyExporter:
    """The app's :class:`~.export.service.StoreExporter`, imported at the first export (an
    :class:`ExportService`)."""

    def __init__(self, storage: SQLSessionStorage | LazyStore, notes_file: Path | None = None) -> None:
        self._storage = storage
        self._notes_file = notes_file

    async def export(self, request: ExportRequest) -> str:
        from ..export.service import StoreExporter

        return await StoreExporter(self._storage, self._notes_file).export(request)


def lazy_notes(storage: SQLSessionStorage | LazyStore, path: Path) -> NotesService:
    """The app's notes service on the notes file at ``path``; the store's identity (the side
    index's, imported on a thread) is taken at its first call, once the storage is open."""
    from ..notes.service import NotesBook

    async def identity() -> Identity:
        real = await resolve(storage)
        module = await asyncio.to_thread(importlib.import_module, "zett_browser.notes.identity")
        found: Identity = module.of_storage(real)
        return found

    return NotesBook(path, identity)


class LazyJoinedExporter:
    """The export service over several stores opened together, imported at the first export
    (an :class:`ExportService`; see :class:`~zett_browser.export.service.JoinedExporter`)."""

    def __init__(
        self,
        joined: BrowsingStore,
        locate: Callable[[str], Awaitable[int | None]],
        storages: Sequence[SQLSessionStorage | LazyStore],
    ) -> None:
        self._joined = joined
        self._locate = locate
        self._storages = list(storages)

    async def export(self, request: ExportRequest) -> str:
        from ..export.service import JoinedExporter

        return await JoinedExporter(self._joined, self._locate, self._storages).export(request)


if TYPE_CHECKING:
    # mypy checks each stand-in against its protocol: a call added there fails here until written above.
    def _search(service: LazySearch) -> SearchService:
        return service

    def _usage(service: LazyUsage) -> UsageService:
        return service

    def _exporter(service: LazyExporter) -> ExportService:
        return service

    def _joined(service: LazyJoinedExporter) -> ExportService:
        return service
