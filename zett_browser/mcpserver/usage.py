"""Provides the MCP tool for token usage and cost: what ``zett-browser usage`` reports.

The figures come from the side index's usage totals (:mod:`zett_browser.index.usage`),
brought up to date first: by day, session, agent or model (a page of rows with the
total over all of them), or one session's own and subtree totals with its cost by model.
Cost is decimal text in US dollars, None where no step could be priced.
"""

from __future__ import annotations

import asyncio
from datetime import date, datetime
from typing import Any

from ..index.hit_labels import session_labels
from ..index.usage import ReportRow, index_prices_date, report, session_parents
from ..views.usage_json import row_json
from .bounds import cursor_int, line, make_cursor, page_size, read_cursor
from .sessions import usage_of
from .stores import Stores, ToolProblem

BY = ("day", "session", "agent", "model")


def since_day(text: str | None) -> str | None:
    """``since`` as a UTC day (``YYYY-MM-DD``; a time is cut to its day)."""
    if text is None or not text.strip():
        return None
    try:
        moment = datetime.fromisoformat(text).date() if "T" in text or " " in text else date.fromisoformat(text)
    except ValueError:
        raise ToolProblem(f"since wants a day like 2026-01-31, got {line(repr(text), 40)}") from None
    return moment.isoformat()


def _total(rows: list[ReportRow]) -> ReportRow:
    names = rows[0].values.keys() if rows else ()
    return ReportRow("total", "total", {name: sum(row.values[name] for row in rows) for name in names})


async def usage_report(
    stores: Stores,
    *,
    by: str = "day",
    since: str | None = None,
    session: str | None = None,
    store: int | None = None,
    cursor: str | None = None,
    limit: int | None = None,
) -> dict[str, Any]:
    """Usage and cost by day/session/agent/model, or of one session (own and subtree)."""
    if session is not None and session.strip():
        if since is not None and since.strip():
            raise ToolProblem("since does not apply to one session (its totals cover the whole session)")
        chosen, session_id = await stores.find_session(session, store)
        usage = await usage_of(chosen, session_id)
        if usage is None:
            raise ToolProblem(f"session {line(session_id, 80)} is not in the index yet; try again")
        return {"store": chosen.number, "session_usage": usage}
    if by not in BY:
        raise ToolProblem(f"by must be one of {', '.join(BY)}, got {line(repr(by), 40)}")
    day = since_day(since)
    chosen = stores.pick(store)
    path, complete = await chosen.synced_index()
    rows = await asyncio.to_thread(report, path, by, day)
    offset = 0
    if cursor:
        fields = read_cursor(cursor, "usage", ("offset", "by", "since"))
        if fields["by"] != by or fields["since"] != (day or ""):
            raise ToolProblem("this cursor continues another report: pass the same by and since")
        offset = cursor_int(fields, "offset")
    size = page_size(limit)
    page = rows[offset : offset + size]
    shown: list[dict[str, Any]] = []
    labels: dict[str, str] = {}
    parents: dict[str, str | None] = {}
    if by == "session" and page:
        keys = [row.key for row in page]
        try:
            labels = await session_labels(chosen.storage, keys)
        except Exception:  # noqa: BLE001 - a label is decoration: the id still shows
            labels = {}
        parents = await asyncio.to_thread(session_parents, path, keys)
    for row in page:
        item: dict[str, Any] = {"key": line(row.key), "label": line(labels.get(row.key) or row.label)}
        if by == "session":
            parent = parents.get(row.key)
            item["parent_session_id"] = None if parent is None else line(parent)
        item.update(row_json(row.values, row.tokens, row.cost))
        shown.append(item)
    total = _total(rows) if rows else None
    more = offset + size < len(rows)
    return {
        "store": chosen.number,
        "by": by,
        "since": day,
        "prices_date": await asyncio.to_thread(index_prices_date, path),
        "index_partial": not complete,
        "rows": shown,
        "row_count": len(rows),
        "total": row_json(total.values, total.tokens, total.cost) if total is not None else None,
        "next_cursor": make_cursor("usage", offset=offset + size, by=by, since=day or "") if more else None,
    }


__all__ = ["BY", "since_day", "usage_report"]
