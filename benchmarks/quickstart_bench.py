"""Times the start-up reader (QuickStart) on a store: to its preflight and to every future done.

Each run is a fresh process (nothing cached in Python; the OS page cache stays warm
after the first run). ``import_ms`` is importing the reader (mostly stdlib modules
Textual imports anyway); ``preflight_ms`` and ``all_ms`` count from ``QuickStart(...)``.
``--exact`` decodes with the storage's pydantic decoder (its import not counted), an
upper bound until the fast decoder is merged. Usage::

    python -m benchmarks.quickstart_bench ~/.cache/zett-browser-bench/1M-v3.sqlite3 [--runs 5] [--session ID]

The store is only read (``mode=ro``); the -wal/-shm files a read of a WAL store creates
are removed afterwards when that is safe, as the browser does.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

CHILD = r"""
import json, sys, time
started = time.perf_counter()
from zett_browser.storage.quickstart import DECLINED, QuickStart
imported = time.perf_counter()
path, session, exact = sys.argv[1], sys.argv[2] or None, sys.argv[3] == "1"
if exact:
    from zett_browser.storage import quickstart
    from zett_browser.storage.codec import decode_message_leniently
    quickstart.decode_fast = decode_message_leniently
import_ms = (imported - started) * 1000
started = time.perf_counter()
quick = QuickStart(path, session=session, seq=None, page_size=50).start()
ready = quick.preflight()
preflight = time.perf_counter()
quick.thread.join()
done = time.perf_counter()
futures = list(quick._promised.values())
declined = sum(future.result() is DECLINED for future in futures)
quick.finish()
quick.guard.release()
print(json.dumps({"import_ms": import_ms, "preflight_ms": (preflight - started) * 1000,
                  "all_ms": (done - started) * 1000, "futures": len(futures), "declined": declined, "ready": ready}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("store", type=Path)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--session", default="")
    parser.add_argument(
        "--exact", action="store_true", help="decode with the storage's pydantic decoder (not timed: its import)"
    )
    args = parser.parse_args()
    runs = []
    for _ in range(args.runs):
        out = subprocess.run(
            [sys.executable, "-c", CHILD, str(args.store), args.session, "1" if args.exact else "0"],
            capture_output=True,
            text=True,
            check=True,
        )
        runs.append(json.loads(out.stdout))
        print(runs[-1], file=sys.stderr)
    for key in ("import_ms", "preflight_ms", "all_ms"):
        values = [run[key] for run in runs]
        print(f"{key:13} median {statistics.median(values):7.1f}  min {min(values):7.1f}  max {max(values):7.1f}")
    print(f"futures {runs[0]['futures']}, declined {runs[0]['declined']}, preflight {runs[0]['ready']}")


if __name__ == "__main__":
    main()
