"""zett-browser's storage against the real zett-agent 0.2.1, in both directions.

a. Reading: each committed fixture store (written by zett-agent itself, see
   ``tests/fixtures/make_fixtures.py``) dumped through ``zett_browser.storage`` must equal the dump
   zett-agent made of it (``<name>.expected.json``), exactly.
b. Writing: a rich store written through ``zett_browser.storage`` must read identically in
   zett-agent and in zett-browser, and its schema (``sqlite_master``) must be the one zett-agent
   creates.
c. Bytes: the same appends through both implementations must store identical column values,
   ``message_json`` byte for byte.

b and c run zett-agent in a throwaway venv (``tests/zett_agent_env.py``), built on first use
from PyPI. The tests are synchronous and drive the async API with ``asyncio.run``.
"""

from __future__ import annotations

import asyncio
import hashlib
import importlib.util
import json
import sqlite3
import sys
from pathlib import Path
from typing import Any

import pytest

from tests import zett_agent_env
from tests.compat.compare import (
    DUMP_SCRIPT,
    assert_same,
    clean_env,
    dump_with,
    run_checked,
    run_zett_agent_script,
    short,
)

REPO = Path(__file__).resolve().parents[2]
TESTS = REPO / "tests"
COMPAT = TESTS / "compat"
FIXTURES = TESTS / "fixtures"
STORES = ("agent_run", "storage_api", "legacy_no_session_type", "empty")


def _load(name: str, path: Path) -> Any:
    """Import a helper module by path, whatever pytest's import mode and rootdir are."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


scenario = _load("zett_compat_scenario", COMPAT / "scenario.py")


# --------------------------------------------------------------------------- helpers


def sqlite_master(path: Path) -> list[tuple[Any, ...]]:
    connection = sqlite3.connect(path)
    try:
        return connection.execute(
            "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_stat%' ORDER BY type, name"
        ).fetchall()
    finally:
        connection.close()


def table_rows(path: Path, table: str, *, exclude: set[str], order_by: str) -> list[dict[str, Any]]:
    """Every row of ``table`` with each kept column's value and SQLite storage class."""
    connection = sqlite3.connect(path)
    try:
        columns = [row[1] for row in connection.execute(f"PRAGMA table_info({table})") if row[1] not in exclude]
        selected = ", ".join(f'"{column}", typeof("{column}")' for column in columns)
        rows = connection.execute(f"SELECT {selected} FROM {table} ORDER BY {order_by}").fetchall()
    finally:
        connection.close()
    return [{column: (row[2 * i], row[2 * i + 1]) for i, column in enumerate(columns)} for row in rows]


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def zett_browser_storage() -> Any:
    import zett_browser.storage as storage

    missing = [name for name in (*scenario.API_NAMES, "decode_messages") if not hasattr(storage, name)]
    assert not missing, f"zett_browser.storage does not export {missing}"
    return storage


async def _write_scenario(api: Any, path: Path, **options: Any) -> None:
    storage = api.SQLiteSessionStorage(path)
    try:
        await scenario.populate_rich_store(storage, api, **options)
    finally:
        await storage.close()


_ZETT_AGENT_WRITE_SCENARIO = """
    import asyncio, sys
    sys.path.insert(0, sys.argv[1])
    import scenario
    from zett_agent.storage import SQLSessionStorage

    async def main():
        api = scenario.zett_agent_api()
        target = sys.argv[2]
        if "://" in target:
            scenario.DURATION_CAP = 2.0  # zett-agent's INTEGER durations on servers
            storage = SQLSessionStorage(target)
        else:
            storage = api.SQLiteSessionStorage(target)
        try:
            await scenario.populate_rich_store(storage, api)
        finally:
            await storage.close()

    asyncio.run(main())
"""

_ZETT_AGENT_EMPTY_STORE = """
    import asyncio, sys
    from zett_agent.storage import SQLiteSessionStorage, SQLSessionStorage

    async def main():
        target = sys.argv[1]
        storage = SQLSessionStorage(target) if "://" in target else SQLiteSessionStorage(target)
        try:
            assert await storage.list_sessions() == []
        finally:
            await storage.close()

    asyncio.run(main())
"""


# --------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="session")
def zett_agent_py() -> Path:
    """Python of the venv with exactly zett-agent 0.2.1 (built from PyPI on first use)."""
    return zett_agent_env.zett_agent_python()


@pytest.fixture(scope="module")
def browser_rich_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The rich scenario written through zett_browser.storage."""
    api = zett_browser_storage()
    path = tmp_path_factory.mktemp("browser-rich") / "rich.sqlite3"
    asyncio.run(_write_scenario(api, path, timeless_append=True))
    return path


# --------------------------------------------------------------------------- the committed fixtures


def test_fixture_stores_are_committed_as_single_small_files() -> None:
    leftovers = sorted(p.name for p in FIXTURES.iterdir() if p.name.endswith(("-wal", "-shm", "-journal")))
    assert not leftovers, f"WAL/SHM/journal files next to the fixtures: {leftovers}"
    for name in STORES:
        store = FIXTURES / f"{name}.sqlite3"
        assert store.is_file(), store
        assert store.stat().st_size < 1_000_000, store
        assert (FIXTURES / f"{name}.expected.json").is_file()
    legacy = sqlite3.connect(FIXTURES / "legacy_no_session_type.sqlite3")
    try:
        columns = [row[1] for row in legacy.execute("PRAGMA table_info(agent_sessions)")]
    finally:
        legacy.close()
    assert "session_type" not in columns and "parent_session_id" in columns


@pytest.mark.parametrize("name", STORES)
def test_fixture_dump_matches_zett_agent(name: str) -> None:
    """a. zett-browser reads each zett-agent-written store exactly as zett-agent does."""
    store = FIXTURES / f"{name}.sqlite3"
    expected = json.loads((FIXTURES / f"{name}.expected.json").read_text(encoding="utf-8"))
    before = sha256(store)
    actual = dump_with(sys.executable, "zett_browser", store)
    assert sha256(store) == before, "the committed store changed"
    assert_same(expected, actual, f"{name}.sqlite3")


# --------------------------------------------------------------------------- zett-browser writes


def test_zett_browser_store_reads_identically_in_zett_agent(browser_rich_store: Path, zett_agent_py: Path) -> None:
    """b. A store written by zett-browser: zett-agent and zett-browser read the same thing."""
    by_agent = dump_with(zett_agent_py, "zett_agent", browser_rich_store)
    by_browser = dump_with(sys.executable, "zett_browser", browser_rich_store)
    assert_same(by_agent, by_browser, "store written by zett_browser")
    titles = {summary["title"] for summary in by_agent["list_sessions"]}
    assert {"Kitchen sink (renamed)", "Pagination (120 messages)", "Orphaned child"} <= titles
    assert len(by_agent["list_sessions"]) == 10
    versions = [row["version"] for row in by_agent["snapshot_versions"]]
    assert versions == [1, 2, 3]


def test_zett_browser_store_has_zett_agent_schema(
    browser_rich_store: Path, zett_agent_py: Path, tmp_path: Path
) -> None:
    """b. sqlite_master (tables and indexes, with their SQL) equals an empty zett-agent store's."""
    empty = tmp_path / "zett-agent-empty.sqlite3"
    run_zett_agent_script(zett_agent_py, _ZETT_AGENT_EMPTY_STORE, str(empty))
    expected = sqlite_master(empty)
    actual = sqlite_master(browser_rich_store)
    if expected != actual:
        expected_names = {(row[0], row[1]) for row in expected}
        actual_names = {(row[0], row[1]) for row in actual}
        details = [
            f"missing in zett_browser store: {sorted(expected_names - actual_names)}",
            f"extra in zett_browser store: {sorted(actual_names - expected_names)}",
        ]
        for row in expected:
            other = next((r for r in actual if (r[0], r[1]) == (row[0], row[1])), None)
            if other is not None and other != row:
                same_tokens = " ".join(str(row[3]).split()) == " ".join(str(other[3]).split())
                details.append(
                    f"{row[0]} {row[1]} differs{' (whitespace only)' if same_tokens else ''}:\n"
                    f"    zett_agent:   {row[2]!r} {row[3]!r}\n    zett_browser: {other[2]!r} {other[3]!r}"
                )
        pytest.fail("sqlite_master differs:\n  " + "\n  ".join(details), pytrace=False)


def test_raw_columns_match_byte_for_byte(zett_agent_py: Path, tmp_path: Path) -> None:
    """c. The same appends through both implementations store identical column values."""
    agent_store = tmp_path / "by-zett-agent.sqlite3"
    browser_store = tmp_path / "by-zett-browser.sqlite3"
    run_zett_agent_script(zett_agent_py, _ZETT_AGENT_WRITE_SCENARIO, str(COMPAT), str(agent_store))
    asyncio.run(_write_scenario(zett_browser_storage(), browser_store))

    comparisons = (
        ("agent_sessions", {"created_at", "updated_at"}, "id"),
        ("raw_messages", {"id", "created_at", "updated_at"}, "session_id, sequence"),
        ("session_snapshots", {"id", "created_at", "updated_at"}, "session_id, version"),
    )
    problems: list[str] = []
    for table, exclude, order_by in comparisons:
        expected = table_rows(agent_store, table, exclude=exclude, order_by=order_by)
        actual = table_rows(browser_store, table, exclude=exclude, order_by=order_by)
        if len(expected) != len(actual):
            problems.append(f"{table}: {len(expected)} rows (zett_agent) != {len(actual)} rows (zett_browser)")
        if expected and actual and list(expected[0]) != list(actual[0]):
            problems.append(f"{table}: columns {list(expected[0])} != {list(actual[0])}")
        for left, right in zip(expected, actual, strict=False):
            for column, value in left.items():
                if right.get(column) != value:
                    key = ", ".join(
                        f"{k}={left[k][0]}" for k in ("session_id", "sequence", "version", "id") if k in left
                    )
                    other = short(right.get(column))
                    problems.append(f"{table}[{key}].{column}: zett_agent {short(value)} != zett_browser {other}")
    assert len(table_rows(agent_store, "raw_messages", exclude=set(), order_by="id")) > 150
    if problems:
        pytest.fail(f"{len(problems)} column differences:\n  " + "\n  ".join(problems[:40]), pytrace=False)


# --------------------------------------------------------------------------- server stores

SERVERS = pytest.mark.parametrize("backend", ["postgresql", "mysql"], indirect=True)


def server_schema(backend: Any) -> dict[str, Any]:
    """Tables, columns (with their server types) and indexes, as the server reports them."""
    from sqlalchemy import inspect

    engine = backend.raw()
    try:
        with engine.connect() as connection:
            inspector = inspect(connection)
            return {
                table: {
                    "columns": [
                        (column["name"], str(column["type"]), column["nullable"], column.get("default"))
                        for column in inspector.get_columns(table)
                    ],
                    "indexes": sorted(
                        (index["name"], tuple(index["column_names"]), bool(index["unique"]))
                        for index in inspector.get_indexes(table)
                    ),
                    "primary_key": inspector.get_pk_constraint(table)["constrained_columns"],
                }
                for table in sorted(inspector.get_table_names())
            }
    finally:
        engine.dispose()


@SERVERS
def test_zett_agent_server_store_reads_identically_in_zett_browser(backend: Any, zett_agent_py: Path) -> None:
    """Real zett-agent writes the rich scenario on the server; zett-browser, logged in with
    the SELECT-only role, reads every value exactly as zett-agent does."""
    run_zett_agent_script(zett_agent_py, _ZETT_AGENT_WRITE_SCENARIO, str(COMPAT), backend.target)
    by_agent = json.loads(
        run_checked([str(zett_agent_py), str(DUMP_SCRIPT), "zett_agent", backend.target], env=clean_env()).stdout
    )
    by_browser = json.loads(
        run_checked([sys.executable, str(DUMP_SCRIPT), "zett_browser", backend.reader_target]).stdout
    )
    assert_same(by_agent, by_browser, f"{backend.name} store written by zett_agent")
    assert len(by_agent["list_sessions"]) == 10
    assert [row["version"] for row in by_agent["snapshot_versions"]] == [1, 2, 3]


@SERVERS
def test_zett_browser_server_store_reads_identically_in_zett_agent(backend: Any, zett_agent_py: Path) -> None:
    """zett-browser writes the rich scenario on the server; zett-agent reads it identically,
    and the tables zett-browser created are the ones zett-agent creates."""
    api = zett_browser_storage()

    async def write() -> None:
        storage = api.SQLSessionStorage(backend.target)
        try:
            scenario.DURATION_CAP = 2.0
            await scenario.populate_rich_store(storage, api)
        finally:
            scenario.DURATION_CAP = None
            await storage.close()

    asyncio.run(write())
    by_agent = json.loads(
        run_checked([str(zett_agent_py), str(DUMP_SCRIPT), "zett_agent", backend.target], env=clean_env()).stdout
    )
    by_browser = json.loads(
        run_checked([sys.executable, str(DUMP_SCRIPT), "zett_browser", backend.reader_target]).stdout
    )
    assert_same(by_agent, by_browser, f"{backend.name} store written by zett_browser")
    assert len(by_agent["list_sessions"]) == 10
    ours = server_schema(backend)
    with backend.raw().begin() as connection:
        from sqlalchemy import text

        for table in ("raw_messages", "session_snapshots", "agent_sessions"):
            connection.execute(text(f"DROP TABLE {table}"))
    run_zett_agent_script(zett_agent_py, _ZETT_AGENT_EMPTY_STORE, backend.target)
    assert server_schema(backend) == ours
