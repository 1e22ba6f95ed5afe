"""Provides the search service that imports the side index when it is first used.

The side index (``zett_browser.index``, ``searching``) costs ~50–90 ms to import, and its
first sync starts only after the first page is painted: :func:`make_app` hands the
screen a :class:`LazySearch`, which builds the real :class:`~.searching.IndexSearch` at
its first call. Every call is passed on unchanged.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .searching import IndexSearch
    from .storage import SQLSessionStorage


class LazySearch:
    """An :class:`~.searching.IndexSearch` built on first use."""

    def __init__(self, storage: SQLSessionStorage, directory: Path | None = None) -> None:
        self._storage = storage
        self._directory = directory
        self._real: IndexSearch | None = None

    def service(self) -> IndexSearch:
        """The real service (imported and built now, the first time)."""
        if self._real is None:
            from .searching import IndexSearch

            self._real = IndexSearch(self._storage, self._directory)
        return self._real

    @property
    def path(self) -> Path:
        return self.service().path

    @property
    def syntax(self) -> str:
        return self.service().syntax

    def check(self, text: str) -> None:
        self.service().check(text)

    def steps(self) -> AsyncIterator[Any]:
        return self.service().steps()

    async def search(self, text: str, *, after: int | None = None, session: str | None = None, limit: int = 100) -> Any:
        return await self.service().search(text, after=after, session=session, limit=limit)

    async def sessions_matching(self, text: str, session: str | None = None) -> Any:
        return await self.service().sessions_matching(text, session)

    async def sequences_in(self, text: str, session_id: str) -> list[int]:
        return await self.service().sequences_in(text, session_id)

    async def close(self) -> None:
        if self._real is not None:
            await self._real.close()
