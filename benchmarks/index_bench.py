"""Benchmarks the side index (issue 11) on a big store built like ``bigstore.py`` builds them.

Measures, in one run: the full index build (time, peak RSS, the longest the event loop
was held), an incremental sync after 1,000 new messages appended through the storage
API, a sync with nothing new, the first page of 20+ published queries (median and p95
over repeats) next to ``LIKE '%word%'`` on the store's ``message_json`` (the whole envelope,
so LIKE sees what the index sees: tool arguments, reasoning; median of 3 runs), the hits a
LIKE on ``content`` alone would miss, and the index size next to the store size.

    python benchmarks/index_bench.py --messages 100000 --sessions 1000
    python benchmarks/index_bench.py --store /tmp/big.sqlite3   # an existing store
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import resource
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from zett_browser.index import Searcher, SideIndex, index_stats, parse
from zett_browser.index.sessions import matching_sessions
from zett_browser.storage import SQLiteSessionStorage, SQLSessionStorage, UserMessage

#: (label, query, LIKE word or None). Published; keep at least 20.
QUERIES = [
    ("common word", "the", "the"),
    ("common word 2", "agent", "agent"),
    ("rare word (appended)", "quokka417", "quokka417"),
    ("no hits", "zyzzyva", "zyzzyva"),
    ("phrase", '"payment client"', "payment client"),
    ("phrase 3 words", '"the ledger service"', "the ledger service"),
    ("prefix", "ledg*", "ledg"),
    ("prefix short", "re*", "re"),
    ("identifier", "read_file", "read_file"),
    ("path", "src/module_42.py", "src/module_42.py"),
    ("path part", "module_42", "module_42"),
    ("OR", "retry OR ledger", None),
    ("negation", "retry -payment", None),
    ("qualifier only: kind", "kind:tool", None),
    ("qualifier only: tool", "tool:read_file", None),
    ("qualifier only: model", "model:gpt-5", None),
    ("qualifier only: agent", "agent:researcher", None),
    ("has:snapshot", "has:snapshot", None),
    ("tokens", "tokens:>1500", None),
    ("date range", "since:2026-01-01T02:00 before:2026-01-01T04:00", None),
    ("word + kind", "errors kind:assistant", "errors"),
    ("snapshot summary", '"Summary through"', "Summary through"),
    ("word + date", "ledger since:2026-01-01", "ledger"),
]
#: Tree filters (issue 11): the sessions each query matches, plus their ancestors.
TREE_FILTERS = [
    ("agent (roots)", "agent:coder"),
    ("agent (children)", "agent:researcher"),
    ("type", "type:0"),
    ("has:snapshot", "has:snapshot"),
    ("has:children", "has:children"),
    ("date range", "since:2026-01-01T02:00 before:2026-01-01T04:00"),
    ("negated agent", "-agent:coder"),
    ("error:true", "error:true"),
    ("agent + kind", "agent:researcher kind:tool"),
    ("rare word", "quokka417"),
    ("common word", "ledger"),
]
#: Runs of each LIKE (its median is the figure).
LIKE_RUNS = 3
#: (label, query, LIKE word): words that live in tool arguments or reasoning, not in ``content``.
MISSED = [("tool argument path", "module_42", "module_42"), ("reasoning word", "payment", "payment")]


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


async def _ticker(stalls: list[float], stop: asyncio.Event) -> None:
    """Measure how late a 10 ms timer fires: the longest the event loop was held."""
    while not stop.is_set():
        before = time.perf_counter()
        await asyncio.sleep(0.01)
        stalls.append(time.perf_counter() - before - 0.01)


async def full_build(store: Path, index_dir: Path) -> dict[str, float]:
    index = SideIndex(SQLSessionStorage.open_for_browsing(store), index_dir)
    stalls: list[float] = []
    stop = asyncio.Event()
    ticker = asyncio.create_task(_ticker(stalls, stop))
    started = time.perf_counter()
    report = await index.sync(rebuild=True)
    seconds = time.perf_counter() - started
    stop.set()
    await ticker
    await index.storage.close()
    return {
        "seconds": seconds,
        "messages": report.messages,
        "loop_max_ms": max(stalls, default=0) * 1000,
        "loop_p99_ms": sorted(stalls)[int(len(stalls) * 0.99)] * 1000 if stalls else 0,
    }


async def append_messages(store: Path, count: int) -> None:
    writer = SQLiteSessionStorage(store)
    try:
        for number in range(count):
            text = f"new message {number} quokka{number} arrives"
            await writer.append(f"bench-new-{number % 10}", f"req-{number}", UserMessage(content=text))
    finally:
        await writer.close()


async def timed_sync(store: Path, index_dir: Path) -> tuple[float, int]:
    index = SideIndex(SQLSessionStorage.open_for_browsing(store), index_dir)
    await index.storage.list_roots(limit=1)  # open the connection first, as a running app has
    started = time.perf_counter()
    report = await index.sync()
    seconds = time.perf_counter() - started
    await index.storage.close()
    return seconds, report.messages


def time_queries(
    index_path: Path, store: Path, repeats: int, pooled: list[float]
) -> list[tuple[str, str, float, float, int, float | None]]:
    """Per query: label, text, median and p95 ms of the first page, hits, LIKE ms; ``pooled`` gets every run."""
    searcher = Searcher(index_path)
    db = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    out = []
    for label, text, like in QUERIES:
        query = parse(text)
        runs = []
        hits = 0
        for _ in range(repeats):
            started = time.perf_counter()
            hits = len(searcher.search_now(query, limit=50).hits)
            runs.append(time.perf_counter() - started)
        like_ms = None
        if like is not None:
            likes = []
            for _ in range(LIKE_RUNS):
                started = time.perf_counter()
                rows = db.execute(
                    "SELECT session_id, sequence FROM raw_messages WHERE message_json LIKE ? LIMIT 50", (f"%{like}%",)
                ).fetchall()
                likes.append((time.perf_counter() - started) * 1000)
                del rows
            like_ms = statistics.median(likes)
        pooled.extend(runs)
        runs.sort()
        p95 = runs[min(len(runs) - 1, int(len(runs) * 0.95))]
        out.append((label, text, statistics.median(runs) * 1000, p95 * 1000, hits, like_ms))
    db.close()
    return out


def missed_by_like(index_path: Path, store: Path) -> list[tuple[str, int, int, int]]:
    """Per word of :data:`MISSED`: label, messages the index finds, LIKE on ``content``, on ``message_json``."""
    db = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    idx = sqlite3.connect(index_path)
    out = []
    for label, text, like in MISSED:
        like_count = db.execute("SELECT count(*) FROM raw_messages WHERE content LIKE ?", (f"%{like}%",)).fetchone()[0]
        json_count = db.execute(
            "SELECT count(*) FROM raw_messages WHERE message_json LIKE ?", (f"%{like}%",)
        ).fetchone()[0]
        fts_count = idx.execute(
            "SELECT count(*) FROM fts JOIN docs d ON d.id = fts.rowid WHERE fts MATCH ? AND d.kind NOT IN "
            "('session', 'snapshot')",
            (f'"{text}"',),
        ).fetchone()[0]
        out.append((label, int(fts_count), int(like_count), int(json_count)))
    db.close()
    idx.close()
    return out


def time_tree_filters(index_path: Path, repeats: int) -> list[tuple[str, str, float, float, int, int]]:
    """Per tree filter: label, text, median and p95 ms, matching and visible session counts."""
    out = []
    for label, text in TREE_FILTERS:
        query = parse(text)
        runs = []
        for _ in range(max(3, repeats // 4)):
            started = time.perf_counter()
            found = matching_sessions(index_path, query)
            runs.append(time.perf_counter() - started)
        runs.sort()
        p95 = runs[min(len(runs) - 1, int(len(runs) * 0.95))]
        out.append((label, text, statistics.median(runs) * 1000, p95 * 1000, len(found.matching), len(found.visible)))
    return out


def make_store(args: argparse.Namespace, directory: Path) -> Path:
    if args.store is not None:
        return Path(args.store)
    path = directory / f"store-{args.messages}.sqlite3"
    if not path.exists():
        command = [sys.executable, str(Path(__file__).with_name("bigstore.py")), str(path)]
        command += ["--messages", str(args.messages), "--sessions", str(args.sessions)]
        command += ["--big", str(args.big), "--fanout", str(args.fanout)]
        started = time.perf_counter()
        subprocess.run(command, check=True)
        print(f"store built in {time.perf_counter() - started:.1f} s")
    return path


def _verdict(ok: bool) -> str:
    return "PASS" if ok else "MISS"


def report(args: argparse.Namespace, store: Path, index_dir: Path) -> list[str]:
    """Run everything once, print it, and return the figures as markdown lines."""
    build = asyncio.run(full_build(store, index_dir))
    rss = _peak_rss_mb()
    print(f"full build: {build['seconds']:.1f} s for {build['messages']:,.0f} messages, peak RSS {rss:.0f} MB, ")
    print(f"  event loop held at most {build['loop_max_ms']:.0f} ms (p99 {build['loop_p99_ms']:.0f} ms)")
    empty = statistics.median([asyncio.run(timed_sync(store, index_dir))[0] for _ in range(5)])
    print(f"empty sync: median {empty * 1000:.1f} ms (of 5)")
    asyncio.run(append_messages(store, 1000))
    seconds, added = asyncio.run(timed_sync(store, index_dir))
    print(f"incremental sync of {added} new messages: {seconds * 1000:.0f} ms")
    index_path = SideIndex(SQLSessionStorage.open_for_browsing(store), index_dir).path
    stats = index_stats(index_path)
    store_mb = store.stat().st_size / 1e6
    print(f"index {stats['bytes'] / 1e6:.0f} MB next to store {store_mb:.0f} MB ({stats['messages']:,} messages)")
    pooled: list[float] = []
    rows = time_queries(index_path, store, args.repeats, pooled)
    table = [
        "| query | text | median ms | p95 ms | hits | LIKE first 50, ms | LIKE / index |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    print(f"\n{'query':<24} {'text':<36} {'median':>8} {'p95':>8} {'hits':>5} {'LIKE':>9} {'ratio':>7}")
    ratios = []
    for label, text, median, p95, hits, like in rows:
        ratio = like / median if like is not None and median > 0 else None
        if ratio is not None:
            ratios.append(ratio)
        like_text = f"{like:.1f}" if like is not None else "-"
        ratio_text = "-" if ratio is None else f"{ratio:.0f}x" if ratio >= 10 else f"{ratio:.2f}x"
        print(f"{label:<24} {text:<36} {median:8.1f} {p95:8.1f} {hits:5d} {like_text:>9} {ratio_text:>7}")
        table.append(f"| {label} | `{text}` | {median:.1f} | {p95:.1f} | {hits} | {like_text} | {ratio_text} |")
    pooled.sort()
    median, p95 = statistics.median(pooled) * 1000, pooled[int(len(pooled) * 0.95)] * 1000
    fast = sum(1 for ratio in ratios if ratio >= 50)
    print(f"\nfirst page, {len(rows)} queries x {args.repeats}: median {median:.1f} ms, p95 {p95:.1f} ms")
    print(f"index >= 50x faster than LIKE on {fast} of {len(ratios)} queries LIKE can express")
    missed = missed_by_like(index_path, store)
    for label, fts_count, like_count, json_count in missed:
        print(
            f"{label}: index finds {fts_count:,} messages, LIKE on content {like_count:,},"
            f" on message_json {json_count:,}"
        )
    tree = time_tree_filters(index_path, args.repeats)
    sessions = stats["sessions"]
    print(f"\ntree filters on {sessions:,} sessions:")
    tree_table = [
        "| filter | query | median ms | p95 ms | matching | shown (with ancestors) |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for label, text, t_median, t_p95, matching, visible in tree:
        print(f"{label:<20} {text:<48} {t_median:8.1f} {t_p95:8.1f} {matching:7,} {visible:7,}")
        tree_table.append(f"| {label} | `{text}` | {t_median:.1f} | {t_p95:.1f} | {matching:,} | {visible:,} |")
    targets = [
        ("full build ≤ 60 s", f"{build['seconds']:.1f} s", build["seconds"] <= 60),
        ("peak RSS ≤ 300 MB", f"{rss:.0f} MB", rss <= 300),
        ("event loop held < 100 ms during the build", f"{build['loop_max_ms']:.0f} ms", build["loop_max_ms"] < 100),
        ("incremental sync of 1,000 messages ≤ 0.5 s", f"{seconds * 1000:.0f} ms", seconds <= 0.5),
        ("empty sync ≤ 20 ms", f"{empty * 1000:.1f} ms", empty <= 0.02),
        ("first page median ≤ 50 ms", f"{median:.1f} ms", median <= 50),
        ("first page p95 ≤ 200 ms", f"{p95:.1f} ms", p95 <= 200),
        ("≥ 50× faster than LIKE (every query LIKE can express)", f"{fast} of {len(ratios)}", fast == len(ratios)),
    ]
    lines = [
        f"Store: {store_mb:,.0f} MB, {stats['messages']:,} messages in {sessions:,} sessions;"
        f" index {stats['bytes'] / 1e6:,.0f} MB ({stats['bytes'] / 1e6 / store_mb:.0%} of the store).",
        "",
        "| target | measured | |",
        "|---|---|---|",
        *[f"| {name} | {value} | {_verdict(ok)} |" for name, value, ok in targets],
        "",
        f"Event loop p99 during the build: {build['loop_p99_ms']:.0f} ms.",
        "",
        f"First page of hits ({len(rows)} queries × {args.repeats} runs; LIKE is"
        f" `SELECT … WHERE message_json LIKE '%word%' LIMIT 50` on the store, median of {LIKE_RUNS};"
        f" load average {os.getloadavg()[0]:.1f}):",
        "",
        *table,
        "",
        "Hits a LIKE on `content` alone misses (tool arguments and reasoning are not in that column;"
        " on `message_json` LIKE also matches the envelope's own keys and escapes):",
        "",
        *[
            f"- {label}: the index finds {fts:,} messages, LIKE on `content` {like:,}, on `message_json` {whole:,}"
            for label, fts, like, whole in missed
        ],
        "",
        f"Tree filters (`index.sessions.matching_sessions`, matching sessions plus ancestors) on {sessions:,}"
        " sessions:",
        "",
        *tree_table,
    ]
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--store", help="an existing store (it gets 1,000 messages appended)")
    parser.add_argument("--messages", type=int, default=100_000)
    parser.add_argument("--sessions", type=int, default=1_000)
    parser.add_argument("--big", type=int, default=20_000)
    parser.add_argument("--fanout", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--dir", type=Path, default=None, help="where the store and index go (default: a temp dir)")
    parser.add_argument("--markdown", type=Path, default=None, help="append the figures as a markdown section here")
    parser.add_argument("--title", default="Side index benchmark", help="the markdown section's title")
    args = parser.parse_args()
    directory = args.dir or Path(tempfile.mkdtemp(prefix="zett-index-bench-"))
    directory.mkdir(parents=True, exist_ok=True)
    store = make_store(args, directory)
    lines = report(args, store, directory / "index")
    if args.markdown is not None:
        load = Path("/proc/loadavg").read_text().split()[:3] if Path("/proc/loadavg").exists() else ["?"]
        machine = f"{os.cpu_count()} cores, {platform.python_implementation()} {platform.python_version()},"
        machine += f" SQLite {sqlite3.sqlite_version}, load average {' '.join(load)} when it ended"
        stamp = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
        section = [f"## {args.title}", "", f"Run {stamp} on {machine}.", "", *lines, ""]
        with args.markdown.open("a", encoding="utf-8") as out:
            out.write("\n".join(section) + "\n")


if __name__ == "__main__":
    main()
