"""Benchmarks the subcommands on a warm index, each in a fresh process, side by side (issue 29).

For each command (``search`` for a rare, a common and a two-word query, ``usage --by day``
and ``--by model``, ``context`` of the store's most recently compacted session, as text and
``--json``) it times, in one run, interleaved round by round:

- ``fast``: the command as shipped (an unchanged store's index is read with no SQL storage
  loaded, :mod:`zett_browser.index.fresh`; ``context`` reads the store through the stdlib
  driver, :mod:`zett_browser.storage.quickcontext`);
- ``full``: the same command forced down the full path (storage opened, sync asked; the
  fast-path check patched out in the process, nothing else changed);
- ``floor``: a Python + sqlite3 script running the same query on the same index file
  (``context``: the same reads of the store, each envelope parsed as JSON);
- ``rg``: ripgrep over a JSONL dump of the store's messages (search only, when ``rg`` is
  installed; the dump is made once, its time not counted).

Our modules are compiled to bytecode first (as an installed package is). The index is
built first in a directory of this run (hermetic; its cold build time is
printed). Figures are wall milliseconds, min / median / max over ``--rounds`` processes,
with the machine's load average beside them, and each variant's median CPU time (user +
system: less sensitive than wall time to a shared machine's load).

    python benchmarks/cli_bench.py [--store PATH] [--rounds 9] [--markdown FILE]

Without ``--store`` it uses the cached 1M store of ``benchmarks/run.py`` when present,
else a demo store written into a temporary directory.
"""

from __future__ import annotations

import argparse
import asyncio
import atexit
import compileall
import json
import os
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[1]))

from benchmarks.bigstore import REALISTIC, cached  # noqa: E402
from zett_browser.storage.sidecars import SidecarGuard  # noqa: E402

BIG = cached("1M")
FULL = (
    "import sys, zett_browser.cli.synced as c; c.fresh_index = lambda *a: None\n"
    "from zett_browser.__main__ import main\nraise SystemExit(main(sys.argv[1:]))"
)
FLOOR_SEARCH = (
    "import sqlite3, sys\ndb = sqlite3.connect(sys.argv[1])\n"
    "rows = db.execute('SELECT d.session_id, d.sequence, d.kind FROM fts JOIN docs d ON d.id = fts.rowid"
    " WHERE fts MATCH ? ORDER BY fts.rowid DESC LIMIT 21', (sys.argv[2],)).fetchall()\nprint(len(rows))"
)
FLOOR_USAGE = (
    "import sqlite3, sys\ndb = sqlite3.connect(sys.argv[1])\n"
    "print(db.execute('SELECT day, total(input), total(output), total(cost_picos) FROM usage_days"
    " GROUP BY day ORDER BY day').fetchall()[:1])"
)
FULL_CONTEXT = (
    "import sys, zett_browser.cli.context as c; c._fast = lambda *a: None\n"
    "from zett_browser.__main__ import main\nraise SystemExit(main(sys.argv[1:]))"
)
#: The context's reads as a bare script: the session, its last row, the versions, the
#: summary in force, the request's system rows and the rows after its boundary (decoded).
FLOOR_CONTEXT = """import json, sqlite3, sys
db = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
s = sys.argv[2]
db.execute("SELECT id, title FROM agent_sessions WHERE id = ?", (s,)).fetchone()
last = db.execute("SELECT request_id, sequence, message_json FROM raw_messages WHERE session_id = ?"
                  " ORDER BY sequence DESC LIMIT 1", (s,)).fetchone()
versions = db.execute("SELECT version, created_at FROM session_snapshots WHERE session_id = ?"
                      " ORDER BY version DESC", (s,)).fetchall()
floor = 0
if versions:
    summary = db.execute("SELECT compacted_through_sequence, message_json FROM session_snapshots"
                         " WHERE session_id = ? AND version = ?", (s, versions[0][0])).fetchone()
    floor = summary[0]
    json.loads(summary[1])
db.execute("SELECT sequence, message_json FROM raw_messages WHERE session_id = ? AND request_id = ? AND role = 1"
           " ORDER BY sequence LIMIT 16", (s, last[0])).fetchall()
rows = db.execute("SELECT id, sequence, message_json FROM raw_messages WHERE session_id = ? AND sequence > ?"
                  " ORDER BY sequence, id", (s, floor)).fetchall()
print(sum(len(json.loads(row[2])) for row in rows))
"""
#: A rare word: the 20,000th of the tail of ``bigstore.REALISTIC``'s vocabulary (in about one
#: message of 5,000), a common one and two words.
SEARCHES = {"rare word": REALISTIC.vocabulary[24 + 20_000], "common word": "the", "two words": "payment retry"}


def _cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _wall(command: list[str], ok: tuple[int, ...] = (0, 1)) -> tuple[float, float]:
    """Wall and CPU (user + system) milliseconds of one run of ``command``."""
    cpu = _cpu()
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    wall = (time.perf_counter() - started) * 1000
    if done.returncode not in ok:
        raise RuntimeError(f"{command[:4]} exited {done.returncode}: {done.stderr[-500:]}")
    return wall, (_cpu() - cpu) * 1000


def _store(given: Path | None, work: Path) -> Path:
    if given is not None:
        return given
    if BIG.exists():
        return BIG
    from zett_browser.demo.store import build_demo_store

    path = work / "demo.sqlite3"
    asyncio.run(build_demo_store(path))
    return path


def _dump(store: Path, target: Path) -> None:
    """The store's messages as JSON lines (ripgrep's input), read-only."""
    db = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    try:
        with target.open("w", encoding="utf-8") as out:
            for session_id, sequence, text in db.execute("SELECT session_id, sequence, message_json FROM raw_messages"):
                out.write(json.dumps({"session_id": session_id, "sequence": sequence, "message": text}) + "\n")
    finally:
        db.close()


def _compacted_session(store: Path) -> str:
    """The session of the store's latest snapshot (any session when none), read-only."""
    db = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    try:
        row = db.execute("SELECT session_id FROM session_snapshots ORDER BY id DESC LIMIT 1").fetchone()
        row = row or db.execute("SELECT id FROM agent_sessions ORDER BY updated_at DESC LIMIT 1").fetchone()
        return str(row[0])
    finally:
        db.close()


def _wanted(only: str | None, names: tuple[str, ...]) -> bool:
    return only is None or only.startswith(names)


def _indexed_cases(cases: dict[str, dict[str, list[str]]], python: str, store: Path, work: Path) -> float:
    """Build the index cold in ``work`` and add the search and usage cases; the build's seconds."""
    index_dir = work / "index"
    started = time.perf_counter()
    subprocess.run([python, "-m", "zett_browser", "index", str(store), "--index-dir", str(index_dir)], check=True)
    build = time.perf_counter() - started
    index_file = next(index_dir.glob("*.sqlite3"))
    rg = shutil.which("rg")
    dump = work / "messages.jsonl"
    if rg is not None:
        _dump(store, dump)
    for name, query in SEARCHES.items():
        cli = ["search", str(store), query, "--index-dir", str(index_dir)]
        words = " ".join(f'"{word}"' for word in query.split())
        case = {
            "fast": [python, "-m", "zett_browser", *cli],
            "full": [python, "-c", FULL, *cli],
            "floor": [python, "-c", FLOOR_SEARCH, str(index_file), words],
        }
        if rg is not None:
            case["rg"] = [rg, "-i", "-m", "20", "-w", query.split()[0], str(dump)]
        cases[f"search, {name}"] = case
    for by in ("day", "model"):
        cli = ["usage", str(store), "--by", by, "--index-dir", str(index_dir)]
        cases[f"usage --by {by}"] = {
            "fast": [python, "-m", "zett_browser", *cli],
            "full": [python, "-c", FULL, *cli],
            "floor": [python, "-c", FLOOR_USAGE, str(index_file)],
        }
    return build


Figures = dict[tuple[str, str], list[float]]


def measure(store: Path, rounds: int, only: str | None = None) -> tuple[list[str], Figures]:
    """Time every case on ``store``, interleaved: the markdown lines and the wall figures
    (``(case, variant)`` -> milliseconds per process)."""
    python = sys.executable
    # Bytecode first, as an installed package has it: with PYTHONDONTWRITEBYTECODE set and no
    # __pycache__, every fresh process would compile our modules again (~10-30 ms).
    compileall.compile_dir(Path(__file__).parents[1] / "zett_browser", quiet=1)
    with tempfile.TemporaryDirectory(prefix="zett-cli-bench-") as temp:
        work = Path(temp)
        store = _store(store, work)
        # The floor scripts and the JSONL dump open the store with plain sqlite3 (mode=ro),
        # which leaves -wal/-shm beside a WAL store: removed at the end when that is safe.
        guard = SidecarGuard.record(store)
        atexit.register(guard.release)
        cases: dict[str, dict[str, list[str]]] = {}
        build = _indexed_cases(cases, python, store, work) if _wanted(only, ("search", "usage")) else None
        session = _compacted_session(store)
        for flags in ([], ["--json"]):
            cli = ["context", str(store), "--session", session, *flags]
            cases[" ".join(["context", *flags])] = {
                "fast": [python, "-m", "zett_browser", *cli],
                "full": [python, "-c", FULL_CONTEXT, *cli],
                "floor": [python, "-c", FLOOR_CONTEXT, str(store), session],
            }
        cases["interpreter alone"] = {"floor": [python, "-c", "pass"]}
        if only:
            cases = {name: case for name, case in cases.items() if name.startswith((only, "interpreter"))}
        figures: Figures = {}
        cpu: Figures = {}
        for _ in range(rounds):  # interleaved: each round runs every variant once
            for case, variants in cases.items():
                for variant, command in variants.items():
                    wall, used = _wall(command)
                    figures.setdefault((case, variant), []).append(wall)
                    cpu.setdefault((case, variant), []).append(used)
        load = os.getloadavg()
    guard.release()
    lines = [
        f"Store: {store} ({store.stat().st_size / 1e6:,.0f} MB);"
        + (f" index built cold in {build:.1f} s;" if build is not None else " no index built;")
        + f" {rounds} fresh processes per figure; load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}.",
        "",
        "| command | fast (shipped) | full path | floor (python + sqlite3) | ripgrep over JSONL | fast / floor"
        " | CPU median: fast / full / floor |",
        "|---|---|---|---|---|---|---|",
    ]

    def cell(case: str, variant: str) -> str:
        values = figures.get((case, variant))
        if not values:
            return "–"
        return f"{min(values):.0f} / {statistics.median(values):.0f} / {max(values):.0f} ms"

    for case in cases:
        fast, floor = figures.get((case, "fast")), figures.get((case, "floor"))
        ratio = f"{statistics.median(fast) / statistics.median(floor):.2f}×" if fast and floor else "–"
        row = [cell(case, variant) for variant in ("fast", "full", "floor", "rg")]
        cpu_cell = " / ".join(
            f"{statistics.median(cpu[(case, variant)]):.0f}" if (case, variant) in cpu else "–"
            for variant in ("fast", "full", "floor")
        )
        lines.append(f"| {case} | " + " | ".join(row) + f" | {ratio} | {cpu_cell} ms |")
    return lines, figures


def checks(figures: Figures) -> list[tuple[str, float, float]]:
    """Issue 29's targets: each command's fast path <= 100 ms and <= 2x its floor (medians)."""
    out = []
    for case in dict.fromkeys(case for case, variant in figures if variant == "fast"):
        fast = statistics.median(figures[(case, "fast")])
        out.append((f"{case}: fresh process <= 100 ms", fast, 100.0))
        if (case, "floor") in figures:
            out.append(
                (f"{case}: <= 2x python + sqlite3 floor", fast / statistics.median(figures[(case, "floor")]), 2.0)
            )
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--store", type=Path, default=None)
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--markdown", type=Path, default=None, help="also write the table here")
    parser.add_argument("--only", default=None, help="only the cases whose name starts with this (e.g. context)")
    args = parser.parse_args()
    lines, figures = measure(args.store, args.rounds, args.only)
    text = "\n".join(lines)
    print(text)
    if args.markdown is not None:
        args.markdown.write_text(text + "\n", encoding="utf-8")
    missed = [label for label, value, limit in checks(figures) if value > limit]
    print("\n" + ("\n".join(f"MISS: {label}" for label in missed) or "every target met"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
