"""Provides the one read of a Raw Log window the screens make, from a :class:`PageRequest`.

A page continues after (or before) an exact row (``after_id`` / ``before_id``), and the
first page starts at the very first row (``after_sequence=None``), so paging is total over
damaged sequences (duplicates, NULL, <= 0).
"""

from __future__ import annotations

from ..model import RawMessageRecord
from ..model.store import BrowsingStore
from ..paging import PageRequest


async def read_window(store: BrowsingStore, session_id: str, request: PageRequest, size: int) -> list[RawMessageRecord]:
    """The records ``request`` names, ascending, at most ``size`` of them."""
    if request.start:
        return await store.raw_page(session_id, after_sequence=None, limit=size)
    if request.after is not None:
        return await store.raw_page(session_id, after_sequence=request.after, after_id=request.after_id, limit=size)
    return await store.raw_page_before(
        session_id, before_sequence=request.before, before_id=request.before_id, limit=size
    )
