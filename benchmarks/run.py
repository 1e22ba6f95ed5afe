"""Benchmark: builds big stores in zett-agent's format and prints what a user feels.

    python benchmarks/run.py [--rounds 30] [--app-reps 5] [--stores DIR] [--quick]
                             [--no-app | --app-only] [--no-tmux] [--scale]
                             [--no-follow] [--no-peers] [--no-floors]

Builds (once, cached in ``--stores``) a 10k-message and a 1M-message store (and a small
store whose every message is a 100 KB tool output), times zett-browser's storage queries and
zett-agent 0.2.1's own API (in a side venv) on the same files in the same run, then the app
figures (``app_bench.py``: first paint, page turns, expanding a wide node, heavy pages and
peak RSS, headless and in tmux, next to a bare Textual app), prints min/median/max and the
ratios, and exits 1 when a target is missed. ``--quick`` uses a 100k-message store instead
of 1M, for a smoke run; ``--scale`` adds a 5M-message store (start-up and storage figures).
The app part also times start-up interleaved with the bare app (``startup.py``), follows a
store real zett-agent writes to (``follow_bench.py``) and times a peer's first screen on
the same store (``peers.py``: harlequin, in a venv of its own; skipped with a note when it
cannot be installed). With the storage figures it times ``--redact`` on long runs
(``redact_bench.py``), and issue 29's figures next to their floors (``floors.py``: index build
vs one ``INSERT … SELECT``, subcommands vs a Python + sqlite3 script and ripgrep, JSON export
vs ``sqlite3 -json``, time travel vs zett-agent's ``load()``, a cold start onto 2,500 versions).
Every app process uses an index directory of this run (never the user's cache): the app
figures' stores get their index built first (warm); page turns while the app builds a first
index are timed on their own (``build_turns.py``: in a child process, in process, none).
Progress goes to stderr; stdout holds only the tables.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[1]))

from benchmarks import build_turns, floors  # noqa: E402
from benchmarks.app_bench import app_checks, app_figures, ensure_heavy, own_index_dir, print_tables  # noqa: E402
from benchmarks.bigstore import COMPACTED_SESSION, build, cached  # noqa: E402
from benchmarks.compacted_open import TARGET_MS, ensure_compacted, measure  # noqa: E402
from benchmarks.follow_bench import busy_checks, busy_rows, follow_checks, follow_rows  # noqa: E402
from benchmarks.peers import peer_first_screens  # noqa: E402
from benchmarks.redact_bench import redact_part  # noqa: E402
from benchmarks.startup import startup_rows  # noqa: E402
from benchmarks.storage_bench import agent_figures, run_browser, summarize  # noqa: E402
from tests.zett_agent_env import zett_agent_python  # noqa: E402

#: 1,200 sessions: the 1,000-child node and the deep session leave ~200 others, ~130 of them
#: roots, so the 10k roots page is a full page of 100 like the 1M one (it had 3 roots).
STORES = {"10k": dict(messages=10_000, sessions=1_200, big=2_000, fanout=1_000)}
LARGE = dict(messages=1_000_000, sessions=10_000, big=100_000, fanout=1_000)
QUICK = dict(messages=100_000, sessions=1_000, big=20_000, fanout=1_000)
#: ``--scale``: start-up and storage at 5M messages (8.5 GB, ~8 minutes to build once).
SCALE = dict(messages=5_000_000, sessions=50_000, big=100_000, fanout=1_000)


def ensure_store(directory: Path, name: str, shape: dict[str, int]) -> Path:
    """The store ``name`` (cached as ``bigstore.cached(name, directory)``), built once with ``shape``."""
    path = cached(name, directory)
    name = path.name.removesuffix(".sqlite3")
    if not path.exists():
        started = time.perf_counter()
        partial = directory / f"{name}.partial.sqlite3"
        for leftover in directory.glob(f"{name}.partial.sqlite3*"):
            leftover.unlink()
        build(partial, messages=shape["messages"], sessions=shape["sessions"], big=shape["big"], fanout=shape["fanout"])
        partial.rename(path)
        print(f"built {path.name}: {path.stat().st_size / 1e6:.0f} MB in {time.perf_counter() - started:.0f} s")
    return path


def row(name: str, values: list[float]) -> str:
    """A table row: min, median and max."""
    low, mid, high = summarize(values)
    return f"| {name} | {low:.2f} | {mid:.2f} | {high:.2f} |"


def app_part(args: argparse.Namespace, paths: dict[str, Path], large_name: str) -> list[tuple[str, float, float]]:
    """The app's figures; every app process of them uses an index directory of this run."""
    with own_index_dir() as directory:
        print(f"\nApp processes use this run's index directory {directory} (warm for the app figures' stores).")
        return _app_part(args, paths, large_name)


def _app_part(args: argparse.Namespace, paths: dict[str, Path], large_name: str) -> list[tuple[str, float, float]]:
    checks: list[tuple[str, float, float]] = []
    app_paths = {name: path for name, path in paths.items() if name != "5M"}
    heavy = ensure_heavy(args.stores)
    results = app_figures(app_paths, large_name, heavy, args.app_reps, use_tmux=not args.no_tmux)
    print_tables(results, args.app_reps)
    checks += app_checks(results, list(app_paths), large_name)
    # Issue 13: a 100,000-message session compacted every 40 messages (2,500 versions).
    opens = measure(ensure_compacted(args.stores), args.app_reps)
    print(f"\n### Opening the 2,500-version session (issue 13; {args.app_reps} fresh processes)\n")
    print("| figure | min | median | max |\n|---|---|---|---|")
    print(row("open the 2,500-version session (ms)", opens))
    checks.append((f"2,500-version session opens <= {TARGET_MS:.0f} ms", summarize(opens)[1], TARGET_MS))
    if not args.no_floors:
        checks += floors.time_travel_part(ensure_compacted(args.stores))
        checks += floors.cold_part(ensure_compacted(args.stores), args.app_reps)
    checks += start_part(args, paths, large_name)
    if not args.no_follow:
        checks += follow_part(paths["10k"], paths[large_name], large_name, ensure_compacted(args.stores))
    if not args.no_tmux and shutil.which("tmux") is not None:
        lines, medians = build_turns.measure(paths[large_name], rounds=3)
        print(f"\n### Page turns in tmux while the app builds its first index ({large_name}; build_turns.py)\n")
        print("\n".join(lines))
        checks += build_turns.checks(medians)
    return checks


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=30, help="rounds of each storage query")
    parser.add_argument("--app-reps", type=int, default=5, help="fresh processes per app figure")
    parser.add_argument("--stores", type=Path, default=Path.home() / ".cache" / "zett-browser-bench")
    parser.add_argument("--quick", action="store_true")
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--no-app", action="store_true", help="storage figures only")
    which.add_argument("--app-only", action="store_true", help="app figures only")
    parser.add_argument("--no-tmux", action="store_true", help="app figures headless only")
    parser.add_argument("--scale", action="store_true", help="also a 5M-message store: start-up and storage")
    parser.add_argument("--no-follow", action="store_true", help="skip following a store zett-agent writes to")
    parser.add_argument("--no-peers", action="store_true", help="skip the peers' first screen (harlequin)")
    parser.add_argument("--no-floors", action="store_true", help="skip issue 29's figures next to their floors")
    args = parser.parse_args()
    started = time.perf_counter()
    args.stores.mkdir(parents=True, exist_ok=True)
    shapes = dict(STORES)
    large_name = "100k" if args.quick else "1M"
    shapes[large_name] = QUICK if args.quick else LARGE
    if args.scale:
        shapes["5M"] = SCALE
    paths = {name: ensure_store(args.stores, name, shape) for name, shape in shapes.items()}
    machine = platform.processor() or platform.machine()
    print(f"\nMachine: {machine}, {os.cpu_count()} cores, Python {platform.python_version()}")
    checks: list[tuple[str, float, float]] = []
    if not args.app_only:
        checks += storage_part(args, paths, shapes, large_name)
        checks += redact_part(rounds=5)  # export --redact on long runs (redact_bench.py)
        if not args.no_floors:  # issue 29: the figures next to their floors (floors.py)
            index_stores = {name: path for name, path in paths.items() if name in (large_name, "5M")}
            checks += floors.index_part(index_stores, large_name)
            checks += floors.subcommand_part(paths[large_name], rounds=9)
            checks += floors.export_part()
    if not args.no_app:
        checks += app_part(args, paths, large_name)
    failures = 0
    print("\n### Targets (medians)\n\n| target | measured | limit | |\n|---|---|---|---|")
    for label, value, limit in checks:
        ok = value <= limit
        failures += not ok
        print(f"| {label} | {value:.3f} | {limit:.3f} | {'PASS' if ok else 'MISS'} |")
    print(f"\n{failures} of {len(checks)} targets missed; the run took {time.perf_counter() - started:.0f} s\n")
    return 1 if failures else 0


def start_part(args: argparse.Namespace, paths: dict[str, Path], large_name: str) -> list[tuple[str, float, float]]:
    """First paint next to the bare app, interleaved, on every store (and the peers')."""
    stores = dict(paths)
    rows, ratios = startup_rows(stores, args.app_reps)
    peer_rows, peer = ([], {}) if args.no_peers else peer_first_screens(paths[large_name], args.app_reps)
    print(f"\n### Start-up, headless, interleaved with the bare app ({args.app_reps} processes)\n")
    print("| figure | unit | min | median | max |\n|---|---|---|---|---|")
    print("\n".join(rows))
    if peer_rows:
        print(f"\n### First screen next to a peer, tmux 160×45, {large_name} store ({args.app_reps} processes)\n")
        print("| figure | unit | min | median | max |\n|---|---|---|---|---|")
        print("\n".join(peer_rows))
    for note in peer.get("notes", []):
        print(f"- {note}")
    checks = [(f"start: first paint {name} <= 2x bare app", ratios[name], 2.0) for name in stores]
    if "5M" in ratios:
        checks.append(("start: first paint 5M within 1.2x of 1M", ratios["5M"] / ratios[large_name], 1.2))
    if "ratio" in peer:
        checks.append(("start: first screen <= 0.5x harlequin's", peer["ratio"], 0.5))
    return checks


def follow_part(small: Path, large: Path, large_name: str, compacted: Path) -> list[tuple[str, float, float]]:
    """Following a store zett-agent writes to, an idle large store, and the busy run (the
    2,500-version session compacted as it grows, with 100 expanded tree nodes)."""
    rows = follow_rows(small, large, large_name, seconds=20.0, rate=5.0, idle=30.0)
    busy = busy_rows(compacted, COMPACTED_SESSION, 2_500, seconds=20.0, rate=5.0)
    print(
        "\n### Following, headless (one run each: zett-agent writing 5 messages/s; the idle large store;"
        " the 2,500-version session compacted every 10 messages, 100 expanded nodes)\n"
    )
    print("| figure | unit | value |\n|---|---|---|")
    print("\n".join(rows + busy))
    return follow_checks(rows) + busy_checks(busy)


def storage_part(
    args: argparse.Namespace, paths: dict[str, Path], shapes: dict[str, dict[str, int]], large_name: str
) -> list[tuple[str, float, float]]:
    """Time the storage queries, zett-browser's and zett-agent's; print them; return the checks."""
    python = zett_agent_python()
    results: dict[str, dict[str, list[float]]] = {}
    agent: dict[str, dict[str, list[float]]] = {}
    for name, path in paths.items():
        results[name] = run_browser(path, args.rounds)
        if name == "5M":
            continue  # an 8.5 GB copy for zett-agent's figures: the 1M store has them
        # zett-agent's first call runs create_all on the store: give it a copy.
        copy = args.stores / f"{name}.zett-agent-copy.sqlite3"
        shutil.copy(path, copy)
        last = shapes[name]["big"]
        agent[name] = agent_figures(python, copy, max(5, args.rounds // 3), last)
        for leftover in args.stores.glob(f"{name}.zett-agent-copy.sqlite3*"):
            leftover.unlink()
    for name in paths:
        print(f"\n### Storage, {name} store (ms, {args.rounds} rounds)\n")
        print("| query | min | median | max |\n|---|---|---|---|")
        for query, values in results[name].items():
            print(row(f"zett-browser {query}", values))
        for query, values in agent.get(name, {}).items():
            print(row(f"zett-agent {query}", values))

    def median(store: str, query: str, source: dict[str, dict[str, list[float]]] = results) -> float:
        return summarize(source[store][query])[1]

    big = large_name
    return [
        ("roots page <= 10 ms", median(big, "roots page (100)"), 10.0),
        (
            "roots page <= 1/20 of zett-agent list_sessions",
            median(big, "roots page (100)") / median(big, "list_sessions(limit=100)", agent),
            1 / 20,
        ),
        ("roots page 1M within 1.5x of 10k", median(big, "roots page (100)") / median("10k", "roots page (100)"), 1.5),
        ("raw page first <= 10 ms", median(big, "raw page 50, first"), 10.0),
        ("raw page middle <= 10 ms", median(big, "raw page 50, middle"), 10.0),
        ("raw page last <= 10 ms", median(big, "raw page 50, last"), 10.0),
        ("raw page last within 1.5x first", median(big, "raw page 50, last") / median(big, "raw page 50, first"), 1.5),
    ]


if __name__ == "__main__":
    raise SystemExit(main())
