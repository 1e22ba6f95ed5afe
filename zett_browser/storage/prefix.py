"""Provides the sessions whose id starts with a prefix the user typed (``--session 01a237b7-14``).

One indexed range query on the sessions table's primary key: ``id >= prefix AND id <
upper`` where ``upper`` is the prefix with its last character moved one code point up, so
the store's index is searched once, never scanned (SQLite compares TEXT with BINARY
collation, which orders strings of code points the same way). A full id that is also the
prefix of another id names itself.
"""

from __future__ import annotations

from . import narrow  # noqa: F401 - before sqlalchemy.ext.asyncio: its engine without the ORM

# isort: split

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncConnection

from . import schema
from .idprefix import MAX_CANDIDATES, PrefixMatch, upper_bound
from .reader import Reader

sessions_t = schema.agent_sessions


async def sessions_with_prefix(reader: Reader, prefix: str, limit: int = MAX_CANDIDATES) -> PrefixMatch:
    """The sessions whose id starts with ``prefix`` (an exact id names itself alone).

    Cost: two look-ups on the primary key's index, at most ``limit + 1`` rows read.
    """
    if not prefix or limit < 1:
        return PrefixMatch(prefix, ())

    async def work(connection: AsyncConnection) -> PrefixMatch:
        exact = select(sessions_t.c.id).where(sessions_t.c.id == prefix)
        if (await connection.execute(exact)).first() is not None:
            return PrefixMatch(prefix, (prefix,))
        statement = select(sessions_t.c.id).where(sessions_t.c.id >= prefix)
        upper = upper_bound(prefix)
        if upper is not None:
            statement = statement.where(sessions_t.c.id < upper)
        rows = (await connection.execute(statement.order_by(sessions_t.c.id).limit(limit + 1))).all()
        found = tuple(str(row[0]) for row in rows)
        return PrefixMatch(prefix, found[:limit], more=len(found) > limit)

    return await reader.run(work)


__all__ = ["MAX_CANDIDATES", "PrefixMatch", "sessions_with_prefix", "upper_bound"]
