"""Reading a WAL store while another process appends to it, as a running agent does.

The read-only promise is checked against the real zett-agent 0.2.1 writing from its own
process (``tests/zett_agent_env.py``): closing the browsing storage never changes the
store's bytes, whether the writer exits before or after us, and never writes into a file
restored from a backup meanwhile.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import shutil
import sqlite3
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support import FIXTURES, listing
from zett_browser.storage import SQLiteSessionStorage, UserMessage, open_store

WRITER = textwrap.dedent(
    """
    import asyncio, sys, time
    sys.path.insert(0, {root!r})
    from zett_browser.storage import SQLiteSessionStorage, UserMessage, CompactedMessage

    async def main():
        storage = SQLiteSessionStorage({path!r})
        started = time.monotonic()
        for index in range({count}):
            await storage.append("live", "r", UserMessage(content=f"m{{index}}"))
            if index == {count} // 2:
                await storage.snapshot("live", CompactedMessage(content="half"), index, 0)
                await storage.create_session(session_id="child", parent_session_id="live")
            await asyncio.sleep(0.005)
        await storage.close()
        print("WRITER_SECONDS", time.monotonic() - started)

    asyncio.run(main())
    """
)


async def test_reader_sees_commits_while_another_process_writes(tmp_path: Path) -> None:
    path = tmp_path / "live.sqlite3"
    seed = SQLiteSessionStorage(path)
    await seed.append("live", "r", UserMessage(content="seed"))
    await seed.close()
    count = 200
    script = WRITER.format(root=str(Path(__file__).parents[2]), path=str(path), count=count)
    writer = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    reader = open_store(path)
    observed: list[int] = []
    saw_snapshot = saw_child = False
    deadline = time.monotonic() + 60
    try:
        while writer.poll() is None and time.monotonic() < deadline:
            bounds = await reader.raw_bounds("live")
            observed.append(bounds.count)
            # A page read on the same connection pool right after: never older than the count.
            page = await reader.raw_page_before("live", limit=5)
            assert page and page[-1].sequence >= bounds.last_sequence  # type: ignore[operator]
            saw_snapshot = saw_snapshot or bool(await reader.list_snapshots("live"))
            saw_child = saw_child or bool((await reader.list_children("live")).items)
            await asyncio.sleep(0.01)
        out, err = writer.communicate(timeout=60)
        assert writer.returncode == 0, err
        final = await reader.raw_bounds("live")
        assert final.count == count + 1
        assert saw_snapshot or (await reader.list_snapshots("live"))
        assert saw_child or (await reader.list_children("live")).items
    finally:
        await reader.close()
    assert observed == sorted(observed), "the reader never goes back in time"
    assert len(set(observed)) > 3, f"the reader saw rows arrive while they were written: {observed[:20]}"
    writer_seconds = float(out.split()[-1])
    assert writer_seconds < 30, "the writer was not blocked for long by the reader"
    # The writer exited while we were attached, so it could not checkpoint: its commits
    # live only in the -wal, which therefore stays (the next writer folds it in).
    assert (tmp_path / "live.sqlite3-wal").stat().st_size > 0
    folder = SQLiteSessionStorage(path)
    assert (await folder.raw_bounds("live")).count == count + 1
    await folder.close()
    assert sorted(listing(tmp_path)) == ["live.sqlite3"], "after the next writer: no -wal/-shm left behind"


# --------------------------------------------------------------------------- real zett-agent writer

AGENT_WRITER = textwrap.dedent(
    """
    import asyncio, sys
    from zett_agent.storage import SQLiteSessionStorage, UserMessage

    async def main():
        storage = SQLiteSessionStorage(sys.argv[1])
        for index in range(int(sys.argv[2])):
            await storage.append("agent-live", "r", UserMessage(content=f"m{index}"))
        print("WROTE", flush=True)
        if sys.argv[3] == "wait":
            sys.stdin.readline()
        await storage.close()
        print("CLOSED", flush=True)

    asyncio.run(main())
    """
)


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


class AgentWriter:
    """zett-agent 0.2.1 appending to a store from its own process."""

    def __init__(self, python: Path, store: Path, count: int, *, wait: bool) -> None:
        env = {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME"}}
        self.process = subprocess.Popen(
            [str(python), "-c", AGENT_WRITER, str(store), str(count), "wait" if wait else "exit"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        assert line.strip() == "WROTE", self.process.stderr.read() if self.process.stderr else line

    def finish(self) -> None:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write("\n")
        self.process.stdin.close()
        out = self.process.stdout.read()  # the lines after WROTE, read through the same buffer
        self.process.wait(timeout=60)
        err = self.process.stderr.read() if self.process.stderr else ""
        assert self.process.returncode == 0 and "CLOSED" in out, err


@pytest.fixture
def agent_store(tmp_path: Path) -> Iterator[Path]:
    """A copy of the zett-agent-written fixture, alone in its directory."""
    directory = tmp_path / "store"
    directory.mkdir()
    store = directory / "sessions.sqlite3"
    shutil.copy(FIXTURES / "agent_run.sqlite3", store)
    yield store


def integrity_of_main_file_alone(store: Path, scratch: Path) -> str:
    """``PRAGMA integrity_check`` of the store's main file only (no -wal beside the copy)."""
    scratch.mkdir(exist_ok=True)
    copy = scratch / "alone.sqlite3"
    shutil.copyfile(store, copy)
    with sqlite3.connect(copy) as connection:
        result = connection.execute("pragma integrity_check").fetchone()[0]
    connection.close()
    return str(result)


async def test_closing_after_the_agent_exited_keeps_the_store_bytes(agent_store: Path, zett_agent_py: Path) -> None:
    """(a) The agent appends and exits while we browse: our close writes nothing into the store."""
    storage = open_store(agent_store)
    before = await storage.list_sessions(limit=1000)
    AgentWriter(zett_agent_py, agent_store, 5, wait=False).finish()
    after_writer = sha256(agent_store)
    assert len(await storage.list_sessions(limit=1000)) == len(before) + 1
    assert (await storage.raw_bounds("agent-live")).count == 5
    await storage.close()
    assert sha256(agent_store) == after_writer, "closing the browser checkpointed the agent's WAL into the store"


async def test_closing_while_the_agent_still_runs_keeps_the_store_bytes(agent_store: Path, zett_agent_py: Path) -> None:
    """(b) The agent process still runs when we close: the store's bytes are unchanged by our close.

    zett-agent opens a connection per call, so between calls its process holds none and
    our connection is the last one: with ``mode=rw`` its close checkpointed the agent's WAL.
    """
    storage = open_store(agent_store)
    await storage.list_sessions()
    writer = AgentWriter(zett_agent_py, agent_store, 5, wait=True)
    assert (await storage.raw_bounds("agent-live")).count == 5
    before_close = sha256(agent_store), listing(agent_store.parent)
    await storage.close()
    assert (sha256(agent_store), listing(agent_store.parent)) == before_close
    writer.finish()
    assert (sha256(agent_store), listing(agent_store.parent)) == before_close
    # The agent's commits are only in its -wal, which stays for its next call to fold in.
    assert (agent_store.parent / "sessions.sqlite3-wal").stat().st_size > 0


@pytest.mark.parametrize("how", ["copyfile in place", "rename over"])
async def test_a_backup_restored_while_browsing_is_not_written_into(
    agent_store: Path, zett_agent_py: Path, tmp_path: Path, how: str
) -> None:
    """(c) A backup replaces the store while we browse, after the agent wrote: our close leaves it intact."""
    backup = tmp_path / "backup.sqlite3"
    shutil.copyfile(agent_store, backup)
    storage = open_store(agent_store)
    await storage.list_sessions()
    AgentWriter(zett_agent_py, agent_store, 5, wait=False).finish()
    assert (await storage.raw_bounds("agent-live")).count == 5
    if how == "copyfile in place":
        shutil.copyfile(backup, agent_store)
    else:
        staged = agent_store.with_name("staged.sqlite3")
        shutil.copyfile(backup, staged)
        os.replace(staged, agent_store)
    await storage.close()
    assert sha256(agent_store) == sha256(backup)
    assert integrity_of_main_file_alone(agent_store, tmp_path / "check") == "ok"


@pytest.mark.parametrize("agent_wrote", [False, True])
async def test_a_store_deleted_while_browsing_is_not_recreated(
    agent_store: Path, zett_agent_py: Path, agent_wrote: bool
) -> None:
    """(d) The store is deleted while open: our close recreates nothing and leaves nothing.

    When the agent wrote meanwhile, its -wal (found by name only) would be applied to the
    next store created at that path: an orphan -wal is removed too.
    """
    storage = open_store(agent_store)
    await storage.list_sessions()
    if agent_wrote:
        AgentWriter(zett_agent_py, agent_store, 5, wait=False).finish()
        assert (agent_store.parent / "sessions.sqlite3-wal").stat().st_size > 0
    agent_store.unlink()
    await storage.close()
    assert listing(agent_store.parent) == {}


@pytest.mark.parametrize("exits", [False, True], ids=["agent running", "agent exited"])
async def test_opening_the_store_again_keeps_the_open_connections_locks(
    agent_store: Path, zett_agent_py: Path, exits: bool
) -> None:
    """Review case, found when the busy follow benchmark stopped showing new rows (or read
    a "malformed" store): the app opens the storage while its start-up reader's connection
    is open, and the file check read the header through a descriptor of its own. Closing
    it dropped the process's POSIX locks on the store, so zett-agent, closing its
    connection after each call, found itself the last one: it checkpointed and deleted
    the -wal under our open connection, which then read a stale store."""
    storage = open_store(agent_store)
    await storage.list_sessions()  # a pooled connection is open (it holds its shared lock)
    again = open_store(agent_store)  # the file is checked again, as the app's storage does
    writer = AgentWriter(zett_agent_py, agent_store, 5, wait=not exits)
    if exits:
        writer.finish()
    wal = agent_store.parent / "sessions.sqlite3-wal"
    assert wal.exists() and wal.stat().st_size > 0, "the agent found itself alone and removed its -wal"
    assert (await storage.raw_bounds("agent-live")).count == 5, "the open connection reads the agent's commits"
    assert (await again.raw_bounds("agent-live")).count == 5
    if not exits:
        writer.finish()
    await again.close()
    await storage.close()
