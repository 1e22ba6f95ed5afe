"""Provides the MCP tools that read a session: its messages by page, the context at message N.

``read_messages`` pages a Raw Log with the storage's keyset (``raw_page`` after a
``(sequence, id)`` row, so duplicate sequences at a page edge are neither skipped nor
repeated), from the first row, from message N or the last page. ``context_at`` is what
``zett-browser context`` computes (:mod:`zett_browser.views.time_travel`): where the
context is taken, the snapshot in force, its size per category and the measured input,
then the rows ``load()`` keeps, a page at a time.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from contextlib import aclosing
from typing import Any, cast

from ..model.context import ContextRow
from ..views import time_travel as context
from ..views import time_travel_text as context_text
from . import shapes
from .bounds import char_budget, cursor_int, cursor_text, line, make_cursor, page_size, read_cursor
from .stores import Stores, ToolProblem

#: Largest ``start`` passed on (a bigger one reads what it would: nothing).
SEQUENCE_LIMIT = 2**62


async def read_messages(
    stores: Stores,
    *,
    session: str,
    store: int | None = None,
    start: int | None = None,
    last_page: bool = False,
    cursor: str | None = None,
    limit: int | None = None,
    max_chars: int | None = None,
) -> dict[str, Any]:
    """A page of a session's Raw Log, ascending: from the start, from message ``start``, or the last."""
    chosen, session_id = await stores.find_session(session, store)
    size = page_size(limit)
    budget = char_budget(max_chars)
    storage = chosen.storage
    if cursor:
        fields = read_cursor(cursor, "messages", ("session", "sequence", "id"))
        if cursor_text(fields, "session") != session_id:
            raise ToolProblem("this cursor continues another session's messages")
        sequence = fields["sequence"]
        if not isinstance(sequence, int) or isinstance(sequence, bool):
            raise ToolProblem("not a cursor of this server")
        rows = await storage.raw_page(
            session_id, after_sequence=sequence, after_id=cursor_text(fields, "id"), limit=size + 1
        )
    elif last_page:
        rows = await storage.raw_page_before(session_id, limit=size)
    elif start is not None:
        after = max(min(start, SEQUENCE_LIMIT), -SEQUENCE_LIMIT) - 1  # within SQL's integers
        rows = await storage.raw_page(session_id, after_sequence=after, limit=size + 1)
    else:
        rows = await storage.raw_page(session_id, after_sequence=None, limit=size + 1)
    more = len(rows) > size
    rows = rows[:size]
    tail = rows[-1] if rows else None
    return {
        "store": chosen.number,
        "session_id": line(session_id),
        "messages": [shapes.message(row, budget) for row in rows],
        "next_cursor": make_cursor("messages", session=session_id, sequence=tail.sequence, id=tail.id)
        if more and tail is not None
        else None,
    }


def _estimate_json(estimate: context.Estimate) -> dict[str, Any]:
    return {
        "categories": {
            category: {
                "messages": estimate.messages[category],
                "chars": estimate.chars[category],
                "estimated_tokens": estimate.tokens(category),
            }
            for category in context.CATEGORIES
        },
        "estimated_tokens": estimate.total_tokens,
        "messages": estimate.rows,
        "rows_not_sent": estimate.skipped,
        "unreadable_rows": estimate.unreadable,
    }


async def context_at(
    stores: Stores,
    *,
    session: str,
    at: int | None = None,
    store: int | None = None,
    cursor: str | None = None,
    limit: int | None = None,
    max_chars: int | None = None,
) -> dict[str, Any]:
    """The model's context when it produced message ``at`` (default: what the next step gets).

    The first page carries the report (snapshot in force, size per category, measured
    input) and the summary; every page carries up to ``limit`` of the rows ``load()`` kept.
    """
    chosen, session_id = await stores.find_session(session, store)
    storage = chosen.storage
    size = page_size(limit)
    budget = char_budget(max_chars)
    start_after = start_after_id = None
    if cursor:
        fields = read_cursor(cursor, "context", ("session", "at", "sequence", "id"))
        if cursor_text(fields, "session") != session_id:
            raise ToolProblem("this cursor continues another session's context")
        at = cursor_int(fields, "at", low=1)
        start_after = fields["sequence"]
        if not isinstance(start_after, int) or isinstance(start_after, bool):
            raise ToolProblem("not a cursor of this server")
        start_after_id = cursor_text(fields, "id")
    try:
        point = await context.locate(storage, session_id, at)
    except context.ContextError as error:
        raise ToolProblem(line(str(error).replace("--at", "at"))) from None
    answer: dict[str, Any] = {"store": chosen.number, "session_id": line(session_id), "at": point.at}
    if cursor is None:
        estimate = await context.estimate(storage, point)
        answer["report"] = [line(text, 1000) for text in context_text.report(point, estimate)]
        answer["estimate"] = _estimate_json(estimate)
        answer["input_tokens_measured"] = point.input_tokens
        answer["snapshot"] = shapes.snapshot(point.snapshot, budget) if point.snapshot is not None else None
    rows = []
    pages = cast(
        AsyncGenerator[list[ContextRow], None],
        context.context_pages(storage, point, page=size + 1, start_after=start_after, start_after_id=start_after_id),
    )
    async with aclosing(pages):
        async for page in pages:
            rows.extend(page)
            if len(rows) > size:
                break
    more = len(rows) > size
    rows = rows[:size]
    answer["messages"] = [shapes.message(row.record, budget) for row in rows]
    tail = rows[-1].record if rows else None
    answer["next_cursor"] = (
        make_cursor("context", session=session_id, at=point.at, sequence=tail.sequence, id=tail.id)
        if more and tail is not None
        else None
    )
    return answer


__all__ = ["context_at", "read_messages"]
