"""Storage figures: zett-browser's queries and zett-agent's own API on the same stores.

Run by ``benchmarks/run.py``; also runnable alone. zett-agent's side runs in its own venv
(``tests/zett_agent_env.py`` builds it) as a subprocess that prints JSON timings.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import subprocess
import sys
import textwrap
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parents[1]))

from benchmarks.bigstore import BIG_SESSION, FANOUT_ROOT  # noqa: E402
from zett_browser.storage import open_store  # noqa: E402

Timings = dict[str, list[float]]


async def _time(fn: Callable[[], Awaitable[Any]], rounds: int) -> list[float]:
    await fn()  # warm
    out = []
    for _ in range(rounds):
        started = time.perf_counter()
        await fn()
        out.append((time.perf_counter() - started) * 1000)
    return out


async def browser_figures(path: Path, rounds: int) -> Timings:
    storage = open_store(path)
    try:
        bounds = await storage.raw_bounds(BIG_SESSION)
        last = bounds.last_sequence or 0
        middle = last // 2
        return {
            "roots page (100)": await _time(lambda: storage.list_roots(limit=100), rounds),
            "list_sessions(limit=100)": await _time(lambda: storage.list_sessions(limit=100), rounds),
            "children of a node (1,000)": await _time(lambda: storage.list_children(FANOUT_ROOT, limit=1000), rounds),
            "raw page 50, first": await _time(lambda: storage.raw_page(BIG_SESSION, limit=50), rounds),
            "raw page 50, middle": await _time(
                lambda: storage.raw_page(BIG_SESSION, after_sequence=middle, limit=50), rounds
            ),
            "raw page 50, last": await _time(lambda: storage.raw_page_before(BIG_SESSION, limit=50), rounds),
            "all snapshot versions": await _time(lambda: storage.list_snapshots(BIG_SESSION), rounds),
            "session totals": await _time(lambda: storage.session_totals(BIG_SESSION), max(3, rounds // 4)),
        }
    finally:
        await storage.close()


AGENT_SCRIPT = textwrap.dedent(
    """
    import asyncio, json, shutil, sys, time
    from zett_agent.storage import SQLiteSessionStorage
    path, rounds, big, last = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])

    async def timed(fn):
        await fn()
        out = []
        for _ in range(rounds):
            started = time.perf_counter()
            await fn()
            out.append((time.perf_counter() - started) * 1000)
        return out

    async def main():
        storage = SQLiteSessionStorage(path)
        figures = {
            "list_sessions(limit=100)": await timed(lambda: storage.list_sessions(limit=100)),
            "raw page 50, first": await timed(lambda: storage.list_raw_messages(big, limit=50)),
            "raw page 50, middle": await timed(
                lambda: storage.list_raw_messages(big, after_sequence=last // 2, limit=50)
            ),
            "raw page 50, last": await timed(
                lambda: storage.list_raw_messages(big, after_sequence=last - 50, limit=50)
            ),
        }
        await storage.close()
        print(json.dumps(figures))

    asyncio.run(main())
    """
)


def agent_figures(python: Path, path: Path, rounds: int, last: int) -> Timings:
    result = subprocess.run(
        [str(python), "-c", AGENT_SCRIPT, str(path), str(rounds), BIG_SESSION, str(last)],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(result.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def summarize(values: list[float]) -> tuple[float, float, float]:
    return min(values), statistics.median(values), max(values)


def run_browser(path: Path, rounds: int) -> Timings:
    return asyncio.run(browser_figures(path, rounds))
