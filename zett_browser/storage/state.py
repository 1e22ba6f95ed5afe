"""Provides the last rows of sessions, for how their last request ended (:mod:`..model.session_state`).

Two statements for a whole page of sessions, never one per session and never a whole
session: the first reads, for each session, the small columns of its last
:data:`WINDOW` rows (one ``ORDER BY sequence DESC LIMIT`` part per session, joined with
``UNION ALL``, each served by the ``(session_id, sequence)`` index); the second decodes
only the rows that tell: the last non-system row and, when it is a tool result, the
results before it back to the assistant message that called them.
"""

from __future__ import annotations

from . import narrow  # noqa: F401 - before sqlalchemy.ext.asyncio: its engine without the ORM

# isort: split

from collections.abc import Sequence
from typing import Any

from sqlalchemy import func, select, union_all
from sqlalchemy.ext.asyncio import AsyncConnection

from ..model.records import RawMessageRecord
from .columns import RAW_COLUMNS, raw_t
from .reader import Reader
from .rows import record_from_row

#: Rows read back from a session's end (system rows included: each request appends two or more).
WINDOW = 48
#: Sessions per statement (SQLite allows 500 parts in a compound SELECT).
CHUNK = 128  # a power of two: full chunks need no padding (see _tails)
#: A row larger than this is not decoded: the session's state stays unknown.
MAX_JSON_CHARS = 4_000_000
_SYSTEM, _ASSISTANT, _TOOL = 1, 3, 4


async def last_rows(reader: Reader, session_ids: Sequence[str]) -> dict[str, list[RawMessageRecord]]:
    """The rows that tell how each session's last request ended, oldest first.

    A session is left out when its rows do not tell within the window (only system rows
    in a full window, a tool batch longer than the window, a row too large to decode) or
    when it has no rows at all and does not exist; a session with only system rows (or
    none) maps to an empty list.
    """
    wanted = list(dict.fromkeys(session_ids))
    if not wanted:
        return {}

    async def work(connection: AsyncConnection) -> dict[str, list[RawMessageRecord]]:
        picked: dict[str, list[str]] = {}
        for start in range(0, len(wanted), CHUNK):
            tails = await _tails(connection, wanted[start : start + CHUNK])
            for session_id in wanted[start : start + CHUNK]:
                ids = _telling(tails.get(session_id, []))
                if ids is not None:
                    picked[session_id] = ids
        ids = [row_id for chosen in picked.values() for row_id in chosen]
        records: dict[str, RawMessageRecord] = {}
        for start in range(0, len(ids), 500):
            statement = select(*RAW_COLUMNS).where(
                raw_t.c.id.in_(ids[start : start + 500]), func.length(raw_t.c.message_json) <= MAX_JSON_CHARS
            )
            for row in (await connection.execute(statement)).mappings():
                record = record_from_row(row)
                records[record.id] = record
        found: dict[str, list[RawMessageRecord]] = {}
        for session_id, chosen in picked.items():
            if all(row_id in records for row_id in chosen):
                found[session_id] = sorted((records[i] for i in chosen), key=lambda r: (r.sequence, r.id))
        return found

    return await reader.run(work)


async def _tails(connection: AsyncConnection, session_ids: list[str]) -> dict[str, list[tuple[Any, str, Any]]]:
    """(sequence, id, role) of each session's last rows, newest first.

    One ``UNION ALL`` of a keyset read per session. SQLAlchemy compiles it on the event loop
    and caches it by shape, so the list is padded (the last id repeated) to a power of two:
    a followed store asks for ever other counts of sessions, and each new count compiled
    afresh (100 sessions: ~25 ms on the loop, the longest UI stall of the busy follow run).
    """
    padded = [*session_ids, *[session_ids[-1]] * (_bucket(len(session_ids)) - len(session_ids))]
    parts = [
        select(raw_t.c.session_id, raw_t.c.sequence, raw_t.c.id, raw_t.c.role)
        .where(raw_t.c.session_id == session_id)
        .order_by(raw_t.c.sequence.desc(), raw_t.c.id.desc())
        .limit(WINDOW)
        .subquery()
        for session_id in padded
    ]
    selects = [select(*part.c) for part in parts]
    statement = selects[0] if len(selects) == 1 else union_all(*selects)
    tails: dict[str, list[tuple[Any, str, Any]]] = {}
    seen: set[tuple[str, str]] = set()
    for session_id, sequence, row_id, role in (await connection.execute(statement)).all():
        if (session_id, row_id) not in seen:  # a padded repeat reads the same rows again
            seen.add((session_id, row_id))
            tails.setdefault(session_id, []).append((sequence, row_id, role))
    for rows in tails.values():
        rows.sort(key=lambda row: (_order(row[0]), row[1]), reverse=True)
    return tails


def _bucket(count: int) -> int:
    """The power of two at or above ``count`` (at least 1)."""
    return 1 << max(0, count - 1).bit_length()


def _order(sequence: Any) -> float:
    return float(sequence) if isinstance(sequence, int) else float("-inf")


def _telling(tail: list[tuple[Any, str, Any]]) -> list[str] | None:
    """Ids of the rows that tell, from a session's last rows (newest first); None: they do not."""
    dialogue = [(row_id, role) for _sequence, row_id, role in tail if role != _SYSTEM]
    if not dialogue:
        return None if len(tail) >= WINDOW else []
    chosen = [dialogue[0][0]]
    if dialogue[0][1] != _TOOL:
        return chosen
    for row_id, role in dialogue[1:]:
        chosen.append(row_id)
        if role != _TOOL:
            return chosen
    return None  # the calling message is beyond the window


__all__ = ["CHUNK", "MAX_JSON_CHARS", "WINDOW", "last_rows"]
