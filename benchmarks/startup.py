"""Start-up alone: first paint of zett-browser next to the bare Textual app, interleaved.

    python benchmarks/startup.py [--reps 9] [--store PATH]...

A quick side-by-side measure for work on start-up (issue 16): each repetition runs the bare
app and zett-browser on the store in fresh headless processes (``app_bench.py --child``),
one right after the other, so both see the same machine load. Prints min/median/max, the
per-repetition ratios, and which heavy modules were imported by first paint.
``run.py`` prints these rows for every store (``startup_rows``).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.app_bench import Plan, run_child  # noqa: E402
from benchmarks.bigstore import BIG_SESSION, FANOUT_ROOT, cached  # noqa: E402

#: Modules whose presence at first paint says a heavy part was imported before it was needed.
HEAVY = ("sqlalchemy.orm", "pydantic.main", "rich.markdown", "asyncpg", "zett_browser.index")


class FirstOnly(Plan):
    """A plan whose child stops at the first paint."""

    def child_json(self) -> str:
        return json.dumps({"first_only": True})


def startup_rows(stores: dict[str, Path], reps: int) -> tuple[list[str], dict[str, float]]:
    """Markdown rows (figure | unit | min | median | max) and each store's median ratio to
    the bare app (the median of the ratios of runs made one right after the other)."""
    bare: list[float] = []
    app: dict[str, list[float]] = {name: [] for name in stores}
    ratios: dict[str, list[float]] = {name: [] for name in stores}
    modules: set[str] = set()
    for rep in range(reps):
        floor = run_child("bare", None)["first_paint"]
        bare.append(floor)
        for name, path in stores.items():
            got = run_child("app", FirstOnly(name, path, BIG_SESSION, 0, FANOUT_ROOT, ""))
            app[name].append(got["first_paint"])
            ratios[name].append(got["first_paint"] / floor)
            modules.update(got.get("modules", []))
        print(f"  start-up repetition {rep + 1}/{reps} done", file=sys.stderr, flush=True)

    def row(figure: str, values: list[float], unit: str = "ms", digits: int = 1) -> str:
        low, mid, high = min(values), statistics.median(values), max(values)
        return f"| {figure} | {unit} | {low:.{digits}f} | {mid:.{digits}f} | {high:.{digits}f} |"

    rows = [row("first paint, bare Textual app", bare)]
    for name in stores:
        rows.append(row(f"first paint, {name}", app[name]))
        rows.append(row(f"first paint, {name} ÷ bare app of the same repetition", ratios[name], "×", 2))
    heavy = ", ".join(module for module in HEAVY if module in modules) or "none"
    rows.append(f"| heavy modules loaded by first paint ({', '.join(HEAVY)}) | – | {heavy} | | |")
    return rows, {name: statistics.median(values) for name, values in ratios.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reps", type=int, default=9)
    parser.add_argument("--store", type=Path, action="append", help="a store (repeatable; default: the 1M store)")
    args = parser.parse_args()
    paths = args.store or [cached("1M")]
    rows, ratios = startup_rows({path.stem: path for path in paths}, args.reps)
    print("| figure | unit | min | median | max |\n|---|---|---|---|---|")
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
