"""Benchmarks the usage totals of issue 12 on the cached 1M-message store, in one run.

Measures: the side index's full build with the totals (next to issue 11's figure), the
subtree totals of any node (the 100,000-message session's root, the root with 1,000
children, random sessions) next to summing one session's messages in the store,
``zett-browser usage --by day`` over the whole store with a warm index (the whole command
in a fresh process, and its query alone), and sorting the root level by subtree cost on a
store of 10,000 roots (built once, with priced models).

    python benchmarks/usage_bench.py [--stores DIR] [--rounds 50] [--markdown benchmarks/USAGE.md]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import random
import resource
import sqlite3
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[1]))

from benchmarks.bigstore import BIG_SESSION, FANOUT_ROOT, RAW_SQL, _stamp  # noqa: E402
from benchmarks.run import LARGE, ensure_store  # noqa: E402
from zett_browser.index import SideIndex  # noqa: E402
from zett_browser.index.usage import ordered_children, read_usage, report  # noqa: E402
from zett_browser.model import AssistantMessage, ToolCall, ToolMessage, UserMessage  # noqa: E402
from zett_browser.model.usage import TreeSort  # noqa: E402
from zett_browser.storage import SQLSessionStorage  # noqa: E402
from zett_browser.storage.codec import encode_messages  # noqa: E402
from zett_browser.storage.ids import new_uuid7  # noqa: E402

ROOTS = 10_000
MODELS = [("openai", "gpt-4o"), ("openai", "gpt-4o-mini"), ("anthropic", "claude-sonnet-4-5"), ("p", "m")]


def timed(work: Callable[[], object], rounds: int) -> list[float]:
    """Milliseconds of ``rounds`` calls (one warm-up call first)."""
    work()
    out = []
    for _ in range(rounds):
        started = time.perf_counter()
        work()
        out.append((time.perf_counter() - started) * 1000)
    return out


def stats(values: list[float]) -> tuple[float, float, float]:
    ordered = sorted(values)
    return statistics.median(ordered), ordered[max(0, int(len(ordered) * 0.95) - 1)], ordered[-1]


def build_roots(path: Path) -> None:
    """A store of ROOTS root sessions of 4 messages each, spread over four models (three priced)."""
    from sqlalchemy import create_engine

    from zett_browser.storage.schema import metadata

    partial = path.with_suffix(".partial")
    partial.unlink(missing_ok=True)
    engine = create_engine(f"sqlite:///{partial}")
    metadata.create_all(engine)
    engine.dispose()
    rng = random.Random(12)
    db = sqlite3.connect(partial)
    clock = datetime(2026, 3, 1, tzinfo=UTC)
    sessions, rows = [], []
    for number in range(ROOTS):
        session_id = new_uuid7()
        provider, model = MODELS[number % len(MODELS)]
        created = clock
        call = ToolCall(f"c{number}", "read_file", {"path": "a.py"})
        messages = [
            (2, UserMessage(content="do it"), None),
            (
                3,
                AssistantMessage(content="", tool_calls=(call,), provider=provider, model=model),
                rng.randint(500, 50_000),
            ),
            (4, ToolMessage(tool_call_id=f"c{number}", name="read_file", content="ok"), None),
            (3, AssistantMessage(content="done", provider=provider, model=model), rng.randint(500, 50_000)),
        ]
        for sequence, (role, message, tokens) in enumerate(messages, start=1):
            clock += timedelta(milliseconds=rng.randint(50, 2000))
            stamp = _stamp(clock)
            usage = (tokens, tokens // 20, tokens // 2, 0, 0) if tokens else (None,) * 5
            rows.append(
                (
                    new_uuid7(),
                    session_id,
                    f"r{number}",
                    sequence,
                    role,
                    "",
                    None,
                    encode_messages([message]),
                    "{}",
                    "{}",
                )
                + (stamp, stamp, 1_000_000, None, None, None, None, None, None, *usage, stamp, stamp)
            )
        sessions.append((session_id, None, 0, f"root {number}", "coder", _stamp(created), _stamp(clock)))
    db.executemany(RAW_SQL, rows)
    db.executemany("insert into agent_sessions values (?,?,?,?,?,?,?)", sessions)
    db.commit()
    db.close()
    partial.rename(path)


def sync(store: Path, index_dir: Path) -> tuple[SideIndex, float, bool]:
    """Sync the store's index; seconds taken and whether it was a full build."""

    async def work() -> tuple[SideIndex, float, bool]:
        index = SideIndex(SQLSessionStorage.open_for_browsing(store), index_dir)
        try:
            report = await index.sync()
        finally:
            await index.storage.close()
        return index, report.seconds, report.rebuilt

    return asyncio.run(work())


def store_sum(store: Path, session_id: str) -> None:
    """Yesterday's way: sum one session's messages in the store."""
    db = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    try:
        db.execute(
            "SELECT count(*), sum(input_tokens), sum(output_tokens), sum(cache_read_tokens), sum(duration_ns)"
            " FROM raw_messages WHERE session_id = ?",
            (session_id,),
        ).fetchone()
    finally:
        db.close()


def cli_by_day(store: Path, index_dir: Path, cpu: list[float]) -> float:
    """Wall milliseconds of the whole command; its CPU milliseconds (user + system) go to ``cpu``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "zett_browser", "usage", str(store), "--by", "day", "--index-dir", str(index_dir)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "total" in done.stdout
    wall = (time.perf_counter() - started) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu.append((after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000)
    return wall


Rows = list[tuple[str, list[float], float | None]]


def measure_big(store: Path, index_dir: Path, rounds: int, lines: list[str]) -> Rows:
    """Build or sync the 1M store's index, then time subtree totals and the ``--by day`` report."""
    before = resource.getrusage(resource.RUSAGE_SELF)
    index, seconds, rebuilt = sync(store, index_dir)
    after = resource.getrusage(resource.RUSAGE_SELF)
    cpu_s = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    what = "full build (with the totals)" if rebuilt else "sync (already built)"
    lines.append(f"Index of the 1M store: {what} {seconds:.1f} s wall, {cpu_s:.1f} s CPU in this process.")
    path = index.path
    rows: Rows = [
        (
            "store: sum one session's messages (100,000-message session)",
            timed(lambda: store_sum(store, BIG_SESSION), 5),
            None,
        )
    ]
    for label, node in (
        ("root of the 100,000-message session", BIG_SESSION),
        ("root with 1,000 children", FANOUT_ROOT),
    ):
        rows.append(
            (f"subtree totals + cost by model: {label}", timed(lambda n=node: read_usage(path, [n]), rounds), 50)
        )
    db = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    ids = [row[0] for row in db.execute("SELECT id FROM agent_sessions")]
    db.close()
    spread: list[float] = []
    for node in random.Random(3).sample(ids, min(len(ids), rounds)):
        spread += timed(lambda n=node: read_usage(path, [n]), 1)
    rows.append(("subtree totals + cost by model: random sessions", spread, 50))
    rows.append(("`--by day` query alone (whole store)", timed(lambda: report(path, "day"), rounds), 1000))
    cpu: list[float] = []
    walls = [cli_by_day(store, index_dir, cpu) for _ in range(5)]
    rows.append(("`zett-browser usage --by day`, fresh process, warm index: wall", walls, 1000))
    rows.append(("the same command: CPU time (user + system)", cpu, None))
    sort_children = timed(lambda: ordered_children(path, FANOUT_ROOT, TreeSort.TOKENS, 0, 100), rounds)
    rows.append(("sort 1,000 children by subtree tokens (1M store)", sort_children, 100))
    return rows


def measure_roots(stores: Path, index_dir: Path, rounds: int) -> Rows:
    """Sort the root level of a store of ROOTS roots by subtree cost (first and last page)."""
    roots_store = stores / "usage-10k-roots.sqlite3"
    if not roots_store.exists():
        build_roots(roots_store)
    level = sync(roots_store, index_dir)[0].path
    return [
        (
            f"sort {ROOTS:,} roots by subtree cost (page at {offset:,})",
            timed(lambda o=offset: ordered_children(level, None, TreeSort.COST, o, 100), rounds),
            100,
        )
        for offset in (0, ROOTS - 100)
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--stores", type=Path, default=Path.home() / ".cache" / "zett-browser-bench")
    parser.add_argument("--rounds", type=int, default=50)
    parser.add_argument("--markdown", type=Path, default=None, help="also write the figures to this file")
    args = parser.parse_args()
    store = ensure_store(args.stores, "1M", LARGE)
    index_dir = args.stores / "usage-index"
    machine = f"{os.cpu_count()} cores, CPython {platform.python_version()}"
    lines = [f"Run {datetime.now(UTC):%Y-%m-%d %H:%M} UTC on {machine}."]
    rows = measure_big(store, index_dir, args.rounds, lines) + measure_roots(args.stores, index_dir, args.rounds)
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    lines.append(f"Load average when it ended: {load} (2 cores shared with other agents).")
    table = ["| measure | median ms | p95 ms | max ms | target ms | |", "|---|---|---|---|---|---|"]
    misses = 0
    for label, values, target in rows:
        median, p95, high = stats(values)
        verdict = "" if target is None else ("PASS" if median <= target else "MISS")
        misses += verdict == "MISS"
        table.append(f"| {label} | {median:.2f} | {p95:.2f} | {high:.2f} | {target or '-'} | {verdict} |")
    text = "\n".join([*lines, "", *table])
    print(text)
    if args.markdown is not None:
        args.markdown.write_text(_markdown(text))
    return 1 if misses else 0


def _markdown(figures: str) -> str:
    return f"""# Usage totals (issue 12): measured figures

Made by `benchmarks/usage_bench.py` in one run on the cached benchmark stores of
`benchmarks/bigstore.py` (1,000,000 messages in 10,000 sessions; its 100,000-message session
is itself a root there) and a store of {ROOTS:,} root sessions with priced models that the
benchmark builds once:

    python benchmarks/usage_bench.py --markdown benchmarks/USAGE.md

The machine is shared: 2 cores used by up to 7 agents at once, so every figure moves with
the load (printed below). Subtree totals are one primary-key read of `tree_totals` plus the
subtree's per-day model rows (cost by model); they never read messages. Targets are those
of issue 12; medians are compared.

{figures}
"""


if __name__ == "__main__":
    raise SystemExit(main())
