"""Start-up alone: first paint of zett-browser next to the bare Textual app, interleaved.

    python benchmarks/startup.py [--reps 9] [--store PATH]

A quick side-by-side measure for work on start-up (issue 16): each repetition runs the bare
app and zett-browser on the store in fresh headless processes (``app_bench.py --child``),
one right after the other, so both see the same machine load. Prints min/median/max and the
median of the per-repetition ratios, and the heavy modules imported by first paint.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.app_bench import Plan, run_child  # noqa: E402
from benchmarks.bigstore import BIG_SESSION, FANOUT_ROOT  # noqa: E402

#: Modules whose presence at first paint says a heavy part was imported before it was needed.
HEAVY = ("sqlalchemy.orm", "sqlalchemy.ext.asyncio", "pydantic.main", "markdown_it", "platformdirs", "asyncpg")


class FirstOnly(Plan):
    """A plan whose child stops at the first paint."""

    def child_json(self) -> str:
        return json.dumps({"first_only": True})


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reps", type=int, default=9)
    parser.add_argument("--store", type=Path, default=Path.home() / ".cache" / "zett-browser-bench" / "1M.sqlite3")
    args = parser.parse_args()
    plan = FirstOnly("store", args.store, BIG_SESSION, 0, FANOUT_ROOT, "")
    bare: list[float] = []
    app: list[float] = []
    modules: list[str] = []
    for _ in range(args.reps):
        bare.append(run_child("bare", None)["first_paint"])
        got = run_child("app", plan)
        app.append(got["first_paint"])
        modules = got.get("modules", [])
    ratios = [a / b for a, b in zip(app, bare, strict=True)]
    for name, values in (("bare Textual app", bare), (args.store.name, app)):
        print(f"| first paint, {name} | {min(values):.1f} | {statistics.median(values):.1f} | {max(values):.1f} |")
    print(f"ratio (median of per-repetition ratios): {statistics.median(ratios):.2f}")
    print("heavy modules at first paint:", ", ".join(m for m in HEAVY if m in modules) or "none")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
