"""Benchmark: builds big stores in zett-agent's format and prints what a user feels.

    python benchmarks/run.py [--rounds 30] [--stores DIR] [--quick]

Builds (once, cached in ``--stores``) a 10k-message and a 1M-message store, times
zett-browser's storage queries and zett-agent 0.2.1's own API (in a side venv) on the same
files in the same run, prints min/median/max and the ratios, and exits 1 when a target is
missed. ``--quick`` uses a 100k-message store instead of 1M, for a smoke run.
"""

from __future__ import annotations

import argparse
import platform
import shutil
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[1]))

from benchmarks.bigstore import build  # noqa: E402
from benchmarks.storage_bench import agent_figures, run_browser, summarize  # noqa: E402
from tests.zett_agent_env import zett_agent_python  # noqa: E402

STORES = {"10k": dict(messages=10_000, sessions=100, big=2_000, fanout=1_000)}
LARGE = dict(messages=1_000_000, sessions=10_000, big=100_000, fanout=1_000)
QUICK = dict(messages=100_000, sessions=1_000, big=20_000, fanout=1_000)


def ensure_store(directory: Path, name: str, shape: dict[str, int]) -> Path:
    path = directory / f"{name}.sqlite3"
    if not path.exists():
        started = time.perf_counter()
        partial = directory / f"{name}.partial.sqlite3"
        for leftover in directory.glob(f"{name}.partial.sqlite3*"):
            leftover.unlink()
        build(partial, **shape)
        partial.rename(path)
        print(f"built {path.name}: {path.stat().st_size / 1e6:.0f} MB in {time.perf_counter() - started:.0f} s")
    return path


def row(name: str, values: list[float]) -> str:
    low, mid, high = summarize(values)
    return f"| {name} | {low:.2f} | {mid:.2f} | {high:.2f} |"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--stores", type=Path, default=Path.home() / ".cache" / "zett-browser-bench")
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    args.stores.mkdir(parents=True, exist_ok=True)
    shapes = dict(STORES)
    large_name = "100k" if args.quick else "1M"
    shapes[large_name] = QUICK if args.quick else LARGE
    paths = {name: ensure_store(args.stores, name, shape) for name, shape in shapes.items()}
    python = zett_agent_python()
    print(f"\nMachine: {platform.processor() or platform.machine()}, Python {platform.python_version()}")
    results: dict[str, dict[str, list[float]]] = {}
    agent: dict[str, dict[str, list[float]]] = {}
    for name, path in paths.items():
        results[name] = run_browser(path, args.rounds)
        # zett-agent's first call runs create_all on the store: give it a copy.
        copy = args.stores / f"{name}.zett-agent-copy.sqlite3"
        shutil.copy(path, copy)
        last = shapes[name]["big"]
        agent[name] = agent_figures(python, copy, max(5, args.rounds // 3), last)
        for leftover in args.stores.glob(f"{name}.zett-agent-copy.sqlite3*"):
            leftover.unlink()
    failures: list[str] = []
    for name in paths:
        print(f"\n### Storage, {name} store (ms, {args.rounds} rounds)\n")
        print("| query | min | median | max |\n|---|---|---|---|")
        for query, values in results[name].items():
            print(row(f"zett-browser {query}", values))
        for query, values in agent[name].items():
            print(row(f"zett-agent {query}", values))

    def median(store: str, query: str, source: dict[str, dict[str, list[float]]] = results) -> float:
        return summarize(source[store][query])[1]

    big = large_name
    checks = [
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
    print("\n### Targets\n\n| target | measured | limit | |\n|---|---|---|---|")
    for label, value, limit in checks:
        ok = value <= limit
        print(f"| {label} | {value:.3f} | {limit:.3f} | {'ok' if ok else 'MISSED'} |")
        if not ok:
            failures.append(label)
    print()
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
