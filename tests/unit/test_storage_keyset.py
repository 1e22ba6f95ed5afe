"""Total keyset paging (zett_browser.storage.keyset): every row once, whatever its key.

The statements keyset.py builds are compiled for SQLite and run by the stdlib driver on
an in-memory table (no store, no engine): keys that are NULL, repeated, text among
numbers and text that was not UTF-8 are each reached exactly once, in the database's
own order, a few rows a page.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from typing import Any, cast

import pytest
from sqlalchemy import Text, column, select, table
from sqlalchemy.dialects import sqlite
from sqlalchemy.ext.asyncio import AsyncConnection
from sqlalchemy.sql import Select

from zett_browser.storage.convert import BadText, lenient_text
from zett_browser.storage.keyset import (
    LIMIT_PARAMETER,
    Position,
    bind,
    first_page_rows,
    first_page_statements,
    keyset_rows,
)

ROWS = table("rows", column("id", Text()), column("k"))
BASE: Select[Any] = select(ROWS.c.id, ROWS.c.k)
#: (id, key): NULL keys, a repeated key, numbers among text, year 0001, garbage.
DATA = [
    ("a", "2026-01-02"),
    ("b", None),
    ("c", "2026-01-02"),
    ("d", 7),
    ("e", "0001-01-01"),
    ("f", None),
    ("g", "garbage"),
    ("h", 7),
    ("i", "2026-01-02"),
    ("j", None),
    ("k", 3.5),
]


class Result:
    def __init__(self, rows: list[dict[str, Any]]) -> None:
        self.rows = rows

    def mappings(self) -> Result:
        return self

    def all(self) -> list[dict[str, Any]]:
        return self.rows


class Connection:
    """Runs compiled statements on an in-memory stdlib SQLite table; counts the statements."""

    def __init__(self, data: Sequence[tuple[Any, Any]]) -> None:
        self.db = sqlite3.connect(":memory:")
        self.db.text_factory = lenient_text
        self.db.execute("create table rows (id text, k)")
        self.db.executemany("insert into rows values (?, ?)", data)
        self.statements = 0

    async def execute(self, statement: Select[Any], parameters: Mapping[str, Any] | None = None) -> Result:
        self.statements += 1
        compiled = statement.compile(dialect=sqlite.dialect())
        values = compiled.construct_params(dict(parameters or {}))
        assert compiled.positiontup is not None
        cursor = self.db.execute(compiled.string, [values[name] for name in compiled.positiontup])
        names = [d[0] for d in cursor.description]
        return Result([dict(zip(names, row, strict=True)) for row in cursor.fetchall()])


def as_async(connection: Connection) -> AsyncConnection:
    return cast(AsyncConnection, connection)


def sqlite_order(descending: bool) -> list[str]:
    """SQLite's own (key, id) order: NULLs lowest, then numbers, then text."""
    db = sqlite3.connect(":memory:")
    db.execute("create table rows (id text, k)")
    db.executemany("insert into rows values (?, ?)", DATA)
    way = "desc" if descending else "asc"
    return [row[0] for row in db.execute(f"select id from rows order by k {way}, id {way}")]


async def walk(connection: Connection, *, descending: bool, nulls_low: bool, page: int) -> list[list[str]]:
    pages: list[list[str]] = []
    after: Position | None = None
    while len(pages) <= len(DATA) * 2:  # a cursor that does not move ends the walk, failing
        rows = await keyset_rows(
            as_async(connection),
            BASE,
            key=ROWS.c.k,
            row_id=ROWS.c.id,
            after=after,
            descending=descending,
            nulls_low=nulls_low,
            limit=page,
        )
        if not rows:
            return pages
        pages.append([row["id"] for row in rows])
        last = rows[-1]
        after = Position(last["k"], last["k"] is None, last["id"])
    return pages


@pytest.mark.parametrize("page", [1, 2, 3, 50])
@pytest.mark.parametrize("descending", [False, True])
async def test_every_row_is_reached_once_in_the_databases_order(descending: bool, page: int) -> None:
    pages = await walk(Connection(DATA), descending=descending, nulls_low=True, page=page)
    assert [row for rows in pages for row in rows] == sqlite_order(descending)
    assert all(len(rows) == page for rows in pages[:-1]), "only the last page is short"


async def test_null_keys_are_a_band_above_every_value_where_the_database_puts_them_there() -> None:
    """PostgreSQL orders NULL above every value: ascending, the band comes last, by id."""
    pages = await walk(Connection(DATA), descending=False, nulls_low=False, page=4)
    ids = [row for rows in pages for row in rows]
    assert ids[-3:] == ["b", "f", "j"] and sorted(ids) == sorted(i for i, _ in DATA)
    pages = await walk(Connection(DATA), descending=True, nulls_low=False, page=4)
    assert [row for rows in pages for row in rows][:3] == ["j", "f", "b"]


async def test_a_page_filled_by_the_first_band_reads_no_other() -> None:
    connection = Connection(DATA)
    args: dict[str, Any] = {"key": ROWS.c.k, "row_id": ROWS.c.id, "descending": False, "nulls_low": True}
    rows = await keyset_rows(as_async(connection), BASE, after=None, limit=2, **args)
    assert [row["id"] for row in rows] == ["b", "f"] and connection.statements == 1
    rows = await keyset_rows(as_async(connection), BASE, after=None, limit=5, **args)
    assert [row["id"] for row in rows] == ["b", "f", "j", "k", "d"] and connection.statements == 3
    rows = await keyset_rows(as_async(connection), BASE, after=None, limit=5, nullable=False, **args)
    assert [row["id"] for row in rows] == ["k", "d", "h", "e", "a"], "nullable=False reads no NULL band"


async def test_a_bare_key_bound_is_every_row_beyond_it() -> None:
    connection = Connection(DATA)
    rows = await keyset_rows(
        as_async(connection),
        BASE,
        key=ROWS.c.k,
        row_id=ROWS.c.id,
        after=Position("2026-01-02", False),
        descending=False,
        nulls_low=True,
        limit=50,
    )
    assert [row["id"] for row in rows] == ["g"], "the three rows at the bound itself are not beyond it"


@pytest.mark.parametrize(("descending", "nulls_low"), [(False, True), (True, True), (False, False), (True, False)])
async def test_prepared_first_pages_give_the_first_page(descending: bool, nulls_low: bool) -> None:
    connection = Connection(DATA)
    statements = first_page_statements(BASE, key=ROWS.c.k, row_id=ROWS.c.id, descending=descending, nulls_low=nulls_low)
    assert len(statements) == 2
    for limit in (2, 4, 20):
        prepared = await first_page_rows(as_async(connection), statements, {}, limit)
        built = await keyset_rows(
            as_async(connection),
            BASE,
            key=ROWS.c.k,
            row_id=ROWS.c.id,
            after=None,
            descending=descending,
            nulls_low=nulls_low,
            limit=limit,
        )
        assert [row["id"] for row in prepared] == [row["id"] for row in built]
    assert LIMIT_PARAMETER in statements[0].compile().params


async def test_a_key_and_id_that_were_not_utf8_are_found_again_from_their_bytes() -> None:
    bad_key, bad_id = b"2026-\xff", b"id-\xfe"
    connection = Connection([("a", "2026-01-01"), (bad_id, bad_key), ("z", "3000")])
    connection.db.execute("update rows set id = cast(id as text), k = cast(k as text)")
    pages = await walk(connection, descending=False, nulls_low=True, page=1)
    assert [rows[0] for rows in pages] == ["a", "id-\ufffd", "z"], "one row a page, none repeated, none skipped"
    middle = pages[1][0]
    assert isinstance(middle, BadText) and middle.raw == bad_id
    statement = bind(lenient_text(bad_key)).compile(dialect=sqlite.dialect())
    assert str(statement) == "CAST(? AS TEXT)" and list(statement.params.values()) == [bad_key]
    assert bind(7).compile().params == {"param_1": 7}
