"""Reading a WAL store while another process appends to it, as a running agent does."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from tests.support import listing
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
    assert sorted(listing(tmp_path)) == ["live.sqlite3"], "both closed: no -wal/-shm left behind"
