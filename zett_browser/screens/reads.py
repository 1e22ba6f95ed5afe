"""Provides the one read of a Raw Log window the screens make, from a :class:`PageRequest`.

Stores that can continue a page after an exact row (``after_id`` / ``before_id``, and
``after_sequence=None`` for the very first row) page totally over damaged sequences
(duplicates, NULL, <= 0). An older storage without those parameters is read by sequence
alone, which is the same on a healthy log.
"""

from __future__ import annotations

import inspect
from typing import Any

from ..model import RawMessageRecord
from ..model.store import BrowsingStore
from ..paging import PageRequest


def _keyed(method: Any, name: str) -> bool:
    try:
        return name in inspect.signature(method).parameters
    except (TypeError, ValueError):
        return False


async def read_window(store: BrowsingStore, session_id: str, request: PageRequest, size: int) -> list[RawMessageRecord]:
    """The records ``request`` names, ascending, at most ``size`` of them."""
    if request.start or request.after is not None:
        keyed = _keyed(store.raw_page, "after_id")
        kwargs: dict[str, Any] = {"after_sequence": request.after if request.after is not None else 0}
        if keyed and request.start:
            kwargs["after_sequence"] = None
        if keyed and request.after_id is not None:
            kwargs["after_id"] = request.after_id
        return await store.raw_page(session_id, limit=size, **kwargs)
    kwargs = {"before_sequence": request.before}
    if request.before_id is not None and _keyed(store.raw_page_before, "before_id"):
        kwargs["before_id"] = request.before_id
    return await store.raw_page_before(session_id, limit=size, **kwargs)
