"""App figures: what a user waits for in zett-browser's UI, on the big stores.

Run by ``benchmarks/run.py``; also runnable alone::

    python benchmarks/app_bench.py [--reps 5] [--quick] [--no-tmux]

Every repetition is a fresh process, so process start and peak RSS are real. First paint,
page turns and peak RSS are measured two ways in the same run (expanding the wide node and
the pages of 100 KB outputs headless only), first paint and peak RSS next to the floor
(``bare_app.py``: a Textual app that paints one Static):

* **headless**: a child process builds the app with ``make_app(store)`` and drives it with
  ``app.run_test(size=(160, 45))``. "Shown" is the first frame Textual composes after the
  app's own widgets hold the awaited state (the tree has its root nodes, ``RawLogView.records``
  starts at the expected sequence, the expanded node has its children...). Frames are seen by
  wrapping the app instance's ``_display`` (Textual's single exit of every composited frame,
  which the headless driver then discards) from the benchmark; nothing in zett-browser is
  hooked. Times run from ``time.perf_counter()`` in the parent just before ``Popen`` (the
  monotonic clock, shared by both processes) to that frame; key latencies from just before
  the key is posted to that frame.
* **tmux**: the real ``zett-browser`` command in a detached 160×45 tmux pane (a private
  server, status line off); ``capture-pane -p`` is polled every ~5 ms until the text shows
  the first tree and page (or the next page's sequence numbers in the status line after
  ``send-keys``). Peak RSS is ``VmHWM`` of the pane's process just before it is killed.

Every app process uses an index directory of this run (``$ZETT_BROWSER_INDEX_DIR``), in which
each store's side index is built before the figures (warm); page turns while the app builds a
first index are ``build_turns.py``'s.

The child side of the headless runs is in this file too (``--child``). Until it imports the
app (or the bare app), the child has imported only the standard library, so both pay the
same start. Like the command line, the app's child starts the start-up reader of a SQLite
store (``zett_browser.startup.launch.begin``) before it imports Textual.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
BARE_APP = Path(__file__).resolve().parent / "bare_app.py"


def installed_bytecode() -> None:
    """Compile zett-browser's and the benchmarks' modules to ``__pycache__``, once.

    ``pip install`` compiles a package's bytecode at install time; an editable install
    writes it at first import, unless ``PYTHONDONTWRITEBYTECODE`` is set (as it is on some
    machines and containers). Then every run compiles ~40 modules from source again, ~35 ms
    of the first paint a user of an installed zett-browser never pays, while Textual, in
    site-packages, loads compiled. Every child of this run starts as an installed copy does.
    """
    global _compiled
    if not _compiled:
        import compileall

        for folder in ("zett_browser", "benchmarks"):
            compileall.compile_dir(ROOT / folder, quiet=1)
        _compiled = True


_compiled = False
SIZE = (160, 45)
PAGE = 50
#: Samples of each key latency taken in one process.
TURNS = 3
#: Seconds a reader looks at a page before turning it (the paused tmux turns only).
READING_PAUSE_S = 0.3
Samples = dict[str, list[float]]


def vm_hwm_kb(pid: int) -> int:
    """Peak resident set size (``VmHWM``) of a live process, in KiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise RuntimeError(f"no VmHWM for {pid}")


# ---------------------------------------------------------------------------------------------
# Child side: one headless run in a fresh process, printing one JSON line.


class FrameWatch:
    """Records the first composited frame after which a predicate on the app's state holds."""

    def __init__(self, app: Any) -> None:
        self.predicate: Callable[[], bool] | None = None
        self.hit = 0.0
        #: ``process_time()`` (all threads) at that frame.
        self.hit_cpu = 0.0
        self.first_frame = 0.0
        self.event = asyncio.Event()
        original = app._display

        def display(screen: Any, renderable: Any) -> None:
            shown = renderable is not None and not app._batch_count
            original(screen, renderable)
            if not shown:
                return
            now = time.perf_counter()
            if not self.first_frame:
                self.first_frame = now
            if self.predicate is not None and _holds(self.predicate):
                self.hit, self.hit_cpu, self.predicate = now, time.process_time(), None
                self.event.set()

        app._display = display

    def arm(self, predicate: Callable[[], bool]) -> None:
        """Wait for ``predicate`` from the next frame on (it must not hold yet)."""
        if _holds(predicate):
            raise RuntimeError("the awaited state already holds")
        self.predicate, self.hit = predicate, 0.0
        self.event.clear()

    async def wait(self, timeout: float = 120.0) -> float:
        """The ``perf_counter()`` time of the first frame after which the armed predicate held."""
        await asyncio.wait_for(self.event.wait(), timeout)
        return self.hit


def _holds(predicate: Callable[[], bool]) -> bool:
    try:
        return bool(predicate())
    except Exception:  # noqa: BLE001 - widgets not mounted yet
        return False


async def _key(pilot: Any, watch: FrameWatch, predicate: Callable[[], bool], *keys: str) -> float:
    """Press keys; ms from just before they are posted to the first frame showing the result."""
    watch.arm(predicate)
    started = time.perf_counter()
    await pilot.press(*keys)
    hit = await watch.wait()
    await pilot.app.workers.wait_for_complete()
    return (hit - started) * 1000


def _starts_at(first: Callable[[], int | None], sequence: int) -> Callable[[], bool]:
    """The Raw Log page starts at ``sequence``."""
    return lambda: first() == sequence


def _grows(node: Any) -> Callable[[], bool]:
    """The tree node has more children than now."""
    count = len(node.children)
    return lambda: len(node.children) > count


async def _child_app(store: str, plan: dict[str, Any]) -> dict[str, Any]:
    """The zett-browser scenario on one store; absolute ``perf_counter()`` times and ms samples."""
    # As the command line does: the garbage collector held off until the first screen is
    # up, and the first screen's reads started before Textual is imported.
    from zett_browser.startup.launch import begin, lazy_store, pause_collection

    pause_collection()
    quick = begin(store, session=None, seq=None, page_size=PAGE)
    from textual.widgets.tree import TreeNode

    from zett_browser.app import make_app
    from zett_browser.model import SessionNode
    from zett_browser.screens.main import MainScreen
    from zett_browser.widgets.rawlog import RawLogView
    from zett_browser.widgets.session_tree import More, SessionTree

    app = make_app(store) if quick is None else make_app(lazy_store(store, quick), warm=quick)
    watch = FrameWatch(app)

    def screen() -> MainScreen:
        current = app.screen
        assert isinstance(current, MainScreen)
        return current

    def view() -> RawLogView:
        return screen().query_one(RawLogView)

    def tree() -> SessionTree:
        return screen().query_one(SessionTree)

    def first() -> int | None:
        records = view().records
        return records[0].sequence if records else None

    def opened(session_id: str) -> bool:
        """The session is open and the Raw Log shows its first page."""
        state, records = screen().open, view().records
        return (
            state is not None
            and state.node.session_id == session_id
            and bool(records)
            and records[0].session_id == session_id
            and records[0].sequence == 1
        )

    samples: Samples = {}
    out: dict[str, Any] = {"samples": samples}
    watch.arm(lambda: bool(tree().root.children) and bool(view().records))
    async with app.run_test(size=SIZE) as pilot:
        out["first_paint"] = await watch.wait()
        out["first_frame"] = watch.first_frame
        out["hwm_first_paint_kb"] = vm_hwm_kb(os.getpid())
        if plan.get("first_only"):
            out["modules"] = sorted(sys.modules)
            await pilot.app.workers.wait_for_complete()  # exit with no read in flight
            return out
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        if plan.get("heavy"):
            # Every message of this store is a 100 KB tool output: page 1 is showing.
            for _ in range(TURNS):
                samples.setdefault("heavy_n", []).append(await _key(pilot, watch, lambda: first() == PAGE + 1, "n"))
                samples.setdefault("heavy_p", []).append(await _key(pilot, watch, lambda: first() == 1, "p"))
            out["maxrss_kb"] = vm_hwm_kb(os.getpid())
            return out
        big, fanout, last = plan["big"], plan["fanout"], plan["big_last"]

        # Bring the deep session and the wide node into the tree, a "more…" page at a time.
        pages = 0
        while tree().find(big) is None or tree().find(fanout) is None:
            more = next((node for node in tree().root.children if isinstance(node.data, More)), None)
            if more is None:
                raise RuntimeError("the deep session or the wide node is not among the roots")
            watch.arm(_grows(tree().root))
            tree().select_node(more)
            await watch.wait()
            await pilot.app.workers.wait_for_complete()
            pages += 1
        out["roots_pages_loaded"] = pages
        await pilot.pause()

        if opened(big):
            # The deep session is the newest root (opened at start): open another one first.
            other = next(
                node
                for node in tree().root.children
                if isinstance(node.data, SessionNode) and node.data.session_id not in (big, fanout)
            )
            assert isinstance(other.data, SessionNode)
            other_id = other.data.session_id
            tree().focus()
            tree().move_cursor(other)
            await pilot.pause()
            await _key(pilot, watch, lambda: opened(other_id), "enter")
            await pilot.pause()

        # Open the deep session from the tree (enter).
        node = tree().find(big)
        assert node is not None
        tree().focus()
        tree().move_cursor(node)
        await pilot.pause()
        samples["open"] = [await _key(pilot, watch, lambda: opened(big), "enter")]
        await pilot.pause()

        for _ in range(TURNS):
            samples.setdefault("turn_first_n", []).append(await _key(pilot, watch, lambda: first() == PAGE + 1, "n"))
            await _key(pilot, watch, lambda: first() == 1, "g")

        # ": NUMBER enter" to the page holding the most 100 KB outputs, and to a page holding none.
        for key in ("heavy_seq", "plain_seq"):
            sequence = plan.get(key)
            if not sequence:
                continue
            for _ in range(TURNS):
                await pilot.press("colon", *str(sequence))
                samples.setdefault(key.replace("_seq", "_jump"), []).append(
                    await _key(pilot, watch, _starts_at(first, _jump_start(sequence, last)), "enter")
                )
                await _key(pilot, watch, lambda: first() == 1, "g")

        last_first = last - PAGE + 1
        samples["last_G"] = [await _key(pilot, watch, lambda: bool(view().records) and first() == last_first, "G")]
        for _ in range(TURNS):
            samples.setdefault("turn_last_p", []).append(
                await _key(pilot, watch, lambda: first() == last_first - PAGE, "p")
            )
            samples.setdefault("turn_last_n", []).append(await _key(pilot, watch, lambda: first() == last_first, "n"))

        # Expand the node with 1,000 children (space), then its "more…" (enter).
        wide: TreeNode[Any] | None = tree().find(fanout)
        assert wide is not None and isinstance(wide.data, SessionNode)
        tree().focus()
        tree().move_cursor(wide)
        await pilot.pause()
        samples["expand"] = [await _key(pilot, watch, lambda: len(wide.children) > 0, "space")]
        out["children_after_expand"] = sum(isinstance(child.data, SessionNode) for child in wide.children)
        await pilot.pause()
        more = wide.children[-1]
        if isinstance(more.data, More):
            tree().move_cursor(more)
            await pilot.pause()
            samples["expand_more"] = [await _key(pilot, watch, _grows(wide), "enter")]
        out["maxrss_kb"] = vm_hwm_kb(os.getpid())
    return out


async def _child_bare(stack: bool = False) -> dict[str, Any]:
    """The floor: the bare Textual app's first paint and peak RSS.

    With ``stack``, the app first imports the packages zett-browser is built on
    (SQLAlchemy's asyncio extension, aiosqlite, pydantic) and does nothing with them:
    the floor of any app on that stack, shown for reference (not a target).
    """
    sys.path.insert(0, str(ROOT))
    if stack:
        import aiosqlite  # noqa: F401
        import pydantic  # noqa: F401
        import sqlalchemy.ext.asyncio  # noqa: F401
    from benchmarks.bare_app import BareApp

    app = BareApp()
    watch = FrameWatch(app)
    watch.arm(lambda: app.query_one("#bare").size.width > 0)
    out: dict[str, Any] = {"samples": {}}
    async with app.run_test(size=SIZE):
        out["first_paint"] = await watch.wait()
        out["first_frame"] = watch.first_frame
        out["hwm_first_paint_kb"] = vm_hwm_kb(os.getpid())
        out["maxrss_kb"] = vm_hwm_kb(os.getpid())
    return out


def child_main(kind: str, store: str, plan: str) -> None:
    """Run one headless repetition and print its figures as one JSON line."""
    if kind in ("bare", "stack"):
        result = asyncio.run(_child_bare(stack=kind == "stack"))
    else:
        result = asyncio.run(_child_app(store, json.loads(plan)))
    print(json.dumps(result), flush=True)


# ---------------------------------------------------------------------------------------------
# Parent side.


@dataclass
class Plan:
    """What a run on one store looks for: the deep session, the wide node, the heavy page."""

    name: str
    path: Path
    big: str
    big_last: int
    fanout: str
    newest_label: str
    heavy_seq: int | None = None
    plain_seq: int | None = None
    heavy_count: int = 0
    heavy: bool = False

    def child_json(self) -> str:
        """The plan as the child reads it (``--plan``)."""
        return json.dumps(
            {
                "big": self.big,
                "big_last": self.big_last,
                "fanout": self.fanout,
                "heavy_seq": self.heavy_seq,
                "plain_seq": self.plain_seq,
                "heavy": self.heavy,
            }
        )


async def _newest_label(path: Path) -> str:
    """The start of the tree's first label (the newest root), as the app lists it."""
    from zett_browser.storage import open_store

    storage = open_store(path)
    try:
        newest = (await storage.list_roots(limit=1)).items[0]
    finally:
        await storage.close()
    return (newest.title or newest.session_id[:8])[:16]


def make_plan(name: str, path: Path, *, heavy: bool = False) -> Plan:
    """Find what the runs look for in a store (plain SQL; the app's storage for the newest root)."""
    from benchmarks.bigstore import BIG_SESSION, FANOUT_ROOT, HEAVY_SESSION

    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        big = HEAVY_SESSION if heavy else BIG_SESSION
        (last,) = db.execute("select max(sequence) from raw_messages where session_id = ?", (big,)).fetchone()
        plan = Plan(name, path, big, int(last), FANOUT_ROOT, asyncio.run(_newest_label(path)), heavy=heavy)
        if not heavy:
            # The page of the deep session holding the most 100 KB tool outputs.
            row = db.execute(
                "select min(sequence), count(*) from raw_messages where session_id = ? and role = 4"
                " and length(content) >= 100000 group by (sequence - 1) / ? order by count(*) desc, 1 limit 1",
                (big, PAGE),
            ).fetchone()
            if row is not None:
                plan.heavy_seq, plan.heavy_count = int(row[0]), int(row[1])
            # A page past the first two holding no 100 KB output: the same jump without them.
            heavy_pages = {
                page
                for (page,) in db.execute(
                    "select distinct (sequence - 1) / ? from raw_messages where session_id = ? and role = 4"
                    " and length(content) >= 100000",
                    (PAGE, big),
                )
            }
            plain = next((page for page in range(2, last // PAGE) if page not in heavy_pages), None)
            plan.plain_seq = None if plain is None else plain * PAGE + 1
        return plan
    finally:
        db.close()


def run_child(kind: str, plan: Plan | None) -> dict[str, Any]:
    """One headless repetition in a fresh process; times in ms from just before ``Popen``."""
    installed_bytecode()
    command = [sys.executable, str(Path(__file__).resolve()), "--child", kind]
    if plan is not None:
        command += ["--store", str(plan.path), "--plan", plan.child_json()]
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        stdout, stderr = process.communicate(timeout=600)
    except subprocess.TimeoutExpired:
        process.kill()
        stdout, stderr = process.communicate()
    if process.returncode != 0 or not stdout.strip():
        raise RuntimeError(f"headless {kind} run failed ({process.returncode}):\n{stderr[-4000:]}")
    result: dict[str, Any] = json.loads(stdout.strip().splitlines()[-1])
    for key in ("first_paint", "first_frame"):
        result[key] = (result[key] - started) * 1000
    return result


class Tmux:
    """A private tmux server (its own socket, no status line) running one pane at a time."""

    def __init__(self) -> None:
        installed_bytecode()
        self.socket = f"zett-bench-{os.getpid()}"
        self.env = {**os.environ, "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"}
        self.env.pop("TMUX", None)
        self._tmux("-f", "/dev/null", "start-server", ";", "set-option", "-g", "exit-empty", "off")
        self._tmux("set-option", "-g", "status", "off")

    def _tmux(self, *args: str) -> str:
        result = subprocess.run(
            ["tmux", "-u", "-L", self.socket, *args], capture_output=True, text=True, env=self.env, check=True
        )
        return result.stdout

    def start(self, command: str) -> float:
        """Start ``command`` in a 160×45 pane; the perf_counter time just before the tmux command."""
        started = time.perf_counter()
        self._tmux("new-session", "-d", "-s", "bench", "-x", str(SIZE[0]), "-y", str(SIZE[1]), command)
        return started

    def capture(self) -> str:
        """The pane's text."""
        return self._tmux("capture-pane", "-p", "-t", "bench")

    def wait_for(self, shown: Callable[[str], bool], started: float, timeout: float = 120.0) -> float:
        """Poll the pane every ~5 ms; ms from ``started`` to the capture that shows it."""
        while True:
            polled = time.perf_counter()
            text = self.capture()
            now = time.perf_counter()
            if shown(text):
                return (now - started) * 1000
            if now - started > timeout:
                raise TimeoutError(f"tmux pane never showed what was awaited; last capture:\n{text}")
            time.sleep(max(0.0, 0.005 - (now - polled)))

    def settle(self, quiet: float = 0.2, timeout: float = 10.0) -> None:
        """Wait until the pane's text has not changed for ``quiet`` seconds."""
        started = last_change = time.perf_counter()
        text = self.capture()
        while time.perf_counter() - last_change < quiet and time.perf_counter() - started < timeout:
            time.sleep(0.01)
            now = self.capture()
            if now != text:
                text, last_change = now, time.perf_counter()

    def key(self, key: str, shown: Callable[[str], bool]) -> float:
        """Send a key; ms from just before ``send-keys`` to the capture that shows the result."""
        started = time.perf_counter()
        self._tmux("send-keys", "-t", "bench", key)
        return self.wait_for(shown, started)

    def stop(self) -> int:
        """Kill the pane; its peak RSS in KiB, read just before."""
        pid = int(self._tmux("list-panes", "-t", "bench", "-F", "#{pane_pid}").split()[0])
        peak = vm_hwm_kb(pid)
        self._tmux("kill-session", "-t", "bench")
        return peak

    def close(self) -> None:
        """Stop the private server (and whatever still runs in it) and remove its socket."""
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True, env=self.env)
        directory = Path(os.environ.get("TMUX_TMPDIR") or "/tmp") / f"tmux-{os.getuid()}"
        (directory / self.socket).unlink(missing_ok=True)


def _status(first: int, last: int, count: int) -> str:
    return f"#{first:,}–{last:,} of {count:,}"


def _first_page_shown(plan: Plan) -> Callable[[str], bool]:
    page = re.compile(r"RAW LOG\s+#1–[\d,]+ of")
    return lambda text: bool(page.search(text)) and plan.newest_label in text


@dataclass
class AppResults:
    """Samples per figure, headless and tmux, plus notes on what was measured."""

    headless: Samples = field(default_factory=dict)
    tmux: Samples = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def add(self, method: str, figure: str, values: list[float] | float) -> None:
        """Append samples to a figure of ``method`` ("headless" or "tmux")."""
        target = self.headless if method == "headless" else self.tmux
        target.setdefault(figure, []).extend(values if isinstance(values, list) else [values])


def _headless(results: AppResults, plans: list[Plan], large: str, heavy: Plan, reps: int) -> None:
    names = {
        "turn_first_n": "page turn at the first page (n)",
        "turn_last_p": "page turn at the last page (p)",
        "turn_last_n": "page turn onto the last page (n)",
        "last_G": "jump to the last page (G)",
        "open": "open the deep session (enter in the tree)",
        "expand": "expand the node with 1,000 children (space)",
        "expand_more": "next 200 children (more…, enter)",
    }
    for rep in range(reps):
        bare = run_child("bare", None)
        results.add("headless", "first paint, bare Textual app", bare["first_paint"])
        results.add("headless", "peak RSS, bare Textual app", bare["maxrss_kb"] / 1024)
        stack = run_child("stack", None)
        results.add(
            "headless", "first paint, bare app + SQLAlchemy asyncio, aiosqlite, pydantic imported", stack["first_paint"]
        )
        for plan in plans:
            got = run_child("app", plan)
            results.add("headless", f"first paint, {plan.name}", got["first_paint"])
            results.add("headless", f"first frame (any), {plan.name}", got["first_frame"])
            results.add("headless", f"peak RSS at first paint, {plan.name}", got["hwm_first_paint_kb"] / 1024)
            results.add("headless", f"peak RSS, {plan.name}", got["maxrss_kb"] / 1024)
            for key, values in got["samples"].items():
                if key == "heavy_jump":
                    label = f"page with {plan.heavy_count} × 100 KB outputs (: jump)"
                elif key == "plain_jump":
                    label = "page with no 100 KB output (: jump, for comparison)"
                else:
                    label = names[key]
                results.add("headless", f"{label}, {plan.name}", values)
            if rep == 0:
                results.notes.append(
                    f"{plan.name}: {got['roots_pages_loaded']} more… pages of roots loaded to reach the deep session"
                    f" and the wide node; expanding shows {got['children_after_expand']} children and a more… entry"
                )
        got = run_child("app", heavy)
        results.add("headless", "first paint, heavy store", got["first_paint"])
        results.add("headless", "peak RSS, heavy store", got["maxrss_kb"] / 1024)
        results.add("headless", "page of 50 × 100 KB outputs (n)", got["samples"]["heavy_n"])
        results.add("headless", "page of 50 × 100 KB outputs (p)", got["samples"]["heavy_p"])
        print(f"  headless repetition {rep + 1}/{reps} done", file=sys.stderr, flush=True)


def _echoed(count: int) -> Callable[[str], bool]:
    """The pane shows ``count`` echoed x's."""
    return lambda text: text.count("x") >= count


def _jump_start(sequence: int, last: int) -> int:
    """The first sequence of the page a ``:`` jump to ``sequence`` shows (``paging.jump_page``)."""
    from zett_browser.views.paging import jump_page

    request = jump_page(sequence, PAGE, 1, last)
    return 1 if request.start else (request.after or 0) + 1


def _shows(first: int, last: int, count: int) -> Callable[[str], bool]:
    """The status line shows this page."""
    status = _status(first, last, count)
    return lambda text: status in text


def _tmux_turns(tmux: Tmux, results: AppResults, large: Plan) -> None:
    """Page turns in the deep session, opened with ``--session``."""
    app = Path(sys.executable).parent / "zett-browser"
    last = count = large.big_last
    last_first = last - PAGE + 1
    started = tmux.start(f"exec {app} --session {large.big} {large.path}")
    tmux.wait_for(_shows(1, PAGE, count), started)
    # A key the moment the first page shows meets the rest of start-up (the footer, borders
    # and scrollbars laid out, the tree landing on the session): a row of its own.
    first = tmux.key("n", _shows(PAGE + 1, 2 * PAGE, count))
    results.add("tmux", f"page turn the moment the first page shows (n), {large.name}", first)
    tmux.key("g", _shows(1, PAGE, count))
    # As in the headless run, the page turns start from a settled first screen.
    tmux.settle()
    for _ in range(TURNS):
        turn = tmux.key("n", _shows(PAGE + 1, 2 * PAGE, count))
        results.add("tmux", f"page turn at the first page (n), {large.name}", turn)
        tmux.key("g", _shows(1, PAGE, count))
    # The turns above follow each other at once, so each also waits for the rest of the
    # previous page's layout. The same turn after a reader's pause, for comparison:
    for _ in range(TURNS):
        time.sleep(READING_PAUSE_S)
        turn = tmux.key("n", _shows(PAGE + 1, 2 * PAGE, count))
        results.add("tmux", f"page turn at the first page after a {READING_PAUSE_S:g} s pause (n), {large.name}", turn)
        time.sleep(READING_PAUSE_S)
        tmux.key("g", _shows(1, PAGE, count))
    results.add("tmux", f"jump to the last page (G), {large.name}", tmux.key("G", _shows(last_first, last, count)))
    for _ in range(TURNS):
        turn = tmux.key("p", _shows(last_first - PAGE, last_first - 1, count))
        results.add("tmux", f"page turn at the last page (p), {large.name}", turn)
        turn = tmux.key("n", _shows(last_first, last, count))
        results.add("tmux", f"page turn onto the last page (n), {large.name}", turn)


def _tmux(results: AppResults, plans: list[Plan], large: Plan, reps: int) -> None:
    from benchmarks.bare_app import MARKER

    app = Path(sys.executable).parent / "zett-browser"
    tmux = Tmux()
    try:
        for rep in range(reps):
            started = tmux.start(f"exec {sys.executable} {BARE_APP}")
            results.add("tmux", "first paint, bare Textual app", tmux.wait_for(lambda text: MARKER in text, started))
            time.sleep(1.0)  # idle before reading the peak (not a measurement)
            results.add("tmux", "peak RSS, bare Textual app", tmux.stop() / 1024)
            tmux.start("exec cat")
            for count in range(1, TURNS + 1):
                # The floor of a tmux key latency: the tty echoes the key (send-keys + capture polling).
                echo = tmux.key("x", _echoed(count))
                results.add("tmux", "key echo by the tty (the measuring floor)", echo)
            tmux.stop()
            for plan in plans:
                started = tmux.start(f"exec {app} {plan.path}")
                results.add("tmux", f"first paint, {plan.name}", tmux.wait_for(_first_page_shown(plan), started))
                time.sleep(1.0)
                results.add("tmux", f"peak RSS after first paint, {plan.name}", tmux.stop() / 1024)
            _tmux_turns(tmux, results, large)
            results.add("tmux", f"peak RSS after the page turns, {large.name}", tmux.stop() / 1024)
            print(f"  tmux repetition {rep + 1}/{reps} done", file=sys.stderr, flush=True)
    finally:
        tmux.close()


#: The environment variable naming the app's index directory (``zett_browser.index.ENV_DIR``).
INDEX_ENV = "ZETT_BROWSER_INDEX_DIR"


@contextlib.contextmanager
def own_index_dir() -> Iterator[Path]:
    """Every app process of the block uses an index directory of this run (hermetic: never the
    user's cache, no index left by an earlier run), removed after; one set already is kept."""
    if os.environ.get(INDEX_ENV):
        yield Path(os.environ[INDEX_ENV])
        return
    directory = Path(tempfile.mkdtemp(prefix="zett-bench-app-index-"))
    os.environ[INDEX_ENV] = str(directory)
    try:
        yield directory
    finally:
        os.environ.pop(INDEX_ENV, None)
        shutil.rmtree(directory, ignore_errors=True)


def warm_indexes(paths: list[Path]) -> list[str]:
    """Build the side index of each store in the run's index directory (``zett-browser index``):
    the app figures are taken with a warm index; page turns during a first build are
    ``build_turns.py``'s."""
    notes = []
    for path in paths:
        started = time.perf_counter()
        command = [sys.executable, "-m", "zett_browser", "index", str(path)]
        subprocess.run(command, check=True, capture_output=True, cwd=ROOT)
        notes.append(f"{path.name}: index built warm before the app figures in {time.perf_counter() - started:.0f} s")
    return notes


def app_figures(stores: dict[str, Path], large: str, heavy: Path, reps: int, *, use_tmux: bool = True) -> AppResults:
    """Run the headless and tmux repetitions on the stores, each app with a warm index in
    this run's own index directory; samples in ms and MB."""
    with own_index_dir() as directory:
        results = AppResults()
        results.notes.append(f"app processes use this run's index directory {directory}")
        results.notes += warm_indexes([*stores.values(), heavy])
        return _app_figures(results, stores, large, heavy, reps, use_tmux=use_tmux)


def _app_figures(
    results: AppResults, stores: dict[str, Path], large: str, heavy: Path, reps: int, *, use_tmux: bool
) -> AppResults:
    started = time.perf_counter()
    plans = [make_plan(name, path) for name, path in stores.items()]
    heavy_plan = make_plan("heavy", heavy, heavy=True)
    for plan in plans:
        if plan.heavy_seq is None:
            results.notes.append(f"{plan.name}: the deep session holds no 100 KB output")
        else:
            results.notes.append(
                f"{plan.name}: deep session of {plan.big_last:,} messages; its page holding the most 100 KB outputs"
                f" holds {plan.heavy_count} (jump to #{plan.heavy_seq}); a page holding none: #{plan.plain_seq}"
            )
    _headless(results, plans, large, heavy_plan, reps)
    if use_tmux and shutil.which("tmux") is None:
        results.notes.append("tmux is not installed: no tmux figures (apt-get install -y tmux)")
    elif use_tmux:
        _tmux(results, plans, next(plan for plan in plans if plan.name == large), reps)
    results.seconds = time.perf_counter() - started
    return results


def summary(values: list[float]) -> tuple[float, float, float]:
    """Min, median and max."""
    return min(values), statistics.median(values), max(values)


def _order(figure: str) -> int:
    if figure.startswith(("first paint", "first frame")):
        return 0
    return 2 if "RSS" in figure else 1


def print_tables(results: AppResults, reps: int) -> None:
    """Print the headless and tmux tables (Markdown) and the notes."""
    for method, samples in (("headless, run_test(size=(160, 45))", results.headless), ("tmux, 160×45", results.tmux)):
        if not samples:
            continue
        print(f"\n### App, {method} ({reps} processes; key latencies {TURNS} per process)\n")
        print("| figure | unit | min | median | max |\n|---|---|---|---|---|")
        for figure in sorted(samples, key=_order):
            low, mid, high = summary(samples[figure])
            unit = "MB" if "RSS" in figure else "ms"
            print(f"| {figure} | {unit} | {low:.1f} | {mid:.1f} | {high:.1f} |")
    print()
    for note in results.notes:
        print(f"- {note}")
    print(f"- app figures took {results.seconds:.0f} s")


def app_checks(results: AppResults, stores: list[str], large: str) -> list[tuple[str, float, float]]:
    """(target, measured, limit) on medians: measured <= limit passes."""
    checks: list[tuple[str, float, float]] = []

    def med(samples: Samples, figure: str) -> float:
        return statistics.median(samples[figure])

    for method, samples in (("headless", results.headless), ("tmux", results.tmux)):
        if not samples:
            continue
        bare = med(samples, "first paint, bare Textual app")
        for name in stores:
            checks.append(
                (f"{method}: first paint {name} <= 2x bare app", med(samples, f"first paint, {name}") / bare, 2.0)
            )
        for figure in (
            "page turn at the first page (n)",
            "page turn at the last page (p)",
            "page turn onto the last page (n)",
        ):
            checks.append((f"{method}: {figure}, {large} <= 50 ms", med(samples, f"{figure}, {large}"), 50.0))
        if method == "headless":
            for name in stores:
                figure = f"expand the node with 1,000 children (space), {name}"
                checks.append((f"headless: {figure} <= 100 ms", med(samples, figure), 100.0))
            for figure in samples:
                if "× 100 KB outputs" in figure:
                    checks.append((f"headless: {figure} <= 100 ms", med(samples, figure), 100.0))
            rss = "peak RSS, "
        else:
            rss = "peak RSS after first paint, "
        small = stores[0]
        checks.append(
            (
                f"{method}: peak RSS {large} within 1.2x of {small}",
                med(samples, rss + large) / med(samples, rss + small),
                1.2,
            )
        )
        checks.append((f"{method}: peak RSS {large} < 250 MB", med(samples, rss + large), 250.0))
    return checks


def ensure_heavy(directory: Path) -> Path:
    """The small store whose pages are 50 × 100 KB tool outputs (built once, cached)."""
    from benchmarks.bigstore import build_heavy

    path = directory / "heavy.sqlite3"
    if not path.exists():
        partial = directory / "heavy.partial.sqlite3"
        for leftover in directory.glob("heavy.partial.sqlite3*"):
            leftover.unlink()
        build_heavy(partial)
        partial.rename(path)
    return path


def _stores(directory: Path, quick: bool) -> Iterator[tuple[str, Path]]:
    from benchmarks.bigstore import cached

    yield "10k", cached("10k", directory)
    yield ("100k", cached("100k", directory)) if quick else ("1M", cached("1M", directory))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--child", choices=["app", "bare", "stack"], help=argparse.SUPPRESS)
    parser.add_argument("--store", help=argparse.SUPPRESS)
    parser.add_argument("--plan", help=argparse.SUPPRESS)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--stores", type=Path, default=Path.home() / ".cache" / "zett-browser-bench")
    parser.add_argument("--quick", action="store_true", help="the 100k store instead of 1M (built by run.py)")
    parser.add_argument("--no-tmux", action="store_true")
    args = parser.parse_args()
    if args.child:
        child_main(args.child, args.store or "", args.plan or "{}")
        return 0
    sys.path.insert(0, str(ROOT))
    stores = dict(_stores(args.stores, args.quick))
    missing = [str(path) for path in stores.values() if not path.exists()]
    if missing:
        print(f"missing stores (run benchmarks/run.py once to build them): {', '.join(missing)}", file=sys.stderr)
        return 2
    large = "100k" if args.quick else "1M"
    results = app_figures(stores, large, ensure_heavy(args.stores), args.reps, use_tmux=not args.no_tmux)
    print_tables(results, args.reps)
    failures = 0
    print("\n| target | measured | limit | |\n|---|---|---|---|")
    for label, value, limit in app_checks(results, list(stores), large):
        ok = value <= limit
        failures += not ok
        print(f"| {label} | {value:.3f} | {limit:.3f} | {'PASS' if ok else 'MISS'} |")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
