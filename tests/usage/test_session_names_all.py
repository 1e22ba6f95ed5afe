"""``usage --by session`` names every session (issue 25: it named the first 1,000 only, the
rest showed their ids), within a time budget that a huge store cannot exceed.

The budget is given here, not the shipped 5 s: how many batches fit in 5 s depends on the
machine's load (a CI run under load named 800 of 1,234), and speed is the benchmarks' job."""

from __future__ import annotations

import uuid
from pathlib import Path

from zett_browser.cli.usage_sessions import session_labels_of
from zett_browser.storage import SQLiteSessionStorage, UserMessage, open_store

COUNT = 1_234


async def test_every_session_of_a_store_past_a_thousand_is_named(tmp_path: Path) -> None:
    path = tmp_path / "many.sqlite3"
    writer = SQLiteSessionStorage(path)
    ids = [str(uuid.UUID(int=n + 1)) for n in range(COUNT)]
    try:
        for n, session_id in enumerate(ids):
            await writer.append(session_id, "r", UserMessage(content=f"Prompt number {n} about topic {n % 7}"))
    finally:
        await writer.close()
    # Read as the command does (its own loop; this test's loop is busy, so run it on a thread).
    import asyncio

    labels = await asyncio.to_thread(session_labels_of, open_store(path), ids, 600.0)
    assert len(labels) == COUNT
    assert labels[ids[-1]] == f"Prompt number {COUNT - 1} about topic {(COUNT - 1) % 7}"
    # A budget spent before the first batch names none (the index's names stand in).
    assert await asyncio.to_thread(session_labels_of, open_store(path), ids, -1.0) == {}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["many.sqlite3"]
