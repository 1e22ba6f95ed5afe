"""Provides one keyset-paged list merged from the same list of several stores.

Each store pages its list in one order (roots newest activity first, children oldest
first); :func:`merged_page` takes a page from every store, merges them in that order and
returns the first ``limit`` nodes. What it read and did not return waits in the cursor
(:class:`MergeState`, carried opaque in :attr:`SessionCursor.key`), with each store's own
cursor, so the next page reads only from stores whose waiting nodes ran short: every node
is returned once, in order, however the stores interleave.
"""

from __future__ import annotations

import heapq
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

from ..model import Page, SessionCursor, SessionNode

#: Reads one page of one store's list: (member index, its cursor, limit).
Fetch = Callable[[int, SessionCursor | None, int], Awaitable[Page[SessionNode]]]
#: A node's place in the list (ascending).
Order = Callable[[SessionNode], tuple[float, str]]


def newest_activity_first(node: SessionNode) -> tuple[float, str]:
    """The roots' and orphans' order (the storage's: latest ``updated_at`` first)."""
    return (-node.updated_at.timestamp(), _descending(node.session_id))


def oldest_first(node: SessionNode) -> tuple[float, str]:
    """The children's order (the storage's: creation order)."""
    return (node.created_at.timestamp(), node.session_id)


def _descending(text: str) -> str:
    # Ties on time broken by id, the larger first (as ``ORDER BY … DESC, id DESC``).
    return "".join(chr(0x10FFFF - ord(character)) for character in text)


@dataclass(frozen=True, slots=True)
class MergeState:
    """What a merged page left: per store, its next cursor (None: read to the end) and the
    nodes read but not returned yet."""

    cursors: tuple[SessionCursor | None, ...]
    waiting: tuple[tuple[SessionNode, ...], ...]


async def merged_page(
    fetch: Fetch,
    members: int,
    order: Order,
    *,
    limit: int,
    cursor: SessionCursor | None,
    keep: Callable[[int, SessionNode], bool] | None = None,
) -> Page[SessionNode]:
    """The next ``limit`` nodes of the merged list after ``cursor`` (a cursor this returned).

    ``keep``: a node read from a store is left out of the merged list when this says no
    (a delegated session whose parent is in another open store is no orphan).
    """
    if limit < 1:
        raise ValueError("limit must be positive")
    state = cursor.key if cursor is not None and isinstance(cursor.key, MergeState) else None
    if state is None:
        started: list[SessionCursor | None] = [None] * members
        waiting: list[list[SessionNode]] = [[] for _ in range(members)]
        fresh = [True] * members
    else:
        started = list(state.cursors)
        waiting = [list(nodes) for nodes in state.waiting]
        fresh = [False] * members
    for member in range(members):
        # Read from every store that is not at its end and has fewer than a page waiting.
        while (fresh[member] or started[member] is not None) and len(waiting[member]) < limit:
            page = await fetch(member, started[member], limit)
            fresh[member] = False
            started[member] = page.next_cursor
            waiting[member].extend(node for node in page.items if keep is None or keep(member, node))
    return _take(waiting, started, order, limit)


def first_pages(pages: Sequence[Page[SessionNode]], order: Order, limit: int) -> Page[SessionNode]:
    """The first merged page from each store's first page (its cursor continues the merge)."""
    return _take([list(page.items) for page in pages], [page.next_cursor for page in pages], order, limit)


def _take(
    waiting: Sequence[list[SessionNode]], cursors: Sequence[SessionCursor | None], order: Order, limit: int
) -> Page[SessionNode]:
    """The first ``limit`` of the waiting nodes in order, and a cursor keeping the rest."""
    tagged = [
        [(order(node), member, place, node) for place, node in enumerate(nodes)] for member, nodes in enumerate(waiting)
    ]
    taken = [0] * len(waiting)
    items: list[SessionNode] = []
    for _key, member, _place, node in heapq.merge(*tagged):
        if len(items) == limit:
            break
        items.append(node)
        taken[member] += 1
    left = tuple(tuple(nodes[taken[member] :]) for member, nodes in enumerate(waiting))
    if not items or (not any(left) and all(next_cursor is None for next_cursor in cursors)):
        return Page(items=items, next_cursor=None)
    last = items[-1]
    key = MergeState(cursors=tuple(cursors), waiting=left)
    return Page(items=items, next_cursor=SessionCursor(at=last.updated_at, session_id=last.session_id, key=key))
