"""The first build of a large SQLite store's index runs in a child process of the app (issue 29).

In the app's process the build's worker threads held the GIL while a key waited; in a
child, at a lower priority, the kernel serves the app first. These tests run the real
child (``python -m zett_browser.index.child``) on zett-agent-written stores, with the size
threshold lowered: it builds the same index as a build in process, stops when the app
closes (nothing left running, nothing left beside the store), stops when its parent is
gone, and when it fails the sync in process reports the typed error.
"""

from __future__ import annotations

import asyncio
import sqlite3
import subprocess
import sys
from collections.abc import AsyncGenerator
from pathlib import Path
from typing import Any, cast

import pytest

from tests.adversarial import damage as d
from zett_browser.index import SideIndex, child
from zett_browser.index.search_service import IndexSearch, Step
from zett_browser.safefiles import UnsafePath
from zett_browser.storage import open_store


def _tables(path: Path) -> dict[str, list[tuple[Any, ...]]]:
    db = sqlite3.connect(path)
    try:
        names = [name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        tables = {
            name: sorted(db.execute(f'SELECT * FROM "{name}"').fetchall(), key=repr)
            for name in names
            if name != "meta" and not name.startswith("fts_")
        }
        tables["fts"] = db.execute("SELECT rowid, body FROM fts ORDER BY rowid").fetchall()
        tables["state"] = db.execute("SELECT value FROM meta WHERE key = 'state'").fetchall()
        return tables
    finally:
        db.close()


def _state(path: Path) -> str | None:
    db = sqlite3.connect(path)
    try:
        row = db.execute("SELECT value FROM meta WHERE key = 'state'").fetchone()
        return row[0] if row else None
    finally:
        db.close()


def _process_state(pid: int) -> str | None:
    """The kernel's state letter of process ``pid`` (``T``: stopped); None without /proc."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return None


def _big_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A 20,000-message store whose first build runs in a child (the size limit off)."""
    from benchmarks.bigstore import build as build_big

    monkeypatch.setattr(child, "CHILD_MIN_BYTES", 0)
    store = tmp_path / "store.sqlite3"
    build_big(store, messages=20_000, sessions=20, big=10_000, fanout=3)
    return store


async def _first_step(service: IndexSearch) -> tuple[AsyncGenerator[Step, None], Step, Any]:
    """Start ``service``'s sync: its steps, the first one, and the child building (running)."""
    steps = cast("AsyncGenerator[Step, None]", service.steps())
    first = await anext(steps)
    running = service._child
    assert running is not None and running.process is not None and first.done < first.total
    return steps, first, running


async def _stopped(pid: int) -> bool:
    """Whether process ``pid`` is seen stopped within 5 s (a signal is delivered asynchronously)."""
    for _ in range(500):
        if _process_state(pid) in ("T", None):
            return True
        await asyncio.sleep(0.01)
    return False


def test_who_builds_in_a_child(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = d.copy_fixture("agent_run", tmp_path)
    index = tmp_path / "index" / "i.sqlite3"
    assert child.child_command(store, index) is None  # a small store builds in process
    monkeypatch.setattr(child, "CHILD_MIN_BYTES", 0)
    command = child.child_command(store, index)
    assert command is not None and command[1:3] == ["-m", "zett_browser.index.child"]
    assert child.child_command(None, index) is None  # not a SQLite store
    assert child.child_command(tmp_path / "missing.sqlite3", index) is None


async def test_the_child_builds_the_index_a_build_in_process_builds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(child, "CHILD_MIN_BYTES", 0)
    store = d.copy_fixture("storage_api", tmp_path)
    storage = open_store(store)
    try:
        service = IndexSearch(storage, tmp_path / "child")
        steps = [step async for step in service.steps()]
        assert service.built_in_child and steps[-1].finished
        assert child.child_command(store, service.path) is None  # complete: the next sync is in process
        in_process = SideIndex(storage, tmp_path / "process")
        await in_process.sync()
    finally:
        await storage.close()
    assert _tables(service.path) == _tables(in_process.path)
    assert sorted(item.name for item in tmp_path.iterdir()) == ["child", "process", store.name]


async def test_closing_the_app_stops_the_child(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``close()`` (the app quitting) ends the child; the unfinished index is rebuilt next time."""
    store = _big_store(tmp_path, monkeypatch)
    before = d.sha256(store)
    storage = open_store(store)
    try:
        service = IndexSearch(storage, tmp_path / "index")
        steps, first, running = await _first_step(service)
        assert await _stopped(running.process.pid)  # stopped while the app holds the step
        second = await anext(steps)  # asked for the next step: it went on
        assert second.done >= first.done and await _stopped(running.process.pid)
        await service.close()
        assert running.process.returncode is not None  # ended, not left running
        assert [step async for step in steps] == []
        await steps.aclose()
    finally:
        await storage.close()
    assert not service.built_in_child and _state(service.path) == "building"
    assert d.sha256(store) == before and sorted(item.name for item in tmp_path.iterdir()) == ["index", store.name]


async def test_a_key_stops_the_child_at_once_and_a_pause_lets_it_go_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Between two reports the child runs (a commit of its batches can take a second or more):
    ``hold_background(True)`` (a key) stops it there, without waiting for its next report;
    ``False`` (the keys paused) lets it go on to the end."""
    store = _big_store(tmp_path, monkeypatch)
    storage = open_store(store)
    try:
        service = IndexSearch(storage, tmp_path / "index")
        steps, first, running = await _first_step(service)
        service.hold_background(True)  # a key, while the app holds a step
        following = asyncio.ensure_future(anext(steps))  # the app lets go of the step: not the key
        assert await _stopped(running.process.pid)
        for _ in range(30):  # it stays stopped: no report comes
            await asyncio.sleep(0.01)
            assert _process_state(running.process.pid) in ("T", None) and not following.done()
        service.hold_background(False)  # the keys paused
        await following
        rest = [step async for step in steps]
        assert rest and rest[-1].finished and service.built_in_child
    finally:
        await storage.close()
    assert _state(service.path) == "complete"


def test_the_child_stops_when_its_parent_is_gone(tmp_path: Path) -> None:
    from benchmarks.bigstore import build as build_big

    store = tmp_path / "store.sqlite3"
    build_big(store, messages=20_000, sessions=20, big=10_000, fanout=3)
    index_dir = tmp_path / "index"
    process = subprocess.Popen(
        [sys.executable, "-m", "zett_browser.index.child", str(store), str(index_dir)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert process.stdout is not None
    process.stdout.readline()  # it started building
    process.stdout.close()  # the parent is gone: its next line has nowhere to go
    assert process.wait(timeout=120) != 0
    (path,) = index_dir.glob("*.sqlite3")
    assert _state(path) == "building"
    assert sorted(item.name for item in tmp_path.iterdir()) == ["index", store.name]


async def test_a_child_that_fails_leaves_the_error_to_the_sync_in_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(child, "CHILD_MIN_BYTES", 0)
    (tmp_path / "store").mkdir()
    store = d.copy_fixture("agent_run", tmp_path / "store")
    (tmp_path / "index").write_text("a file where the index directory should be")
    storage = open_store(store)
    try:
        service = IndexSearch(storage, tmp_path / "index")
        with pytest.raises(UnsafePath, match="is a file, not a directory"):
            await asyncio.wait_for(_drain(service), 60)
        assert not service.built_in_child
    finally:
        await storage.close()


async def _drain(service: IndexSearch) -> None:
    async for _ in service.steps():
        pass


async def test_in_the_app_a_key_stops_the_child_build_and_a_pause_lets_it_finish(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The app end to end: its first build runs in a child; a key (as the terminal driver
    sends it) stops the child at once, and once the keys pause the build finishes."""
    from textual import events

    from benchmarks.bigstore import build as build_big
    from tests.ui.search_helpers import app_on, main_screen, until
    from zett_browser.screens import quiet
    from zett_browser.startup.lazysearch import LazySearch

    monkeypatch.setattr(child, "CHILD_MIN_BYTES", 0)
    monkeypatch.setattr(quiet, "QUIET_S", 0.5)  # the app's pause of the keys (the tests' default: none)
    store = tmp_path / "store.sqlite3"
    build_big(store, messages=40_000, sessions=20, big=20_000, fanout=3)
    app = app_on(store, tmp_path / "index")
    async with app.run_test(size=(120, 30)) as pilot:
        await until(pilot, lambda: len(app.screen_stack) > 1)
        search = app.options.search
        assert isinstance(search, LazySearch)

        def running() -> Any:
            real = search._real
            return None if real is None or real._child is None else real._child.process

        await until(pilot, lambda: running() is not None, 30)
        process = running()
        driver = app._driver
        assert driver is not None
        driver.send_message(events.Key("j", "j"))
        assert await _stopped(process.pid), "a key stops the child at once"
        for _ in range(20):  # and keeps it stopped while keys keep coming
            driver.send_message(events.Key("j", "j"))
            await asyncio.sleep(0.02)
            assert _process_state(process.pid) in ("T", None)
        await until(pilot, lambda: main_screen(app).index_state.built, 60)  # the keys paused: it went on
        assert search._real is not None and search._real.built_in_child
