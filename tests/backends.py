"""One storage contract, three backends: a SQLite file, PostgreSQL and MariaDB/MySQL.

The ``backend`` fixture (see ``conftest.py``) hands each test a fresh, empty store on one
backend: a temporary SQLite file, or a new database on a throwaway server from
:mod:`tests.servers`. Tests written against :class:`Backend` run unchanged on all three.
"""

from __future__ import annotations

import itertools
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import MetaData, Table, create_engine, text
from sqlalchemy.engine import URL, Engine

from zett_browser.storage import SQLiteSessionStorage, SQLSessionStorage, schema

from .servers import READER
from .support import FIXTURES

BACKENDS = ("sqlite", "postgresql", "mysql")


@dataclass
class Backend:
    """Where one test's store lives, and how to open it as writer, browser or raw SQL."""

    name: str
    path: Path | None = None
    owner_url: URL | None = None
    reader_url: URL | None = None
    sync_url: URL | None = None

    @property
    def target(self) -> str:
        """The store as a user passes it: a path, or a URL with its password."""
        if self.path is not None:
            return str(self.path)
        assert self.owner_url is not None
        return self.owner_url.render_as_string(hide_password=False)

    @property
    def reader_target(self) -> str:
        """The store as a SELECT-only user passes it."""
        if self.path is not None:
            return str(self.path)
        assert self.reader_url is not None
        return self.reader_url.render_as_string(hide_password=False)

    def as_stored(self, moment: datetime) -> datetime:
        """``moment`` as the backend keeps it: zett-agent's ``DateTime`` columns are
        whole seconds on MySQL (``DATETIME`` without a fraction; MariaDB truncates)."""
        return moment.replace(microsecond=0) if self.name == "mysql" else moment

    def clock(self) -> Callable[[], datetime] | None:
        """The clock a test's writer uses: the wall clock, except on MySQL.

        MySQL keeps whole seconds, so rows written in one second tie on activity; a
        clock that ticks a second per stamp keeps the tests' ordering meaningful there.
        """
        if self.name != "mysql":
            return None
        ticks = itertools.count()
        base = datetime.now(UTC).replace(microsecond=0)
        return lambda: base + timedelta(seconds=next(ticks))

    def writer(self, **options: Any) -> SQLSessionStorage:
        """A writing storage, as zett-agent opens the store."""
        options.setdefault("clock", self.clock())
        if self.path is not None:
            return SQLiteSessionStorage(self.path, **options)
        return SQLSessionStorage(self.target, **options)

    def browser(self) -> SQLSessionStorage:
        """A browsing storage, logged in with the least privilege docs/server-stores.md asks for."""
        return SQLSessionStorage(self.reader_target, read_only=True)

    def raw(self) -> Engine:
        """A plain synchronous engine with the owner's rights, for planting rows by hand."""
        if self.path is not None:
            return create_engine(URL.create("sqlite", database=str(self.path)))
        assert self.sync_url is not None
        return create_engine(self.sync_url)

    def load_fixture(self, name: str) -> SQLSessionStorage:
        """Put a zett-agent-written fixture store on this backend and open it for browsing.

        On SQLite the file is copied; on a server every row is copied through zett-agent's
        schema (the same tables, types and indexes zett-agent creates), values unchanged.
        """
        source = FIXTURES / f"{name}.sqlite3"
        if self.path is not None:
            shutil.copy(source, self.path)
            return self.browser()
        reader = create_engine(URL.create("sqlite", database=str(source)))
        writer = self.raw()
        try:
            schema.metadata.create_all(writer)
            # zett-agent 0.2.1 declares the *_duration_ns columns INTEGER: 32-bit on these
            # servers, so a message that took over 2.1 s cannot be appended there (zett-agent
            # fails the same way). The fixtures hold such durations, so the copy widens those
            # columns as an operator would; the browser reads either width.
            with writer.begin() as connection:
                for column in ("duration_ns", "reasoning_duration_ns", "content_duration_ns"):
                    if self.name == "postgresql":
                        connection.execute(text(f"ALTER TABLE raw_messages ALTER COLUMN {column} TYPE BIGINT"))
                    else:
                        null = "NOT NULL" if column == "duration_ns" else "NULL"
                        connection.execute(text(f"ALTER TABLE raw_messages MODIFY {column} BIGINT {null}"))
            widened = MetaData()
            with reader.connect() as source_connection, writer.begin() as target:
                for table in schema.metadata.sorted_tables:
                    rows = [dict(row) for row in source_connection.execute(table.select()).mappings()]
                    if rows:
                        as_created = Table(table.name, widened, autoload_with=target)
                        target.execute(as_created.insert(), rows)
        finally:
            reader.dispose()
            writer.dispose()
        return self.browser()


def server_backend(name: str, server: Any, database: str) -> Backend:
    return Backend(
        name=name,
        owner_url=server.url(database),
        reader_url=server.url(database, role=READER),
        sync_url=server.url(database, sync=True),
    )
