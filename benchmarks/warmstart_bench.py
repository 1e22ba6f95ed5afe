"""Warm start or not: first paint of a store opened through the SQL storage, side by side.

    python benchmarks/warmstart_bench.py [--reps 9] [--no-postgres]

The warm start (``startup/warmstart.py``) runs the first screen's reads on a thread while
Textual starts; it serves the stores the start-up reader does not (server stores, and the
demo and SQLite files the start-up reader declines). Each repetition runs, in fresh
headless processes one right after the other, the command line's path for such a store
(``open_store``, ``preflight``, then the app) with and without it, on the 10k store
(``bigstore``, built once in a temporary directory) and, unless ``--no-postgres``, on the
same rows in a throwaway loopback PostgreSQL (``tests/servers.py``). "First paint" is the
first frame showing the tree's roots and the first page (``app_bench.FrameWatch``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _child(target: str, warm_on: bool) -> dict[str, Any]:
    """The command line's path for a store the start-up reader does not read (``run_app``)."""
    from zett_browser.cli.args import preflight
    from zett_browser.startup.warmstart import WarmStart
    from zett_browser.storage import open_store

    storage = open_store(target)
    problem = asyncio.run(preflight(storage, None, None))  # on a loop of its own, as __main__ does
    assert problem is None, problem
    warm = WarmStart(storage, session=None, seq=None, page_size=50).start() if warm_on else None
    return asyncio.run(_app(storage, warm, warm_on))


async def _app(storage: Any, warm: Any, warm_on: bool) -> dict[str, Any]:

    import zett_browser.app as app_module
    from benchmarks.app_bench import FrameWatch
    from zett_browser.widgets.rawlog import RawLogView
    from zett_browser.widgets.session_tree import SessionTree

    if not warm_on:

        class Off:
            """make_app's own warm start, turned off."""

            def __init__(self, *_args: object, **_kwargs: object) -> None:
                pass

            def start(self) -> None:
                return None

        app_module.WarmStart = Off  # type: ignore[misc,assignment]  # benchmark only: the path without it
    app = app_module.make_app(storage, warm=warm)
    watch = FrameWatch(app)
    watch.arm(
        lambda: bool(app.screen.query_one(SessionTree).root.children) and bool(app.screen.query_one(RawLogView).records)
    )
    async with app.run_test(size=(160, 45)) as pilot:
        first_paint = await watch.wait()
        await pilot.app.workers.wait_for_complete()
    if warm is not None:
        warm.finish()
    return {"first_paint": first_paint}


def run_child(target: str, warm_on: bool) -> float:
    command = [sys.executable, __file__, "--child", "warm" if warm_on else "cold", "--target", target]
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=300, check=False)
    if done.returncode != 0:
        raise RuntimeError(done.stderr[-3000:])
    result = json.loads(done.stdout.strip().splitlines()[-1])
    return float(result["first_paint"] - started) * 1000


def _postgres_copy(path: Path) -> tuple[Any, str]:
    """The store's rows in a fresh database of a throwaway PostgreSQL: (server, owner URL)."""
    from tests.backends import server_backend
    from tests.servers import start_postgres
    from zett_browser.storage import schema

    server = start_postgres()
    backend = server_backend("postgresql", server, server.create_database())
    from sqlalchemy import URL, MetaData, Table, create_engine

    reader = create_engine(URL.create("sqlite", database=str(path)))
    writer = backend.raw()
    schema.metadata.create_all(writer)
    widened = MetaData()
    with reader.connect() as source, writer.begin() as target:
        for column in ("duration_ns", "reasoning_duration_ns", "content_duration_ns"):
            target.exec_driver_sql(f"ALTER TABLE raw_messages ALTER COLUMN {column} TYPE BIGINT")
        for table in schema.metadata.sorted_tables:
            rows = [dict(row) for row in source.execute(table.select()).mappings()]
            if rows:
                target.execute(Table(table.name, widened, autoload_with=target).insert(), rows)
    reader.dispose()
    writer.dispose()
    return server, backend.target


class DelayProxy:
    """A TCP forwarder adding ``delay`` seconds each way (a server ``2 × delay`` away), on a thread."""

    def __init__(self, port: int, delay: float) -> None:
        self.target, self.delay, self.port = port, delay, 0
        self.loop = asyncio.new_event_loop()
        ready = threading.Event()
        threading.Thread(target=self._run, args=(ready,), daemon=True).start()
        ready.wait()

    def _run(self, ready: threading.Event) -> None:
        async def serve() -> None:
            server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
            self.port = server.sockets[0].getsockname()[1]
            ready.set()
            await server.serve_forever()

        self.loop.run_until_complete(serve())

    async def _serve(self, client_in: asyncio.StreamReader, client_out: asyncio.StreamWriter) -> None:
        server_in, server_out = await asyncio.open_connection("127.0.0.1", self.target)
        await asyncio.gather(self._pump(client_in, server_out), self._pump(server_in, client_out))

    async def _pump(self, source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
        queue: asyncio.Queue[tuple[float, bytes]] = asyncio.Queue()

        async def deliver() -> None:
            while True:
                due, data = await queue.get()
                await asyncio.sleep(max(0.0, due - time.monotonic()))
                if not data:
                    sink.close()
                    return
                sink.write(data)
                await sink.drain()

        delivering = asyncio.create_task(deliver())
        while True:
            data = await source.read(65536)
            queue.put_nowait((time.monotonic() + self.delay, data))
            if not data:
                break
        await delivering


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reps", type=int, default=9)
    parser.add_argument("--no-postgres", action="store_true")
    parser.add_argument("--delay-ms", type=float, default=20.0, help="round trip added to the far PostgreSQL")
    parser.add_argument("--child", choices=["warm", "cold"], help=argparse.SUPPRESS)
    parser.add_argument("--target", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(_child(args.target, args.child == "warm")), flush=True)
        return 0
    from sqlalchemy import make_url

    from benchmarks.app_bench import installed_bytecode
    from benchmarks.bigstore import build

    installed_bytecode()
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "10k.sqlite3"
        build(path, messages=10_000, sessions=1_200, big=2_000, fanout=1_000)
        targets = {"10k SQLite (SQL storage)": str(path)}
        server = None
        if not args.no_postgres:
            server, url = _postgres_copy(path)
            targets["10k PostgreSQL (loopback)"] = url
            parsed = make_url(url)
            assert parsed.port is not None
            far = DelayProxy(parsed.port, args.delay_ms / 2000)
            targets[f"10k PostgreSQL ({args.delay_ms:g} ms round trip)"] = parsed.set(port=far.port).render_as_string(
                hide_password=False
            )
        try:
            figures: dict[str, dict[bool, list[float]]] = {name: {True: [], False: []} for name in targets}
            for rep in range(args.reps):
                for name, target in targets.items():
                    order = (True, False) if rep % 2 == 0 else (False, True)
                    for warm_on in order:
                        figures[name][warm_on].append(run_child(target, warm_on))
                print(f"  repetition {rep + 1}/{args.reps} done", file=sys.stderr, flush=True)
        finally:
            if server is not None:
                server.stop()
    print("| store | warm start | min ms | median ms | max ms |\n|---|---|---|---|---|")
    for name, by in figures.items():
        for warm_on in (True, False):
            values = by[warm_on]
            low, mid, high = min(values), statistics.median(values), max(values)
            print(f"| {name} | {'on' if warm_on else 'off'} | {low:.0f} | {mid:.0f} | {high:.0f} |")
        ratios = [on / off for on, off in zip(by[True], by[False], strict=True)]
        print(f"| {name} | on ÷ off, median of pairs | {statistics.median(ratios):.2f} | | |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
