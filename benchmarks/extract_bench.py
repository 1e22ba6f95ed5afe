"""Provides the index extractor's throughput: rows a second through ``writer.prepare_raw``.

``prepare_raw`` (decode, texts, qualifier facts, usage facts) runs for every row of a
store when the index is built, so a change to the extractor shows up here first. It
reads the rows of a store once (the scan is not timed), then times ``prepare_raw`` over
all of them, ``--rounds`` times, and prints the best wall rate and the CPU time per row
(best and median: CPU time moves much less than wall time on a shared machine). ``--runtime`` first
writes a copy of the store whose rows look like what zett-agent 0.2.1 writes: every
assistant row with a ``model_request_trace`` attribute (~1.3 KB), one in a hundred with
server-tool ``replay_blocks``, every tool result of a tenth of the sessions skipped by
steering.

    python benchmarks/bigstore.py /tmp/100k.sqlite3 --messages 100000 --sessions 1000
    python benchmarks/extract_bench.py /tmp/100k.sqlite3 [--runtime] [--rounds 3]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import sqlite3
import statistics
import time
from pathlib import Path

from zett_browser.index.writer import prepare_raw
from zett_browser.storage import SQLSessionStorage, scan

TRACE = {
    "schema_version": 1,
    "tools": [
        {
            "name": f"tool_{number}",
            "description": "Reads a file from the workspace and returns its text " * 2,
            "parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
            "deferred": False,
        }
        for number in range(6)
    ],
    "server_tools": [{"type": "web_search_20260318", "configuration": {"name": "web_search"}}],
}
BLOCKS = [
    {"type": "server_tool_use", "id": "srvtoolu_01", "name": "web_search", "input": {"query": "sqlite wal mode"}},
    {
        "type": "web_search_tool_result",
        "tool_use_id": "srvtoolu_01",
        "content": [
            {"type": "web_search_result", "url": "https://sqlite.org/wal.html", "title": "Write-Ahead Logging"},
        ],
    },
]


def runtime_copy(store: Path) -> Path:
    """A copy of ``store`` whose rows carry what the real runtime adds (see the module doc)."""
    out = store.with_name(store.stem + "-runtime.sqlite3")
    if out.exists():
        return out
    shutil.copyfile(store, out)
    db = sqlite3.connect(out)
    rows = db.execute("SELECT id, role, message_json, session_id FROM raw_messages WHERE role IN (3, 4)").fetchall()
    updates = []
    for number, (row_id, role, payload, session_id) in enumerate(rows):
        items = json.loads(payload)
        data = items[0]["data"]
        if role == 3:
            data["attributes"] = {"model_request_trace": TRACE}
            if number % 100 == 0:
                data["replay_blocks"] = BLOCKS
        elif int(session_id[-2:], 16) % 10 == 0:
            data["content"], data["success"] = "Superseded by a steering message", False
        updates.append((json.dumps(items), row_id))
    db.executemany("UPDATE raw_messages SET message_json = ? WHERE id = ?", updates)
    db.commit()
    db.close()
    return out


async def read_rows(store: Path) -> list:  # type: ignore[type-arg]
    storage = SQLSessionStorage.open_for_browsing(store)
    try:
        return await scan.raw_scan(storage.reader, None, 10_000_000)
    finally:
        await storage.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("store", type=Path)
    parser.add_argument("--runtime", action="store_true", help="time a copy shaped like the real runtime's rows")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    store = runtime_copy(args.store) if args.runtime else args.store
    rows = asyncio.run(read_rows(store))
    rates, cpu = [], []
    for _ in range(args.rounds):
        started, started_cpu = time.perf_counter(), time.process_time()
        prepare_raw(rows, None)
        rates.append(len(rows) / (time.perf_counter() - started))
        cpu.append((time.process_time() - started_cpu) / len(rows) * 1e6)
    print(
        f"{store.name}: {len(rows):,} rows; prepare_raw best {max(rates):,.0f} rows/s wall, "
        f"CPU best {min(cpu):.2f} µs/row, median {statistics.median(cpu):.2f} µs/row ({args.rounds} rounds)"
    )


if __name__ == "__main__":
    main()
