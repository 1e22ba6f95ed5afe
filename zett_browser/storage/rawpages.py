"""Provides the one Raw Log keyset page every reader of a session's rows uses.

The Raw Log view (:mod:`.rawlog`), the time-travel context (:mod:`.context`), the timing
view (:mod:`.timing`) and the exports (:mod:`.export_rows`) page a session's rows the
same way: a keyset on the stored ``sequence`` (read raw) with the row id as tie-break, on
the ``(session_id, sequence)`` index (:mod:`.keyset`). Only the columns read differ.
"""

from __future__ import annotations

from . import narrow  # noqa: F401 - before sqlalchemy.ext.asyncio: its engine without the ORM

# isort: split

from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import Select, select, type_coerce
from sqlalchemy.ext.asyncio import AsyncConnection
from sqlalchemy.sql.elements import ColumnElement

from .columns import raw_t
from .keyset import Position, bind, keyset_rows, value_band_statement
from .reader import Reader
from .rows import RawValue


async def raw_position(
    connection: AsyncConnection, session_id: str, sequence: int | None, row_id: str | None
) -> Position | None:
    """The keyset position of a page edge: the stored sequence of ``row_id`` when it exists.

    A row id that is not found keeps ``sequence`` (None: the NULL band) as its key.
    """
    if row_id is not None:
        statement = select(type_coerce(raw_t.c.sequence, RawValue())).where(
            raw_t.c.id == bind(row_id), raw_t.c.session_id == bind(session_id)
        )
        found = (await connection.execute(statement)).first()
        if found is not None:
            return Position(key=found[0], null_key=found[0] is None, id=row_id)
        return Position(key=sequence, null_key=sequence is None, id=row_id)
    if sequence is None:
        return None
    return Position(key=sequence, null_key=False)


async def raw_keyset(
    reader: Reader,
    connection: AsyncConnection,
    columns: Sequence[ColumnElement[Any]],
    session_id: str,
    edge: Position | None,
    *,
    descending: bool,
    limit: int,
) -> Sequence[Mapping[Any, Any]]:
    """Up to ``limit`` of a session's Raw Log rows (``columns``) beyond ``edge``, in (sequence, id) order
    (descending: backwards from ``edge``)."""
    base = select(*columns).where(raw_t.c.session_id == bind(session_id))
    return await keyset_rows(
        connection,
        base,
        key=type_coerce(raw_t.c.sequence, RawValue()),
        row_id=raw_t.c.id,
        after=edge,
        descending=descending,
        nulls_low=reader.nulls_low,
        limit=limit,
        nullable=reader.may_be_null("raw_messages", "sequence"),
    )


def raw_band_statement(
    columns: Sequence[ColumnElement[Any]], session_id: str, edge: Position | None, *, descending: bool, limit: int
) -> Select[Any]:
    """The statement :func:`raw_keyset` runs when the store's ``sequence`` cannot be NULL."""
    return value_band_statement(
        select(*columns).where(raw_t.c.session_id == bind(session_id)),
        key=type_coerce(raw_t.c.sequence, RawValue()),
        row_id=raw_t.c.id,
        after=edge,
        descending=descending,
        limit=limit,
    )


__all__ = ["raw_band_statement", "raw_keyset", "raw_position"]
