"""Measures what a Raw Log page costs with a pooled connection versus a new one per call.

zett-agent opens SQLite with NullPool: every call opens an aiosqlite connection, which
is a new thread. zett-browser keeps a small per-loop pool. This script times a 50-row
page both ways on the same store, in one run, and prints the medians and their ratio.

    python benchmarks/connection_reuse.py [--messages 5000] [--rounds 200]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from sqlalchemy import select
from sqlalchemy.ext.asyncio import create_async_engine
from sqlalchemy.pool import NullPool

from zett_browser.storage import SQLiteSessionStorage, UserMessage, open_store
from zett_browser.storage.rows import record_from_row
from zett_browser.storage.sql import RAW_COLUMNS, raw_t


async def build(path: Path, messages: int) -> None:
    storage = SQLiteSessionStorage(path)
    for index in range(messages):
        await storage.append("s", "r", UserMessage(content=f"message {index} " + "x" * 400))
    await storage.close()


async def measure(path: Path, rounds: int) -> dict[str, list[float]]:
    pooled = open_store(path)
    await pooled.raw_page("s", limit=50)
    fresh = create_async_engine(f"sqlite+aiosqlite:///{path}", poolclass=NullPool)
    statement = (
        select(*RAW_COLUMNS).where(raw_t.c.session_id == "s", raw_t.c.sequence > 1000).order_by(raw_t.c.sequence)
    )
    times: dict[str, list[float]] = {"pooled connection": [], "new connection per call": []}
    for _ in range(rounds):
        started = time.perf_counter()
        await pooled.raw_page("s", after_sequence=1000, limit=50)
        times["pooled connection"].append(time.perf_counter() - started)
        started = time.perf_counter()
        async with fresh.connect() as connection:
            rows = (await connection.execute(statement.limit(50))).mappings().all()
            [record_from_row(row) for row in rows]
        times["new connection per call"].append(time.perf_counter() - started)
    await pooled.close()
    await fresh.dispose()
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--messages", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "bench.sqlite3"
        asyncio.run(build(path, args.messages))
        times = asyncio.run(measure(path, args.rounds))
    print(f"50-row Raw Log page, {args.messages} messages, {args.rounds} rounds (ms)")
    print(f"{'':26} {'min':>7} {'median':>7} {'max':>7}")
    for name, values in times.items():
        ms = [value * 1000 for value in values]
        print(f"{name:26} {min(ms):7.3f} {statistics.median(ms):7.3f} {max(ms):7.3f}")
    ratio = statistics.median(times["new connection per call"]) / statistics.median(times["pooled connection"])
    print(f"new connection / pooled: {ratio:.1f}x")


if __name__ == "__main__":
    main()
