"""Page turns in tmux while the app builds its first side index, three ways, interleaved.

The tmux rows of ``app_bench.py`` run while each app process builds its first index of the
1M store (the default index directory; a killed build is rebuilt by the next process). This
script isolates that: each round starts three fresh apps on the same store, one after the
other, and runs ``app_bench``'s key sequence (a turn the moment the first page shows, turns
at the first page with and without a reader's pause, ``G``, then p/n pairs at the last page):

- **child**: a cold index directory; the first build runs in a child process (the default
  for a SQLite store of ``index.child.CHILD_MIN_BYTES`` or more);
- **in process**: a cold index directory, the build in the app's own process (the child
  turned off by setting ``CHILD_MIN_BYTES`` past any store, as for a small store);
- **no index**: ``--no-index``, the floor: the same app with nothing built beside it.

It prints each app's ``G`` and the medians of its p and n turns at the last page, then the
medians over all rounds.

    python benchmarks/build_turns.py [--rounds 3] [--store ~/.cache/zett-browser-bench/1M-v3.sqlite3]
"""

from __future__ import annotations

import argparse
import os
import shlex
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.app_bench import PAGE, READING_PAUSE_S, TURNS, Tmux, _shows, make_plan  # noqa: E402

#: The app, with the child build turned off when asked (``in process``).
LAUNCH = (
    "import sys; import zett_browser.index.child as c; "
    "c.CHILD_MIN_BYTES = (1 << 62) if sys.argv.pop(1) == 'in-process' else c.CHILD_MIN_BYTES; "
    "from zett_browser.__main__ import main; sys.exit(main(sys.argv[1:]))"
)
WAYS = ("child", "in-process", "no-index")


def one_app(way: str, store: Path) -> tuple[float, float, float]:
    """Run one fresh app through the key sequence; (G, median p, median n) at the last page, ms."""
    plan = make_plan("1M", store)
    last = count = plan.big_last
    last_first = last - PAGE + 1
    with tempfile.TemporaryDirectory(prefix="zb-turns-") as directory:
        index = "--no-index" if way == "no-index" else f"--index-dir {shlex.quote(directory)}"
        command = (
            f"exec {shlex.quote(sys.executable)} -c {shlex.quote(LAUNCH)} {way} "
            f"--session {plan.big} {index} {shlex.quote(str(store))}"
        )
        tmux = Tmux()
        try:
            started = tmux.start(command)
            tmux.wait_for(_shows(1, PAGE, count), started)
            tmux.key("n", _shows(PAGE + 1, 2 * PAGE, count))
            tmux.key("g", _shows(1, PAGE, count))
            tmux.settle()
            for _ in range(TURNS):
                tmux.key("n", _shows(PAGE + 1, 2 * PAGE, count))
                tmux.key("g", _shows(1, PAGE, count))
            for _ in range(TURNS):
                time.sleep(READING_PAUSE_S)
                tmux.key("n", _shows(PAGE + 1, 2 * PAGE, count))
                time.sleep(READING_PAUSE_S)
                tmux.key("g", _shows(1, PAGE, count))
            jump = tmux.key("G", _shows(last_first, last, count))
            back, forth = [], []
            for _ in range(TURNS):
                back.append(tmux.key("p", _shows(last_first - PAGE, last_first - 1, count)))
                forth.append(tmux.key("n", _shows(last_first, last, count)))
            tmux.stop()
        finally:
            tmux.close()
    return jump, statistics.median(back), statistics.median(forth)


def measure(store: Path, rounds: int) -> tuple[list[str], dict[str, tuple[float, float, float]]]:
    """The rounds, interleaved: the table's lines and each way's medians (G, p, n) in ms."""
    results: dict[str, list[tuple[float, float, float]]] = {way: [] for way in WAYS}
    lines = [f"store {store}, {rounds} rounds, load {_load()}"]
    lines += ["", "| round | build | G ms | p median ms | n median ms |", "|---|---|---:|---:|---:|"]
    for number in range(1, rounds + 1):
        for way in WAYS:
            jump, back, forth = one_app(way, store)
            results[way].append((jump, back, forth))
            lines.append(f"| {number} | {way} | {jump:.0f} | {back:.0f} | {forth:.0f} |")
    lines += ["", "| build | G ms | p ms | n ms |  (medians over rounds)", "|---|---:|---:|---:|"]
    medians: dict[str, tuple[float, float, float]] = {}
    for way, rows in results.items():
        jumps, backs, forths = zip(*rows, strict=True)
        medians[way] = (statistics.median(jumps), statistics.median(backs), statistics.median(forths))
        lines.append(f"| {way} | {medians[way][0]:.0f} | {medians[way][1]:.0f} | {medians[way][2]:.0f} |")
    lines.append(f"load {_load()}")
    return lines, medians


def checks(medians: dict[str, tuple[float, float, float]]) -> list[tuple[str, float, float]]:
    """``run.py``'s targets: the turns at the last page during the app's first build of a 1M
    store (a child process) <= 50 ms, as without one."""
    _, back, forth = medians["child"]
    return [
        ("tmux, first build running: page turn at the last page (p), 1M <= 50 ms", back, 50.0),
        ("tmux, first build running: page turn onto the last page (n), 1M <= 50 ms", forth, 50.0),
    ]


def _load() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--store", type=Path, default=Path("~/.cache/zett-browser-bench/1M-v3.sqlite3"))
    args = parser.parse_args()
    lines, _ = measure(args.store.expanduser(), args.rounds)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
