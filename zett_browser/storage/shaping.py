"""Provides what the storage does with a read's rows after the SQL: pages, chains, bounds.

Shared by the storage's queries and the start-up reader (:mod:`.quickstart`), which runs
the same statements through the stdlib driver and must build equal results: the next
cursor of a node page, the walk up a session's parents (one statement per parent, so it
is a generator the caller feeds with rows, from async or sync code alike), the Raw Log
bounds and the snapshot metadata. No SQLAlchemy, no pydantic.
"""

from __future__ import annotations

import math
from collections.abc import Generator, Mapping, Sequence
from decimal import Decimal
from typing import Any

from ..model.compaction import SnapshotMeta
from ..model.frozen import replace
from ..model.records import RawLogBounds, SessionCursor, SessionNode
from .convert import int_field, node_from_row, text_problems, time_field

#: Deepest ancestor chain followed (a breadcrumb, a cycle check).
MAX_DEPTH = 256
#: The problem a session in a parent cycle carries.
CYCLE_PROBLEM = "parent cycle: its ancestors lead back to it"


def with_problem(node: SessionNode, problem: str) -> SessionNode:
    """``node`` with ``problem`` added (once)."""
    if problem in node.problems:
        return node
    return replace(node, problems=(*node.problems, problem))


def node_page(
    rows: Sequence[Mapping[Any, Any]], limit: int, key: str
) -> tuple[list[SessionNode], SessionCursor | None]:
    """The nodes of a keyset page read with ``limit + 1`` rows, and the cursor after them."""
    nodes = [node_from_row(row) for row in rows[:limit]]
    next_cursor = None
    if len(rows) > limit and nodes:
        last, node = rows[limit - 1], nodes[-1]
        next_cursor = SessionCursor(
            at=node.updated_at if key == "updated_at" else node.created_at,
            session_id=last["id"],
            key=last["sort_key"],
            null_key=last["sort_key"] is None,
        )
    return nodes, next_cursor


#: Yields the id of the next parent to read; is sent its node row (None: no such row).
AncestorWalk = Generator[Any, "Mapping[Any, Any] | None", list[SessionNode]]


def walk_ancestors(session_id: str, parent: Any) -> AncestorWalk:
    """The chain of parents of ``session_id``, root first, given its parent id.

    Stops after :data:`MAX_DEPTH` parents, at a missing row, or when the chain comes back
    to a session already in it; the topmost node then carries :data:`CYCLE_PROBLEM`.
    """
    chain: list[SessionNode] = []
    seen = {session_id}
    while parent is not None and parent not in seen and len(chain) < MAX_DEPTH:
        seen.add(parent)
        row = yield parent
        if row is None:
            break
        node = node_from_row(row)
        chain.append(node)
        parent = node.parent_session_id
    if chain and parent is not None and parent in seen:
        chain[-1] = with_problem(chain[-1], CYCLE_PROBLEM)
    chain.reverse()
    return chain


def as_int(value: Any) -> int | None:
    """A stored number (MySQL sums are Decimal) as int; anything else (text, a blob, NaN) as None."""
    if isinstance(value, (int, float, Decimal)) and not isinstance(value, bool) and math.isfinite(value):
        return int(value)
    return None


def bounds_from_row(row: Sequence[Any]) -> RawLogBounds:
    """Raw Log bounds from (min sequence, max sequence, row count)."""
    first, last, count = row
    return RawLogBounds(first_sequence=as_int(first), last_sequence=as_int(last), count=int(count or 0))


def meta_from_row(row: Mapping[Any, Any]) -> SnapshotMeta:
    """A snapshot version's metadata (its summary left undecoded)."""
    problems = text_problems(row, ("id", "session_id"))
    return SnapshotMeta(
        id=str(row["id"]),
        session_id=str(row["session_id"]),
        version=int_field(row, "version", problems) or 0,
        compacted_through_sequence=int_field(row, "compacted_through_sequence", problems) or 0,
        created_at=time_field(row, "created_at", problems, optional=True),
        stored_chars=int(row["stored_chars"] or 0),
        problems=tuple(problems),
    )
