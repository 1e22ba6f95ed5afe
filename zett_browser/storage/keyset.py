"""Provides total keyset paging: every row is reached exactly once, whatever its sort key.

A page is cut after the last row's ``(key, id)``, compared on the value *as stored*: a
key that is no timestamp (garbage text, a number, year 0001) or not an integer (a text
``sequence``) still has one place in the database's own ordering, so paging on it
neither skips the rows after it nor repeats a page forever. NULL keys form a band of
their own, below every value on SQLite and MySQL and above on PostgreSQL (as each
orders them), walked by id; each band is fetched with an index-friendly range
(``key <= k`` / ``key IS NULL``), so a page costs O(page) in a healthy store and at most
one extra index probe for the empty NULL band on the last page.
"""

from __future__ import annotations

from . import narrow  # noqa: F401 - before sqlalchemy.ext.asyncio: its engine without the ORM

# isort: split

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Integer, LargeBinary, Text, and_, bindparam, cast, literal, or_
from sqlalchemy.ext.asyncio import AsyncConnection
from sqlalchemy.sql import ColumnElement, Select

from .convert import BadText


@dataclass(frozen=True, slots=True)
class Position:
    """Where a page ends: the last row's stored key and id.

    ``id`` None means "every row whose key is beyond ``key``" (a bare sequence bound);
    ``key`` may be a ready SQL expression (an old-style cursor's timestamp).
    """

    key: Any
    null_key: bool
    id: Any = None


def bind(value: Any) -> ColumnElement[Any]:
    """A stored value as a bound parameter that compares equal to what is stored.

    Text that was not UTF-8 is bound from its original bytes (``CAST(? AS TEXT)``), so
    a row whose key or id holds such bytes is found again.
    """
    if isinstance(value, ColumnElement):
        return value
    if isinstance(value, BadText):
        return cast(literal(value.raw, LargeBinary()), Text())
    # Typed by the Python value (an int stays an integer parameter: PostgreSQL refuses
    # to compare an integer column with a text one).
    return literal(value)


Ordering = tuple[ColumnElement[Any], ...]
#: Turns one band's limited, ordered query into the statement run (e.g. joins the page's
#: ids to the columns that are costly to compute for every candidate row).
Wrap = Callable[[Select[Any], Ordering], Select[Any]]


def _value_band(
    query: Select[Any], key: ColumnElement[Any], row_id: ColumnElement[Any], after: Position | None, descending: bool
) -> tuple[Select[Any], Ordering]:
    query = query.where(key.is_not(None))
    if after is not None and not after.null_key:
        bound = bind(after.key)
        if descending:
            query = query.where(key <= bound)
            beyond = key < bound
        else:
            query = query.where(key >= bound)
            beyond = key > bound
        if after.id is None:
            query = query.where(beyond)
        else:
            tie = row_id < bind(after.id) if descending else row_id > bind(after.id)
            query = query.where(or_(beyond, and_(key == bound, tie)))
    if descending:
        return query, (key.desc(), row_id.desc())
    return query, (key.asc(), row_id.asc())


def _null_band(
    query: Select[Any], key: ColumnElement[Any], row_id: ColumnElement[Any], after: Position | None, descending: bool
) -> tuple[Select[Any], Ordering]:
    query = query.where(key.is_(None))
    if after is not None and after.null_key and after.id is not None:
        query = query.where(row_id < bind(after.id) if descending else row_id > bind(after.id))
    return query, (row_id.desc() if descending else row_id.asc(),)


async def keyset_rows(
    connection: AsyncConnection,
    base: Select[Any],
    *,
    key: ColumnElement[Any],
    row_id: ColumnElement[Any],
    after: Position | None,
    descending: bool,
    nulls_low: bool,
    limit: int,
    nullable: bool = True,
    wrap: Wrap | None = None,
) -> Sequence[Mapping[Any, Any]]:
    """Up to ``limit`` rows of ``base`` after ``after`` in (key, id) order, NULL keys as a band.

    ``key`` must be read raw (typed :class:`~.rows.RawValue`): the caller labels it in
    ``base`` to build the next position from the last row. ``nullable=False`` (the
    schema forbids NULL keys) skips the NULL band.
    """
    rows: list[Mapping[Any, Any]] = []
    for band in _bands(after, descending=descending, nulls_low=nulls_low, nullable=nullable):
        cut = after if after is not None and (band == "null") == after.null_key else None
        statement = _band_statement(band, base, key, row_id, cut, descending, limit - len(rows), wrap)
        rows.extend((await connection.execute(statement)).mappings().all())
        if len(rows) >= limit:
            break
    return rows


def _bands(after: Position | None, *, descending: bool, nulls_low: bool, nullable: bool) -> tuple[str, ...]:
    """The bands a page after ``after`` reads, in order: "null" (NULL keys) and "value"."""
    null_first = nulls_low != descending
    bands: tuple[str, ...] = ("null", "value") if null_first else ("value", "null")
    if after is not None:
        bands = bands[bands.index("null" if after.null_key else "value") :]
    if not nullable and not (after is not None and after.null_key):
        bands = tuple(band for band in bands if band == "value")
    return bands


def _band_statement(
    band: str,
    base: Select[Any],
    key: ColumnElement[Any],
    row_id: ColumnElement[Any],
    cut: Position | None,
    descending: bool,
    limit: int | ColumnElement[Any],
    wrap: Wrap | None,
) -> Select[Any]:
    make = _value_band if band == "value" else _null_band
    query, ordering = make(base, key, row_id, cut, descending)
    statement = query.order_by(*ordering).limit(limit)
    return wrap(statement, ordering) if wrap is not None else statement


def value_band_statement(
    base: Select[Any],
    *,
    key: ColumnElement[Any],
    row_id: ColumnElement[Any],
    after: Position | None,
    descending: bool,
    limit: int,
) -> Select[Any]:
    """The one statement :func:`keyset_rows` runs when the key cannot be NULL (``nullable``
    False) and ``after`` is not in the NULL band: to be run inside a larger statement."""
    if after is not None and after.null_key:
        raise ValueError("a position in the NULL band is read by keyset_rows")
    return _band_statement("value", base, key, row_id, after, descending, limit, None)


#: The bound parameter of a :func:`first_page_statements` statement's row limit.
LIMIT_PARAMETER = "zett_limit"


def first_page_statements(
    base: Select[Any],
    *,
    key: ColumnElement[Any],
    row_id: ColumnElement[Any],
    descending: bool,
    nulls_low: bool,
    nullable: bool = True,
    wrap: Wrap | None = None,
) -> list[Select[Any]]:
    """The statements :func:`keyset_rows` runs for a first page (``after`` None), in order,
    built once to be run again and again: the limit is the bound parameter
    :data:`LIMIT_PARAMETER` (the rows still wanted when a band runs), and ``base`` may
    hold bound parameters of its own. Run them with :func:`first_page_rows`.

    Building a statement costs far more than running a prepared one (a live tree's poll
    re-read 100 expanded nodes' first pages, building every statement anew each time).
    """
    limit = bindparam(LIMIT_PARAMETER, type_=Integer())
    bands = _bands(None, descending=descending, nulls_low=nulls_low, nullable=nullable)
    return [_band_statement(band, base, key, row_id, None, descending, limit, wrap) for band in bands]


async def first_page_rows(
    connection: AsyncConnection, statements: Sequence[Select[Any]], parameters: Mapping[str, Any], limit: int
) -> Sequence[Mapping[Any, Any]]:
    """Up to ``limit`` rows of :func:`first_page_statements`' statements, given ``parameters``."""
    rows: list[Mapping[Any, Any]] = []
    for statement in statements:
        result = await connection.execute(statement, {**parameters, LIMIT_PARAMETER: limit - len(rows)})
        rows.extend(result.mappings().all())
        if len(rows) >= limit:
            break
    return rows


__all__ = [
    "LIMIT_PARAMETER",
    "Position",
    "bind",
    "first_page_rows",
    "first_page_statements",
    "keyset_rows",
    "value_band_statement",
]
