"""The fast start's lazy storage (zett_browser/startup/launch.py) on real zett-agent stores.

The storage behind a :class:`LazyStore` is imported and opened on a thread at first need:
its coroutine calls must give what the storage gives, without blocking the loop; its name
is known before; closing it before it was ever opened must still release what the start-up
reader's guard records; a failure to open surfaces at the call that needed the storage.
"""

from __future__ import annotations

import asyncio
import inspect
import shutil
import threading
from pathlib import Path

import pytest

from tests.support import AGENT_RUN_ROOT, FIXTURES, listing
from zett_browser.model.store import BrowsingStore
from zett_browser.startup import launch
from zett_browser.startup.launch import LazyStore, resolve, sqlite_path
from zett_browser.storage import SQLSessionStorage, StoreNotFoundError, open_store
from zett_browser.storage.target import DEFAULT_PATH


def copy_of(name: str, directory: Path) -> Path:
    target = directory / f"{name}.sqlite3"
    shutil.copy(FIXTURES / f"{name}.sqlite3", target)
    return target


def test_store_arguments_resolve_as_the_storage_resolves_them(tmp_path: Path) -> None:
    assert launch.DEFAULT_STORE == DEFAULT_PATH
    assert sqlite_path(None) == DEFAULT_PATH.expanduser()
    assert sqlite_path("postgresql://user:pw@host/db") is None
    assert sqlite_path("sqlite:///x.sqlite3") is None, "URLs are the storage's to parse"
    assert sqlite_path("rel/store.sqlite3") == Path("rel/store.sqlite3").absolute()
    assert sqlite_path(tmp_path / "odd ?#%.sqlite3") == tmp_path / "odd ?#%.sqlite3"


def test_the_start_up_reader_reads_the_roots_page_the_screen_asks_for() -> None:
    from zett_browser.screens.watch import ROOTS_PAGE

    assert inspect.signature(launch.begin).parameters["roots_page"].default == ROOTS_PAGE


def test_every_store_query_is_awaited_and_nothing_else_is_forwarded() -> None:
    queries = {
        name
        for name in dir(BrowsingStore)
        if not name.startswith("_") and inspect.iscoroutinefunction(getattr(BrowsingStore, name))
    }
    assert {"list_roots", "raw_page", "change_token", "get_node", "close"} <= queries
    for name in queries | {"release_loop"}:
        assert inspect.iscoroutinefunction(getattr(LazyStore, name)), name
    assert not hasattr(LazyStore, "__getattr__"), "written out, so mypy checks it against the protocol"


async def test_calls_before_the_storage_is_open_wait_for_it_and_get_its_answers(tmp_path: Path) -> None:
    path = copy_of("agent_run", tmp_path)
    opened: list[str] = []
    gate = threading.Event()

    def opener() -> SQLSessionStorage:
        gate.wait(5)  # still importing/opening when the call comes
        opened.append(threading.current_thread().name)
        return open_store(path)

    lazy = LazyStore(opener, "shown name", release=lambda: None)
    direct = open_store(path)
    try:
        assert lazy.display_name == "shown name", "known before the storage is"
        call = asyncio.ensure_future(lazy.list_roots(limit=5))
        await asyncio.sleep(0.05)
        assert not call.done(), "it waits for the storage"
        ticks = 0

        async def tick() -> None:
            nonlocal ticks
            while not call.done():
                ticks += 1
                await asyncio.sleep(0.01)

        ticker = asyncio.ensure_future(tick())
        await asyncio.sleep(0.1)
        gate.set()
        roots = await call
        await ticker
        assert ticks >= 5, "the loop kept running while the storage opened"
        assert roots == await direct.list_roots(limit=5)
        assert roots.items[0].session_id == AGENT_RUN_ROOT
        lazy.preload()
        lazy.preload()
        assert opened == ["zett-browser storage import"], "opened once, on its own thread"
        assert await resolve(lazy) is lazy.loaded()
        assert lazy.loaded().path == path, "the storage's own attributes come from the storage itself"
        assert not hasattr(lazy, "path"), "the stand-in has the protocol's calls only"
    finally:
        await lazy.close()
        await direct.close()
    assert listing(tmp_path) == {"agent_run.sqlite3": (FIXTURES / "agent_run.sqlite3").stat().st_size}


async def test_closing_a_storage_never_opened_only_releases(tmp_path: Path) -> None:
    released: list[bool] = []

    def opener() -> SQLSessionStorage:
        raise AssertionError("closing must not open the storage")

    lazy = LazyStore(opener, "x", release=lambda: released.append(True))
    await lazy.close()
    assert released == [True]


async def test_a_storage_that_cannot_open_fails_the_call_that_needs_it(tmp_path: Path) -> None:
    path = copy_of("agent_run", tmp_path)
    lazy = LazyStore(lambda: open_store(path), "x", release=lambda: None)
    path.unlink()  # gone between the start-up check and the first call
    with pytest.raises(StoreNotFoundError):
        await lazy.raw_bounds(AGENT_RUN_ROOT)
    with pytest.raises(StoreNotFoundError):
        await lazy.list_roots(limit=1)
    await lazy.close()
