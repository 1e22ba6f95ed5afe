"""Provides the ``compare_sessions`` tool: two sessions aligned step by step (``zett-browser
compare``), bounded for a client: the first divergence and why, the counts, both runs'
totals and the aligned rows from just before the first divergence.

The sessions may live in two of the served stores: the comparison then reads each from its
own (a :class:`~zett_browser.multi.store.MultiStore` over the two, never closed here: the
stores are the server's). Every text from the store is cleaned and cut (:func:`.bounds.line`).
"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Any

from ..model.store import BrowsingStore
from ..multi.store import MultiStore
from ..views.compare import Comparison
from ..views.compare_align import Row
from ..views.compare_json import row_json, totals_json
from ..views.labels import node_name
from .bounds import line, page_size
from .stores import Stores

#: Rows shown before the first divergence.
LEAD = 3
#: Characters of one text field of a row (a preview, arguments, a result).
FIELD_CHARS = 300


def _bounded(value: Any) -> Any:
    """``value`` with every string cleaned and cut (store text is data, and long)."""
    if isinstance(value, str):
        return line(value, FIELD_CHARS)
    if isinstance(value, dict):
        return {key: _bounded(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_bounded(item) for item in value]
    return value


async def compare_sessions(
    stores: Stores, *, a: str, b: str, store: int | None = None, limit: int | None = None
) -> dict[str, Any]:
    """Align sessions ``a`` and ``b`` (ids or unique prefixes); ``limit`` rows shown (≤ 200)."""
    left_store, left_id = await stores.find_session(a, store)
    right_store, right_id = await stores.find_session(b, store)
    reader: BrowsingStore = left_store.storage
    if right_store is not left_store:
        reader = MultiStore([left_store.storage, right_store.storage])
    size = page_size(limit)
    comparison = Comparison(reader, left_id, right_id)
    before: deque[Row] = deque(maxlen=LEAD)
    head: list[Row] = []
    shown: list[Row] = []
    diverged = False
    async for rows in comparison.pages():
        for row in rows:
            if len(head) < size:
                head.append(row)
            diverged = diverged or row.diverges
            if not diverged:
                before.append(row)
            elif len(shown) < size:
                shown.append(row)
    await asyncio.to_thread(comparison.price)  # the price table loads off the loop
    aligner = comparison.aligner
    chosen = [*before, *shown][:size] if aligner.first is not None else head
    labels = []
    for session_id, where in ((left_id, left_store), (right_id, right_store)):
        node = await where.storage.get_node(session_id)
        labels.append(
            {"session_id": line(session_id), "label": line(node_name(node)) if node else None, "store": where.number}
        )
    answer: dict[str, Any] = _bounded(
        {
            "a": labels[0],
            "b": labels[1],
            "first_divergence": row_json(aligner.first) if aligner.first is not None else None,
            "rows_total": aligner.rows,
            "counts": {status.value: count for status, count in aligner.counts.items()},
            "divergences": aligner.divergences,
            "totals": {"a": totals_json(comparison.left.totals), "b": totals_json(comparison.right.totals)},
            "rows": [row_json(row) for row in chosen],
            "rows_left_out": max(0, aligner.rows - len(chosen)),
        }
    )
    return answer
