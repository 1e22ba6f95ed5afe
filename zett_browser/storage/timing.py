"""Provides the timing view's reads: keyset pages of a Raw Log's timing columns, child spans.

A page reads the ``(session_id, sequence)`` index and nine narrow columns, never
``message_json``, so a page of 500 rows of a 100,000-message session costs what the
page holds. Unreadable values become None with a problem, never a failed page.

A tool result's outcome (issue 24) comes from the first :data:`HEAD` characters of its
``content`` column only: the runtime's fixed texts (``model.outcomes``) mark a result
skipped, cancelled, interrupted or aborted; anything else is left None (ok or failed: the
bar does not need to know which).
"""

from __future__ import annotations

from . import narrow  # noqa: F401 - before sqlalchemy.ext.asyncio: its engine without the ORM

# isort: split

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from sqlalchemy import func, select, type_coerce
from sqlalchemy.ext.asyncio import AsyncConnection

from ..model.outcomes import Outcome, tool_outcome
from ..model.timing import ChildSpan, TimingRow
from .columns import raw_t, read_column, sessions_t
from .keyset import bind
from .rawpages import raw_keyset, raw_position
from .reader import Reader
from .rows import StoredDateTime

_TIMING_COLUMNS = [
    read_column(raw_t.c[name])
    for name in (
        "id",
        "sequence",
        "role",
        "tool_name",
        "started_at",
        "completed_at",
        "duration_ns",
        "reasoning_duration_ns",
        "content_duration_ns",
    )
]
#: Characters of a tool result's content read to tell its outcome (the runtime's texts are shorter).
HEAD = 64
_TIMING_COLUMNS.append(func.substr(raw_t.c.content, 1, HEAD).label("content_head"))

#: Children read at most for one page's time window (the view says when there are more).
MAX_CHILDREN = 500


def _int(row: Mapping[str, Any], name: str, problems: list[str]) -> int | None:
    value = row[name]
    if value is None or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    problems.append(f"{name} is not an integer")
    return None


def _time(row: Mapping[str, Any], name: str, problems: list[str]) -> datetime | None:
    value = row[name]
    if value is None or isinstance(value, datetime):
        return value
    problems.append(f"{name} is not a timestamp")
    return None


def timing_from_row(row: Mapping[str, Any]) -> TimingRow:
    """A row's timing columns; a bad value is None and named in ``problems``."""
    problems: list[str] = []
    tool = row["tool_name"]
    return TimingRow(
        id=str(row["id"]),
        sequence=_int(row, "sequence", problems),
        kind=_int(row, "role", problems),
        tool_name=tool if isinstance(tool, str) else None,
        started_at=_time(row, "started_at", problems),
        completed_at=_time(row, "completed_at", problems),
        duration_ns=_int(row, "duration_ns", problems),
        reasoning_ns=_int(row, "reasoning_duration_ns", problems),
        content_ns=_int(row, "content_duration_ns", problems),
        problems=tuple(problems),
        outcome=_outcome(row),
    )


def _outcome(row: Mapping[str, Any]) -> str | None:
    """A tool result's outcome when its content is one of the runtime's own texts."""
    head = row.get("content_head")
    if row["role"] != 4 or not isinstance(head, str):
        return None
    outcome = tool_outcome(False, head)
    return None if outcome is Outcome.FAILED else outcome.value


async def timing_page(
    reader: Reader,
    session_id: str,
    *,
    after_id: str | None = None,
    before_id: str | None = None,
    from_end: bool = False,
    limit: int = 500,
) -> list[TimingRow]:
    """Up to ``limit`` rows' timing columns, ascending by (sequence, id).

    From the first row; after the row ``after_id``; before the row ``before_id``; or
    the last ``limit`` rows (``from_end``). Each is one keyset range on the index.
    """
    if limit < 1:
        raise ValueError("limit must be positive")
    descending = before_id is not None or from_end
    edge_id = before_id if before_id is not None else after_id

    async def work(connection: AsyncConnection) -> list[TimingRow]:
        edge = None
        if edge_id is not None:
            edge = await raw_position(connection, session_id, None, edge_id)
        rows = await raw_keyset(
            reader, connection, _TIMING_COLUMNS, session_id, edge, descending=descending, limit=limit
        )
        found = [timing_from_row(row) for row in rows]
        if descending:
            found.reverse()
        return found

    return await reader.run(work)


async def child_spans(
    reader: Reader, session_id: str, *, since: datetime | None = None, until: datetime | None = None
) -> list[ChildSpan]:
    """Delegated sessions of ``session_id`` created in a time window, oldest first."""
    created = type_coerce(sessions_t.c.created_at, StoredDateTime())
    statement = select(
        sessions_t.c.id,
        sessions_t.c.title,
        sessions_t.c.agent_name,
        created.label("created_at"),
        type_coerce(sessions_t.c.updated_at, StoredDateTime()).label("updated_at"),
    ).where(sessions_t.c.parent_session_id == bind(session_id))
    if since is not None:
        statement = statement.where(sessions_t.c.created_at >= since.replace(tzinfo=None))
    if until is not None:
        statement = statement.where(sessions_t.c.created_at <= until.replace(tzinfo=None))
    statement = statement.order_by(sessions_t.c.created_at, sessions_t.c.id).limit(MAX_CHILDREN)

    async def work(connection: AsyncConnection) -> list[ChildSpan]:
        spans = []
        for row in (await connection.execute(statement)).mappings():
            created, updated = (
                value if isinstance(value, datetime) else None for value in (row["created_at"], row["updated_at"])
            )
            title, agent = row["title"], row["agent_name"]
            spans.append(
                ChildSpan(
                    session_id=str(row["id"]),
                    title=title if isinstance(title, str) else None,
                    agent_name=agent if isinstance(agent, str) else None,
                    created_at=created,
                    updated_at=updated,
                )
            )
        return spans

    return await reader.run(work)


__all__ = ["MAX_CHILDREN", "child_spans", "timing_page", "timing_from_row"]
