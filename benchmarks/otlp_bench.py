"""OTLP export throughput and memory: one N-message session as OTLP/JSON and sent over OTLP/HTTP.

Target (issue 28): 100,000 messages exported as OTLP in at most 10 s. The store is
``export_bench``'s (the real zett-agent run of ``tests/fixtures/agent_run.sqlite3`` repeated
to N messages); each run is a process of its own: ``--format otlp --output`` (the JSON
file) and ``--otlp-endpoint`` to a collector on loopback that reads and discards each
request (a process of its own too, so it takes no time from the export's process). Prints
seconds, CPU seconds, messages/s, spans, output size and peak RSS.

    python benchmarks/otlp_bench.py [--sizes 10000] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.export_bench import ROOT, SESSION, build

CHILD = r"""
import asyncio, json, resource, sys, time
from pathlib import Path
from zett_browser.export import ExportOptions
from zett_browser.export.files import export_file
from zett_browser.export.otlp_export import send_session
from zett_browser.storage import open_store

async def main(store, session, target):
    storage = open_store(store)
    options = ExportOptions(format="otlp")
    try:
        started, cpu = time.perf_counter(), time.process_time()
        if target.startswith("http://"):
            report = await send_session(storage, session, options, target, {})
            size = 0
        else:
            report = await export_file(storage, session, options, Path(target), force=True)
            size = Path(target).stat().st_size
        seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    finally:
        await storage.close()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"messages": report.messages, "spans": report.spans, "seconds": seconds, "cpu": cpu,
                      "bytes": size, "rss_mb": peak}))

asyncio.run(main(*sys.argv[1:]))
"""

#: A collector that accepts and discards every request (status 200, empty body).
SINK = r"""
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_POST(self):
        self.rfile.read(int(self.headers["Content-Length"]))
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()
    def log_message(self, *args):
        pass
ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
"""


def _port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def run(store: Path, target: str) -> dict[str, float]:
    result = subprocess.run(
        [sys.executable, "-c", CHILD, str(store), SESSION, target], capture_output=True, text=True, check=True, cwd=ROOT
    )
    return json.loads(result.stdout)  # type: ignore[no-any-return]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000])
    parser.add_argument("--keep", type=Path, default=None, help="build the stores in DIR and keep them")
    args = parser.parse_args()
    directory = args.keep or Path(tempfile.mkdtemp(prefix="zett-otlp-bench-"))
    directory.mkdir(parents=True, exist_ok=True)
    port = _port()
    sink = subprocess.Popen([sys.executable, "-c", SINK, str(port)])
    print("| messages | to | spans | seconds | CPU s | messages/s | output MB | peak RSS MB |")
    print("|---|---|---|---|---|---|---|---|")
    try:
        time.sleep(0.5)
        for size in args.sizes:
            store = directory / f"export-{size}.sqlite3"
            if not store.exists():
                build(store, size)
            for label, target in (
                ("OTLP/JSON file", str(directory / "out.json")),
                ("OTLP/HTTP", f"http://127.0.0.1:{port}"),
            ):
                figures = run(store, target)
                print(
                    f"| {int(figures['messages']):,} | {label} | {int(figures['spans']):,} | "
                    f"{figures['seconds']:.1f} | {figures['cpu']:.1f} | "
                    f"{figures['messages'] / figures['seconds']:,.0f} | "
                    f"{figures['bytes'] / 1e6:,.1f} | {figures['rss_mb']:.0f} |",
                    flush=True,
                )
    finally:
        sink.terminate()
        sink.wait()
        if args.keep is None:
            shutil.rmtree(directory, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
