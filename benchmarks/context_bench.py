"""Benchmarks time travel's first step on the long compacted session (issue 29), in one run.

The 100,000-message session of ``benchmarks/compacted_open.py``'s store (built once in the
cache) is compacted every 40 messages (2,500 versions). Picking the snapshot in force at
message N used to read every version's metadata, measuring each stored summary
(``all_snapshot_versions`` + ``in_force``); now the newest candidate (boundary before N)
alone, two columns of one row (``version_in_force``). Both are timed interleaved at
several N in one process, next to ``locate`` as a whole (N's row, the version, the summary
in force decoded, what was offered) and real zett-agent's own warm ``load()`` of the
session (what the model gets now), run by zett-agent 0.2.1 in its own virtualenv when it
is there, one call after each of our rounds (the same load on the machine for both).

    python benchmarks/context_bench.py [--stores DIR] [--rounds 15]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import textwrap
import time
from collections.abc import Awaitable, Callable
from datetime import datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[1]))

from benchmarks.bigstore import COMPACTED_SESSION as BIG_SESSION  # noqa: E402
from benchmarks.compacted_open import ensure_compacted  # noqa: E402
from zett_browser.storage import SQLSessionStorage  # noqa: E402
from zett_browser.views import time_travel  # noqa: E402

STORES = Path.home() / ".cache" / "zett-browser-bench"
AGENT = Path.home() / ".cache" / "zett-browser-tests" / "zett-agent-0.2.1" / "bin" / "python"
LOAD = textwrap.dedent(
    """
    import asyncio, sys, time
    from zett_agent.storage import SQLiteSessionStorage

    async def main():
        storage = SQLiteSessionStorage(sys.argv[1])
        await storage.load(sys.argv[2])  # warm
        print("ready", flush=True)
        for _ in sys.stdin:  # one warm load() per line: timed between our own rounds
            started = time.perf_counter()
            await storage.load(sys.argv[2])
            print(f"{(time.perf_counter() - started) * 1000:.3f}", flush=True)
        await storage.close()

    asyncio.run(main())
    """
)


class Agent:
    """Real zett-agent's warm ``load()`` in its own process, one timed call per :meth:`load`."""

    def __init__(self, store: Path) -> None:
        self.process = subprocess.Popen(
            [str(AGENT), "-c", LOAD, str(store), BIG_SESSION],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.process.stdin is not None and self.process.stdout is not None
        self.stdin, self.stdout = self.process.stdin, self.process.stdout
        if self.stdout.readline().strip() != "ready":
            raise SystemExit("zett-agent's load() did not start")

    def load(self) -> float:
        """One warm ``load()``'s wall time in ms (the process is idle while we are timed)."""
        self.stdin.write("\n")
        self.stdin.flush()
        return float(self.stdout.readline())

    def close(self) -> None:
        self.stdin.close()
        self.process.wait(timeout=30)


async def _timed(work: Callable[[], Awaitable[object]], rounds: int, into: list[float]) -> None:
    for _ in range(rounds):
        started = time.perf_counter()
        await work()
        into.append((time.perf_counter() - started) * 1000)


def _cell(values: list[float]) -> str:
    return f"{min(values):.1f} / {statistics.median(values):.1f} / {max(values):.1f} ms"


async def _measure(store: Path, rounds: int, agent: Agent | None) -> list[str]:
    storage = SQLSessionStorage.open_for_browsing(store)
    rows: list[str] = []
    try:
        bounds = await storage.raw_bounds(BIG_SESSION)
        last = bounds.last_sequence or 0
        await storage.version_in_force(BIG_SESSION, None)  # warm the connection and the page cache
        for at in (1, last // 2, last, None):
            page = await storage.raw_page(BIG_SESSION, after_sequence=(at or last + 1) - 1, limit=1)
            when = page[0].started_at if page and at is not None else None
            old: list[float] = []
            new: list[float] = []
            whole: list[float] = []
            loads: list[float] = []

            async def before(when: datetime | None = when) -> object:
                return time_travel.in_force(await storage.all_snapshot_versions(BIG_SESSION), when)

            async def after(when: datetime | None = when, at: int | None = at) -> object:
                return await storage.version_in_force(BIG_SESSION, when, before_sequence=at)

            async def locate(at: int | None = at) -> object:
                return await time_travel.locate(storage, BIG_SESSION, at)

            for _ in range(rounds):  # interleaved
                await _timed(before, 1, old)
                await _timed(after, 1, new)
                await _timed(locate, 1, whole)
                if agent is not None:
                    loads.append(agent.load())
            name = "next step" if at is None else f"#{at:,}"
            ratio = statistics.median(old) / statistics.median(new)
            versus = (
                f"{_cell(loads)} | {statistics.median(whole) / statistics.median(loads):.2f}×" if loads else "— | —"
            )
            rows.append(f"| {name} | {_cell(old)} | {_cell(new)} | {ratio:.0f}× | {_cell(whole)} | {versus} |")
    finally:
        await storage.close()
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--stores", type=Path, default=STORES, help="where the benchmark stores are cached")
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    args.stores.mkdir(parents=True, exist_ok=True)
    store = ensure_compacted(args.stores)
    agent = Agent(store) if AGENT.exists() else None
    try:
        rows = asyncio.run(_measure(store, args.rounds, agent))
    finally:
        if agent is not None:
            agent.close()
    load = os.getloadavg()
    print(f"Long session of {store} (100,000 messages, 2,500 versions); {args.rounds} rounds, interleaved")
    print("with real zett-agent 0.2.1's warm `load()` of the session (what the model gets now) in its own")
    print(f"process; load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}. Min / median / max.")
    if agent is None:
        print(f"(zett-agent 0.2.1 is not installed at {AGENT}: `python -m tests.zett_agent_env` installs it.)")
    print()
    print(
        "| context at | version in force, before (all versions' metadata) | now | gain | `locate` whole"
        " | zett-agent `load()` | locate / load |"
    )
    print("|---|---|---|---|---|---|---|")
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
