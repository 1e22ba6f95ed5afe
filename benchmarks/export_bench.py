"""Export throughput and memory: a 100,000-message session in each format.

Builds a store whose one session holds N messages (the rows of the real zett-agent run in
``tests/fixtures/agent_run.sqlite3`` repeated, with new ids and sequences, written with the
stdlib ``sqlite3``), then exports it in md, html and json, each in its own process, and
prints messages/s, MB/s and the process's peak RSS. Run with two sizes (10,000 and
100,000 by default): a flat memory profile means the peak RSS does not grow with N.

    python benchmarks/export_bench.py [--sizes 10000 100000] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "tests" / "fixtures" / "agent_run.sqlite3"
SOURCE = "0193a5c0-0000-7000-8000-00000000a9e1"
SESSION = "bench-export-session"

CHILD = r"""
import asyncio, json, resource, sys, time
from pathlib import Path
from zett_browser.export import ExportOptions
from zett_browser.export.files import export_file
from zett_browser.storage import open_store

async def ticker(stalls):
    # How long the event loop is held between two turns (the app exports on its loop).
    last = time.perf_counter()
    while True:
        await asyncio.sleep(0.001)
        now = time.perf_counter()
        stalls.append(now - last)
        last = now

async def main(store, session, fmt, out):
    storage = open_store(store)
    stalls = []
    tick = asyncio.create_task(ticker(stalls))
    try:
        started, cpu = time.perf_counter(), time.process_time()
        report = await export_file(storage, session, ExportOptions(format=fmt), Path(out), force=True)
        seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    finally:
        tick.cancel()
        await storage.close()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    size = Path(out).stat().st_size
    stalls.sort()
    held = {"held_p99_ms": stalls[int(len(stalls) * 0.99)] * 1000, "held_max_ms": stalls[-1] * 1000}
    figures = {"messages": report.messages, "seconds": seconds, "cpu": cpu, "bytes": size, "rss_mb": peak}
    print(json.dumps({**figures, **held}))

asyncio.run(main(*sys.argv[1:]))
"""


def build(path: Path, count: int) -> None:
    """A copy of the fixture with one more session of ``count`` messages."""
    shutil.copyfile(FIXTURE, path)
    connection = sqlite3.connect(path, isolation_level=None)
    try:
        columns = [row[1] for row in connection.execute("pragma table_info(raw_messages)")]
        rows = connection.execute(
            f"select {', '.join(columns)} from raw_messages where session_id = ? order by sequence", (SOURCE,)
        ).fetchall()
        session = connection.execute("select * from agent_sessions where id = ?", (SOURCE,)).fetchone()
        connection.execute("begin")
        connection.execute("insert into agent_sessions values (?, ?, ?, ?, ?, ?, ?)", (SESSION, None, *session[2:]))
        at = {name: index for index, name in enumerate(columns)}
        batch = []
        for sequence in range(1, count + 1):
            row = list(rows[(sequence - 1) % len(rows)])
            row[at["id"]] = str(uuid.uuid4())
            row[at["session_id"]] = SESSION
            row[at["sequence"]] = sequence
            batch.append(row)
            if len(batch) == 10_000:
                connection.executemany(f"insert into raw_messages values ({', '.join('?' * len(columns))})", batch)
                batch = []
        if batch:
            connection.executemany(f"insert into raw_messages values ({', '.join('?' * len(columns))})", batch)
        connection.execute("commit")
    finally:
        connection.close()


def run(store: Path, fmt: str, out: Path) -> dict[str, float]:
    result = subprocess.run(
        [sys.executable, "-c", CHILD, str(store), SESSION, fmt, str(out)],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    return json.loads(result.stdout)  # type: ignore[no-any-return]


def floor(store: Path, out: Path) -> tuple[float, float]:
    """``sqlite3 -json`` writing the session's ``raw_messages`` rows: wall and CPU seconds (the floor)."""
    query = f"select * from raw_messages where session_id = '{SESSION}' order by sequence, id"
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    with out.open("wb") as handle:
        subprocess.run(["sqlite3", "-readonly", "-json", str(store), query], stdout=handle, check=True)
    seconds = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return seconds, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--keep", type=Path, default=None, help="build the stores in DIR and keep them")
    parser.add_argument("--formats", nargs="+", default=["md", "html", "json"], choices=["md", "html", "json"])
    args = parser.parse_args()
    directory = args.keep or Path(tempfile.mkdtemp(prefix="zett-export-bench-"))
    directory.mkdir(parents=True, exist_ok=True)
    print(f"load average {os.getloadavg()[0]:.1f} (1 min) at the start")
    print(
        "| messages | format | seconds | CPU s | messages/s | messages per CPU s | output MB | MB/s "
        "| peak RSS MB | loop held p99 / max ms |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    try:
        for size in args.sizes:
            store = directory / f"export-{size}.sqlite3"
            if not store.exists():
                build(store, size)
            if "json" in args.formats and shutil.which("sqlite3"):
                seconds, cpu = floor(store, directory / f"floor-{size}.json")
                print(f"| {size:,} | floor: sqlite3 -json | {seconds:.1f} | {cpu:.1f} | | | | | | |", flush=True)
            for fmt in args.formats:
                figures = run(store, fmt, directory / f"out-{size}.{fmt}")
                megabytes = figures["bytes"] / 1e6
                print(
                    f"| {int(figures['messages']):,} | {fmt} | {figures['seconds']:.1f} | {figures['cpu']:.1f} | "
                    f"{figures['messages'] / figures['seconds']:,.0f} | {figures['messages'] / figures['cpu']:,.0f} | "
                    f"{megabytes:,.1f} | "
                    f"{megabytes / figures['seconds']:.1f} | {figures['rss_mb']:.0f} | "
                    f"{figures['held_p99_ms']:.0f} / {figures['held_max_ms']:.0f} |",
                    flush=True,
                )
    finally:
        if args.keep is None:
            shutil.rmtree(directory, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
