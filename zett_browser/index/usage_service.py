"""Provides the app's usage service: totals and cost from the side index, behind a Protocol.

:class:`IndexUsage` implements :class:`zett_browser.model.usage.UsageService` over the
same :class:`~zett_browser.index.SideIndex` the search service keeps up to date: it only
reads the index file (in worker threads), it never starts a sync of its own. Totals grow
as the search service's sync indexes new rows; a session not indexed yet is left out.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

from ..model.usage import SessionUsage, TreeSort
from . import SideIndex
from .pricing import table_version
from .usage import complete, index_prices_date, ordered_children, ordered_orphans, read_usage


class IndexUsage:
    """Usage totals read from the side index of one store."""

    def __init__(self, index: SideIndex) -> None:
        self.index = index
        self._prices_date: str | None = None

    @property
    def path(self) -> Path:
        """The index file."""
        return self.index.path

    @property
    def prices_date(self) -> str:
        """The date of the price table the index's costs came from (read once it is built).

        Read from the index, not from genai-prices: importing its table costs ~0.2 s of CPU,
        which must not happen on the event loop.
        """
        if self._prices_date is None:
            self._prices_date = index_prices_date(self.index.path)
        return self._prices_date or f"genai-prices {table_version()}"

    async def usage(self, session_ids: Sequence[str]) -> dict[str, SessionUsage]:
        return await asyncio.to_thread(read_usage, self.index.path, list(session_ids))

    async def ordered_children(self, parent_id: str | None, order: TreeSort, offset: int, limit: int) -> list[str]:
        return await asyncio.to_thread(ordered_children, self.index.path, parent_id, order, offset, limit)

    async def ordered_orphans(self, order: TreeSort, offset: int, limit: int) -> list[str]:
        return await asyncio.to_thread(ordered_orphans, self.index.path, order, offset, limit)

    async def complete(self) -> bool:
        return await asyncio.to_thread(complete, self.index.path)
