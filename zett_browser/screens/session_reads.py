"""Provides what :class:`~.session.SessionPane` reads to open a session, as plain functions.

One gather of the session's node, bounds, snapshot versions, latest summary and ancestors
(labelled from their parents' ``task`` calls when untitled), and the count of messages the
model gets after the latest boundary.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from ..model import SessionNode
from ..model.frozen import replace
from ..model.store import BrowsingStore

#: The inspector's "summary + K tail messages" counts the rows the model gets by reading
#: the tail when it is at most this long (decoded like one page); longer tails are named
#: by their boundary instead.
MODEL_TAIL_COUNTED = 200

#: Labels of untitled children by id (``SessionPane.child_labels``).
ChildLabels = Callable[[str | None, Sequence[SessionNode]], Awaitable[dict[str, str]]]


async def read_session(store: BrowsingStore, session_id: str, child_labels: ChildLabels) -> tuple[Any, ...]:
    """The session's node, bounds, snapshot versions, ancestors and latest summary."""
    # Independent reads, on the pool's connections at once.
    # Versions as metadata, only the latest summary decoded (2,500 versions: issue 13).
    node, bounds, snapshots, latest, ancestors = await asyncio.gather(
        store.get_node(session_id),
        store.raw_bounds(session_id),
        store.all_snapshot_versions(session_id),
        store.snapshot_version(session_id),
        store.ancestors(session_id),
    )
    if node is not None:
        node, *ancestors = await _labelled([node, *ancestors], child_labels)
    return node, bounds, snapshots, ancestors, latest


async def _labelled(nodes: list[SessionNode], child_labels: ChildLabels) -> list[SessionNode]:
    """``nodes`` with the label their parent's ``task`` call gives the untitled ones."""
    labelled = []
    for node in nodes:
        if not node.title and node.parent_session_id and node.label_hint is None:
            hints = await child_labels(node.parent_session_id, [node])
            if node.session_id in hints:
                node = replace(node, label_hint=hints[node.session_id])
        labelled.append(node)
    return labelled


async def count_model_tail(store: BrowsingStore, session_id: str, boundary: int, last: int) -> int | None:
    """Messages after the boundary that the model gets (as the model view shows them),
    when the tail is short enough to count by reading it; else None."""
    if not boundary or last - boundary > MODEL_TAIL_COUNTED:
        return None
    tail = await store.raw_page(session_id, after_sequence=boundary, limit=MODEL_TAIL_COUNTED)
    return sum(1 for record in tail if record.message.include_in_messages)
