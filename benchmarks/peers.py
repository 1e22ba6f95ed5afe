"""A peer's first screen next to zett-browser's, on the same store, in the same run.

    python benchmarks/peers.py [--reps 5] [--store PATH]

harlequin (a Textual SQL IDE with a SQLite adapter) is installed with pip in a venv of its
own next to the cached stores (``harlequin-venv``), never in zett-browser's; when that
fails (no network, no wheel) the row is skipped with a note. Both programs start in a
detached 160×45 pane of a private tmux server (``app_bench.Tmux``), one right after the
other in each repetition, in ABBA order (zett-browser first in odd repetitions, harlequin
first in even ones), with the machine's load average beside the figures. zett-browser's
first screen is its tree and first Raw Log page (as in ``app_bench.py``); harlequin's is
its data catalog showing the store's database and the query editor's "Run Query" button.
harlequin opens the store with ``--read-only``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.app_bench import Tmux, _first_page_shown, make_plan  # noqa: E402
from benchmarks.bigstore import cached  # noqa: E402

STORES = Path.home() / ".cache" / "zett-browser-bench"


def ensure_harlequin(directory: Path) -> tuple[Path | None, str]:
    """harlequin's command in its own venv (built once), or None and why not."""
    venv = directory / "harlequin-venv"
    command = venv / "bin" / "harlequin"
    if command.exists():
        return command, ""
    try:
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, capture_output=True, timeout=300)
        subprocess.run(
            [str(venv / "bin" / "pip"), "install", "-q", "harlequin"], check=True, capture_output=True, timeout=900
        )
    except (subprocess.SubprocessError, OSError) as error:
        shutil.rmtree(venv, ignore_errors=True)
        return None, f"harlequin could not be installed in its own venv ({type(error).__name__}): row skipped"
    return (command, "") if command.exists() else (None, "harlequin installed no command: row skipped")


def _harlequin_shown(text: str) -> bool:
    return "main db" in text and "Run Query" in text


def peer_first_screens(store: Path, reps: int) -> tuple[list[str], dict[str, Any]]:
    """Rows (figure | unit | min | median | max) and {"ratio": zett-browser ÷ harlequin, "notes"}."""
    notes: list[str] = []
    if shutil.which("tmux") is None:
        return [], {"notes": ["tmux is not installed: no peer figures"]}
    harlequin, why = ensure_harlequin(STORES)
    if harlequin is None:
        return [], {"notes": [why]}
    version = subprocess.run([str(harlequin), "--version"], capture_output=True, text=True).stdout.split("\n")[0]
    plan = make_plan(store.stem, store)
    app = Path(sys.executable).parent / "zett-browser"
    ours: list[float] = []
    theirs: list[float] = []
    ratios: list[float] = []
    loads: list[float] = []
    tmux = Tmux()

    def ours_once() -> None:
        started = tmux.start(f"exec {app} {store}")
        ours.append(tmux.wait_for(_first_page_shown(plan), started))
        tmux.stop()

    def theirs_once() -> None:
        started = tmux.start(f"exec {harlequin} -a sqlite --read-only {store}")
        theirs.append(tmux.wait_for(_harlequin_shown, started))
        time.sleep(0.5)
        tmux.stop()

    try:
        for rep in range(reps):
            # ABBA: the program that starts second meets a warmer page cache and a machine
            # settled by the first, so the order alternates between repetitions.
            loads.append(os.getloadavg()[0])
            for run in (ours_once, theirs_once) if rep % 2 == 0 else (theirs_once, ours_once):
                run()
            ratios.append(ours[-1] / theirs[-1])
            print(f"  peer repetition {rep + 1}/{reps} done", file=sys.stderr, flush=True)
    finally:
        tmux.close()

    def row(figure: str, values: list[float], unit: str = "ms", digits: int = 1) -> str:
        low, mid, high = min(values), statistics.median(values), max(values)
        return f"| {figure} | {unit} | {low:.{digits}f} | {mid:.{digits}f} | {high:.{digits}f} |"

    notes.append(f"peer: {version} (sqlite adapter, --read-only), its own venv")
    rows = [
        row("first screen, zett-browser (tree + first page)", ours),
        row("first screen, harlequin (catalog + editor)", theirs),
        row("zett-browser ÷ harlequin, same repetition (ABBA order)", ratios, "×", 2),
        row("machine load (1-minute average) at each repetition", loads, "", 2),
    ]
    return rows, {"ratio": statistics.median(ratios), "notes": notes}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--store", type=Path, default=cached("1M", STORES))
    args = parser.parse_args()
    rows, extra = peer_first_screens(args.store, args.reps)
    if rows:
        print("| figure | unit | min | median | max |\n|---|---|---|---|---|")
        print("\n".join(rows))
    for note in extra.get("notes", []):
        print(f"- {note}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
