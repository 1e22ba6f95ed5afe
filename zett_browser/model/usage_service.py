"""Provides the usage interface the UI uses (issue 12): what the screens ask of the usage data.

Apart from the records (:mod:`.usage`), which ``zett-browser usage`` builds without the
typing module these protocols need.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from .usage import SessionUsage, TreeSort


class UsageService(Protocol):
    """What the UI asks of the usage data (the side index)."""

    @property
    def prices_date(self) -> str:
        """The date of the bundled price data, shown next to every cost."""
        ...

    async def usage(self, session_ids: Sequence[str]) -> dict[str, SessionUsage]:
        """Own and subtree usage of these sessions (missing ids are left out)."""
        ...

    async def ordered_children(self, parent_id: str | None, order: TreeSort, offset: int, limit: int) -> list[str]:
        """Ids of one tree level (roots when ``parent_id`` is None), largest first."""
        ...

    async def complete(self) -> bool:
        """Whether the totals cover the whole store (False while the first build runs)."""
        ...

    async def ordered_orphans(self, order: TreeSort, offset: int, limit: int) -> list[str]:
        """Ids of the orphans (parent missing from the store, or itself), largest first."""
        ...


@runtime_checkable
class GroupedUsage(Protocol):
    """Usage over several joined stores: one member's roots in a usage order."""

    async def ordered_roots_in(self, index: int, order: TreeSort, offset: int, limit: int) -> list[str]:
        """Ids of one member's roots, largest first."""
        ...
