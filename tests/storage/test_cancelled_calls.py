"""Storage calls cancelled half-way (a worker replaced, an app quitting under a write).

Cancelled inside the driver, SQLAlchemy used to lose the connection: never returned to
the pool nor closed, its open file kept the -wal/-shm beside the store after every
close (the live demo's quit left both: found by CI). The calls are swept over every
point a cancel can land, one event-loop step at a time, so no timing luck is involved.
"""

from __future__ import annotations

import asyncio
import os
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from tests.support import listing
from zett_browser.storage import SQLiteSessionStorage, UserMessage

pytestmark = pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="counts open files through /proc")

#: Event-loop steps to let a call run before cancelling it (covers the whole call).
STEPS = range(0, 40)


def open_files_under(directory: Path) -> list[str]:
    """The files under ``directory`` this process has open."""
    found = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        if target.startswith(str(directory)):
            found.append(target)
    return found


async def cancel_after(steps: int, call: asyncio.Future[Any]) -> bool:
    """Cancel ``call`` after ``steps`` loop steps; whether it had finished already."""
    for _ in range(steps):
        await asyncio.sleep(0)
    done = call.done()
    call.cancel()
    try:
        await call
    except asyncio.CancelledError:
        pass
    return done


async def test_cancelled_writes_leave_no_connection_and_no_sidecars(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite3"
    storage = SQLiteSessionStorage(path)
    await storage.append("s", "r", UserMessage(content="first"))
    finished = 0
    for steps in STEPS:
        call = asyncio.ensure_future(storage.append("s", "r", UserMessage(content=f"m{steps}")))
        finished += await cancel_after(steps, call)
    assert finished < len(STEPS)  # most cancels landed inside the call
    await storage.close()
    assert open_files_under(tmp_path) == []
    assert sorted(listing(tmp_path)) == ["store.sqlite3"]  # the last close folded the WAL in
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as connection:
        assert connection.execute("pragma integrity_check").fetchone()[0] == "ok"
        sequences = [row[0] for row in connection.execute("select sequence from raw_messages order by sequence")]
    connection.close()
    assert sequences == list(range(1, len(sequences) + 1))  # whole rows, no gap


async def test_cancelled_reads_leave_nothing_beside_a_browsed_store(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite3"
    writer = SQLiteSessionStorage(path)
    for index in range(30):
        await writer.append("s", "r", UserMessage(content=f"m{index}"))
    await writer.close()
    storage = SQLiteSessionStorage.open_for_browsing(path)
    for steps in STEPS:
        await cancel_after(steps, asyncio.ensure_future(storage.list_raw_messages("s")))
        await cancel_after(steps, asyncio.ensure_future(storage.list_sessions(limit=5)))
    assert len(await storage.list_raw_messages("s")) == 30  # the pool still works
    await storage.close()
    assert open_files_under(tmp_path) == []
    assert sorted(listing(tmp_path)) == ["store.sqlite3"]


async def test_close_waits_for_a_call_whose_caller_gave_up(tmp_path: Path) -> None:
    """Closed right after a cancel, the storage lets the statement in flight finish first."""
    path = tmp_path / "store.sqlite3"
    storage = SQLiteSessionStorage(path)
    await storage.append("s", "r", UserMessage(content="first"))
    call = asyncio.ensure_future(storage.append("s", "r", UserMessage(content="second")))
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    call.cancel()
    await storage.close()
    assert open_files_under(tmp_path) == []
    assert sorted(listing(tmp_path)) == ["store.sqlite3"]


async def test_close_does_not_wait_forever_for_a_call_that_hangs() -> None:
    """A server that stopped answering: the call left behind is cancelled after the drain's time."""
    from zett_browser.storage.inflight import InFlight

    calls = InFlight()
    hanging = asyncio.Event()
    caller = asyncio.ensure_future(calls.run(hanging.wait()))
    await asyncio.sleep(0)
    caller.cancel()
    loop = asyncio.get_running_loop()
    started = loop.time()
    await calls.drain(timeout=0.2)
    assert loop.time() - started < 1.0
    assert not calls._tasks, "the hanging call was cancelled and forgotten"


def test_a_close_on_a_new_loop_closes_the_pool_of_a_loop_that_is_gone(tmp_path: Path) -> None:
    """The app's loop ended before its storage was closed (SIGTERM during the unmount's
    close); ``run_app`` closes the storage again on a new loop. The gone loop's pool was let
    go unclosed: each aiosqlite connection lives in a thread of its own, so its file stayed
    open, and the -wal/-shm stayed beside the store (found by CI, one run in four)."""
    from tests.adversarial.damage import copy_fixture
    from zett_browser.storage import open_store

    store = copy_fixture("storage_api", tmp_path)
    before = listing(tmp_path)
    storage = open_store(store)

    async def browse() -> None:
        await storage.list_roots(limit=1)

    asyncio.run(browse())  # the loop is closed, its pool still holds a connection
    assert open_files_under(tmp_path)
    asyncio.run(storage.close())
    assert open_files_under(tmp_path) == []
    assert listing(tmp_path) == before
