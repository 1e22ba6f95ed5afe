"""Times a cold side-index build next to its SQL floor, in one run (issue 29).

The floor is what the build cannot beat: one ``INSERT … SELECT`` of the very texts the
index holds (read back from the built index's FTS table) into a fresh FTS5 table with
the same tokenizer, prefix indexes and merge settings (``index.db.FTS_SETTINGS``), in one
transaction. It has the same text
coverage by construction and none of the build's other work (decoding the store,
facts, usage totals, the docs table). Each build goes into a new directory (cold); the
load average is printed beside each figure, as the machine is shared.

    python benchmarks/index_floor.py --store ~/.cache/zett-browser-bench/1M-v3.sqlite3
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import sqlite3
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from zett_browser.index import SideIndex
from zett_browser.index.db import FTS_SETTINGS
from zett_browser.storage import SQLSessionStorage


async def build(store: Path, directory: Path) -> dict[str, float]:
    """A cold build: wall and CPU seconds, index size, documents."""
    index = SideIndex(SQLSessionStorage.open_for_browsing(store), directory)
    wall, cpu = time.perf_counter(), time.process_time()
    try:
        report = await index.sync()
    finally:
        await index.storage.close()
    return {
        "seconds": time.perf_counter() - wall,
        "cpu": time.process_time() - cpu,
        "bytes": index.path.stat().st_size,
        "messages": report.messages,
        "path": str(index.path),  # type: ignore[dict-item]
    }


def floor(index: Path, out: Path, *, tuned: bool = True) -> float:
    """Seconds to put the index's texts into a fresh FTS5 table in one ``INSERT … SELECT``
    (``tuned``: with the build's FTS5 settings; else SQLite's defaults, the floor as issue 29
    first defined it)."""
    db = sqlite3.connect(out, isolation_level=None)
    try:
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=OFF")
        db.execute("CREATE VIRTUAL TABLE fts USING fts5(body, tokenize='unicode61 remove_diacritics 2', prefix='2 3')")
        # The FTS5 settings the build writes with (fewer merges): the floor gets them too.
        db.executemany("INSERT INTO fts(fts, rank) VALUES (?, ?)", FTS_SETTINGS if tuned else ())
        db.execute("ATTACH DATABASE ? AS built", (f"file:{index}?mode=ro",))
        started = time.perf_counter()
        db.execute("BEGIN")
        db.execute("INSERT INTO fts(rowid, body) SELECT rowid, body FROM built.fts")
        db.execute("COMMIT")
        return time.perf_counter() - started
    finally:
        db.close()


def load() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--store", type=Path, required=True)
    parser.add_argument("--keep", action="store_true", help="keep the built index files")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="zib-floor-"))
    store = args.store.expanduser()
    print(f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC, store {store.stat().st_size / 1e6:,.0f} MB, load {load()}")
    try:
        python = asyncio.run(build(store, work / "python"))
        print(
            f"build (Python extractor): {python['seconds']:.1f} s wall, {python['cpu']:.1f} s CPU,"
            f" {python['messages']:,.0f} messages, index {python['bytes'] / 1e6:,.0f} MB"
            f" ({python['bytes'] / store.stat().st_size:.2f}x the store); load {load()}"
        )
        seconds = floor(Path(str(python["path"])), work / "floor.sqlite3")
        print(f"floor (one INSERT … SELECT of the same texts into FTS5): {seconds:.1f} s; load {load()}")
        default = floor(Path(str(python["path"])), work / "floor-default.sqlite3", tuned=False)
        print(f"the same with SQLite's default FTS5 settings: {default:.1f} s; load {load()}")
        print(f"build: {python['seconds'] / seconds:.2f}x the floor ({python['seconds'] / default:.2f}x the default's)")
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
