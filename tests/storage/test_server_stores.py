"""Server stores: read-only by construction, masked passwords, long text, lost connections.

Runs on every backend where the property is meaningful, against real servers started by
:mod:`tests.servers` (PostgreSQL and MariaDB on loopback).
"""

from __future__ import annotations

import pytest
from sqlalchemy import MetaData, Table, func, inspect, select, text
from sqlalchemy.exc import DBAPIError

from tests.backends import Backend
from tests.servers import Server
from zett_browser.storage import (
    CompactedMessage,
    MessageTiming,
    NotZettStoreError,
    ReadOnlyStoreError,
    SQLSessionStorage,
    StoreConnectionError,
    StoreError,
    StoreNotFoundError,
    StorePermissionError,
    ToolMessage,
    UserMessage,
    open_store,
    parse_target,
)

SERVERS = pytest.mark.parametrize("backend", ["postgresql", "mysql"], indirect=True)


def _counts(backend: Backend) -> dict[str, int]:
    engine = backend.raw()
    try:
        with engine.connect() as connection:
            return {
                name: connection.execute(select(func.count()).select_from(Table(name, MetaData()))).scalar_one()
                for name in ("agent_sessions", "raw_messages", "session_snapshots")
            }
    finally:
        engine.dispose()


@SERVERS
async def test_browsing_cannot_write_even_with_a_role_that_may(backend: Backend) -> None:
    """The owner role may write, but a browsing session is read-only on the server itself."""
    writer = backend.load_fixture("storage_api")
    await writer.close()
    before = _counts(backend)
    browser = open_store(backend.target)  # the owner's URL: rights to write, yet browsing
    sid = (await browser.list_sessions())[0].session_id
    await browser.raw_page(sid, limit=50)
    await browser.list_snapshots(sid)
    attempts = [
        browser.create_session(title="x"),
        browser.append(sid, "r", UserMessage(content="x")),
        browser.update_session(sid, title="x"),
        browser.delete_session(sid),
        browser.snapshot(sid, CompactedMessage(content="x"), 1, 99),
    ]
    for attempt in attempts:
        with pytest.raises(ReadOnlyStoreError, match="read-only"):
            await attempt
    async with browser.reader.engine().connect() as connection:
        with pytest.raises(DBAPIError, match="(?i)read.only"):
            await connection.execute(text("DELETE FROM raw_messages"))
    async with browser.reader.engine().connect() as connection:
        with pytest.raises(DBAPIError, match="(?i)read.only"):
            await connection.execute(text("CREATE TABLE zett_probe (x INTEGER)"))
    await browser.close()
    assert _counts(backend) == before


@SERVERS
async def test_the_select_only_role_browses_everything(backend: Backend) -> None:
    loaded = backend.load_fixture("storage_api")
    await loaded.close()
    browser = backend.browser()  # zett_reader: SELECT only
    try:
        roots = await browser.list_roots(limit=100)
        assert roots.items
        sid = roots.items[0].session_id
        assert await browser.raw_bounds(sid)
        assert await browser.session_totals(sid)
        assert await browser.change_token()
    finally:
        await browser.close()


@SERVERS
async def test_browsing_an_empty_database_creates_nothing(backend: Backend) -> None:
    browser = open_store(backend.target)
    with pytest.raises(NotZettStoreError, match="not a zett-agent store"):
        await browser.list_sessions()
    await browser.close()
    engine = backend.raw()
    with engine.connect() as connection:
        assert inspect(connection).get_table_names() == []
    engine.dispose()


async def test_long_text_over_64_kib_survives(storage: SQLSessionStorage, backend: Backend) -> None:
    """zett-agent's LONGTEXT columns on MySQL; TEXT elsewhere. 300 KB of mixed text round-trips."""
    big = ("tool output ✓ 日本 " * 20_000)[:300_000]
    await storage.append("s", "r", ToolMessage(tool_call_id="c", name="cat", content=big))
    browser = backend.browser()
    try:
        (record,) = await browser.raw_page("s", limit=5)
        assert record.message.content == big and record.problems == ()
        assert await browser.text_size("s") == len(big)
    finally:
        await browser.close()


@SERVERS
async def test_a_duration_beyond_zett_agents_integer_column_is_a_clear_error(storage: SQLSessionStorage) -> None:
    """zett-agent 0.2.1 keeps *_duration_ns in INTEGER (32-bit on servers): > 2.1 s cannot be stored."""
    from datetime import UTC, datetime, timedelta

    start = datetime(2026, 1, 1, tzinfo=UTC)
    timing = MessageTiming(start, start + timedelta(seconds=3), 3_000_000_000)
    with pytest.raises(StoreError, match="INTEGER"):
        await storage.append("s", "r", UserMessage(content="slow"), timing=timing)
    assert await storage.get_session("s") is None, "nothing half-written"


@SERVERS
async def test_the_password_never_appears_in_names_or_errors(backend: Backend, request: pytest.FixtureRequest) -> None:
    server: Server = request.getfixturevalue(f"{backend.name}_server")
    password = "s3cret-Pa55-xyz"
    assert backend.owner_url is not None and backend.owner_url.database is not None
    database = backend.owner_url.database
    wrong = server.url(database, role=("zett_owner", password))
    target = wrong.render_as_string(hide_password=False)
    storage = open_store(target)
    assert password not in storage.display_name and "***" in storage.display_name
    with pytest.raises(StorePermissionError) as failure:
        await storage.list_sessions()
    await storage.close()
    assert password not in str(failure.value) and "***" in str(failure.value)
    missing = open_store(server.url("no_such_db", role=("zett_owner", password)).render_as_string(hide_password=False))
    with pytest.raises(StoreError) as failure_db:
        await missing.list_sessions()
    await missing.close()
    assert password not in str(failure_db.value)
    assert isinstance(failure_db.value, (StoreNotFoundError, StorePermissionError))
    closed_port = wrong.set(port=1)
    unreachable = open_store(closed_port.render_as_string(hide_password=False))
    with pytest.raises(StoreConnectionError) as failure_port:
        await unreachable.list_sessions()
    await unreachable.close()
    assert password not in str(failure_port.value) and "Cannot reach" in str(failure_port.value)


@SERVERS
async def test_a_connection_killed_by_the_server_is_replaced_at_the_next_call(
    backend: Backend, request: pytest.FixtureRequest
) -> None:
    server: Server = request.getfixturevalue(f"{backend.name}_server")
    writer = backend.load_fixture("storage_api")
    await writer.close()
    browser = open_store(backend.target)
    try:
        first = await browser.list_sessions()
        with server.admin().connect() as admin:
            if backend.name == "postgresql":
                killed = admin.execute(
                    text("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = :db"),
                    {"db": backend.owner_url.database},  # type: ignore[union-attr]
                ).scalar_one()
            else:
                ids = admin.execute(
                    text("SELECT id FROM information_schema.processlist WHERE db = :db"),
                    {"db": backend.owner_url.database},  # type: ignore[union-attr]
                ).scalars()
                killed = 0
                for connection_id in list(ids):
                    admin.execute(text(f"KILL {int(connection_id)}"))
                    killed += 1
        assert killed >= 1, "the pooled browsing connection was open"
        assert await browser.list_sessions() == first
    finally:
        await browser.close()


@pytest.mark.parametrize(
    ("given", "driver"),
    [
        ("postgresql://u:pw@db/sessions", "postgresql+psycopg"),
        ("postgres://u:pw@db/sessions", "postgresql+psycopg"),
        ("postgresql+psycopg://u:pw@db/sessions", "postgresql+psycopg"),
        ("mysql://u:pw@db/sessions", "mysql+aiomysql"),
        ("mariadb://u:pw@db/sessions", "mariadb+aiomysql"),
        ("mysql+aiomysql://u:pw@db/sessions", "mysql+aiomysql"),
    ],
)
def test_url_forms_get_an_async_driver_and_a_masked_display(given: str, driver: str) -> None:
    target = parse_target(given)
    assert target.url is not None and target.url.drivername == driver
    assert "pw" not in target.display() and "***" in target.display()


def test_a_server_url_must_name_a_database() -> None:
    with pytest.raises(StoreError, match="names no database"):
        parse_target("postgresql://u:pw@db")


@SERVERS
async def test_a_slow_browsing_statement_is_cancelled_by_the_server(
    backend: Backend, monkeypatch: pytest.MonkeyPatch
) -> None:
    from zett_browser.storage import StoreTimeoutError, engine

    loaded = backend.load_fixture("storage_api")
    await loaded.close()
    monkeypatch.setattr(engine, "STATEMENT_TIMEOUT_S", 1)
    browser = backend.browser()
    sleep = "SELECT pg_sleep(5)" if backend.name == "postgresql" else "SELECT SLEEP(5) FROM agent_sessions LIMIT 1"
    try:
        await browser.list_sessions()

        async def slow(connection: object) -> object:
            return (await connection.execute(text(sleep))).all()  # type: ignore[attr-defined]

        with pytest.raises(StoreTimeoutError, match="took too long"):
            await browser.reader.run(slow)
        assert await browser.list_sessions(), "the next call works"
    finally:
        await browser.close()


@pytest.mark.parametrize("backend", ["sqlite", "postgresql", "mysql"], indirect=True)
async def test_children_pages_and_the_tree_refresh_agree_on_every_backend(backend: Backend) -> None:
    """The first page of children runs statements built once with bound parameters (the
    parent id and the limit): the same nodes as the paged walk, on every dialect."""
    writer = backend.writer()
    await writer.append("parent", "r", UserMessage(content="go"), title="Parent")
    for index in range(7):
        await writer.append(f"child-{index}", "r", UserMessage(content="sub"), parent_session_id="parent")
    await writer.append("other", "r", UserMessage(content="go"))
    await writer.close()
    browser = backend.browser()
    try:
        walked: list[str] = []
        cursor = None
        while True:
            page = await browser.list_children("parent", limit=3, cursor=cursor)
            walked.extend(node.session_id for node in page.items)
            if page.next_cursor is None:
                break
            cursor = page.next_cursor
        assert walked == [f"child-{index}" for index in range(7)]
        first = await browser.list_children("parent", limit=3)
        assert [node.session_id for node in first.items] == walked[:3] and first.next_cursor is not None
        _, children = await browser.tree_refresh(["parent", "other", "child-0"], children_limit=5)
        assert [node.session_id for node in children["parent"].items] == walked[:5]
        assert children["other"].items == [] and children["child-0"].items == []
        everything = await browser.list_children("parent", limit=10)
        assert [node.message_count for node in everything.items] == [1] * 7 and everything.next_cursor is None
    finally:
        await browser.close()
