"""Writes the screenshots of README.md and docs/ (SVG, and PNG when rsvg-convert is installed) from the demo store.

python screenshots/make_screenshots.py [NAME ...]   (names: only those shots, and not the served one)
"""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from zett_browser.app import make_app
from zett_browser.demo.store import build_demo_store
from zett_browser.widgets.rawlog import RawLogView
from zett_browser.widgets.session_tree import SessionTree

HERE = Path(__file__).parent
NOW = datetime(2026, 12, 2, 12, 0, tzinfo=UTC)
REFACTOR, RESEARCH, MIGRATION, DASHBOARD = (f"0196d3e0-0000-7000-8000-{n:012d}" for n in (1, 2, 5, 4))

WIDE, NARROW = (150, 42), (80, 24)
SHOTS: list[tuple[str, dict[str, object], tuple[str, ...], tuple[int, int]]] = [
    ("main", {"session": REFACTOR}, (), WIDE),
    ("delegated-child", {"session": RESEARCH}, (), WIDE),
    ("compaction", {"session": MIGRATION, "page_size": 14}, (), WIDE),
    ("model-view", {"session": MIGRATION}, ("m",), WIDE),
    ("tool-calls", {"session": DASHBOARD}, ("down", "down", "r"), WIDE),
    ("narrow", {"session": RESEARCH}, (), NARROW),
    ("search", {"session": REFACTOR, "index": True, "search": "retry OR backoff -kind:system"}, (), WIDE),
    ("export", {"session": RESEARCH}, ("e",), WIDE),
    ("time-travel", {"session": MIGRATION, "seq": 18}, ("x",), WIDE),
    ("ledger", {"session": MIGRATION}, ("L",), WIDE),
    ("diff", {"session": MIGRATION}, ("tab", "D"), WIDE),
    ("usage", {"session": REFACTOR, "index": True}, ("u",), WIDE),
    ("timing", {"session": REFACTOR}, ("T",), WIDE),
    ("notes", {"session": REFACTOR, "notes": True}, ("j", "j", "j", "j"), WIDE),
]


async def write_notes(store: Path, notes: Path) -> None:
    """Pins, labels and notes on the demo store, as a reviewer would leave them (``notes`` shot)."""
    from zett_browser.notes.identity import of_argument
    from zett_browser.notes.service import NotesBook

    async def identity() -> tuple[str, Path | None]:
        return of_argument(str(store))

    book = NotesBook(notes, identity)
    await book.toggle_pin(REFACTOR, None)
    await book.set_labels(REFACTOR, None, ["good"])
    await book.set_note(REFACTOR, None, "Reference run for the retry refactor.")
    await book.toggle_pin(REFACTOR, 5)
    await book.set_labels(REFACTOR, 5, ["regression"])
    await book.set_note(REFACTOR, 5, "The researcher was asked too broadly here.\nNarrow the task next time.")
    await book.set_labels(RESEARCH, None, ["needs work"])


async def index_built(app: Any, pilot: Any, options: dict[str, object]) -> None:
    """With the index, wait until it is built and the tree carries the usage totals."""
    for _ in range(600 if options.get("index") and not options.get("search") else 0):
        main = app.screen
        state = getattr(main, "index_state", None)
        if state is not None and state.built and main.query_one(SessionTree).usage:
            break
        await pilot.pause(0.05)
    await app.workers.wait_for_complete()
    await pilot.pause()


async def shoot(
    store: Path, name: str, options: dict[str, object], keys: tuple[str, ...], size: tuple[int, int]
) -> Path:
    app = make_app(str(store), clock=lambda: NOW, poll_interval=0, **options)  # type: ignore[arg-type]
    async with app.run_test(size=size) as pilot:
        for _ in range(3):
            await pilot.pause()
            await app.workers.wait_for_complete()
        for tree in app.screen.query(SessionTree):
            for node in list(tree.root.children):
                if node.allow_expand:
                    node.expand()
        await pilot.pause()
        await app.workers.wait_for_complete()
        await index_built(app, pilot, options)
        for view in app.screen.query(RawLogView):
            view.focus()
        if keys:
            await pilot.press(*keys)
            for _ in range(3):
                await pilot.pause()
                await app.workers.wait_for_complete()
        # What waits for the keys to pause (untitled sessions' names, states) lands first.
        await pilot.pause(0.8)
        await app.workers.wait_for_complete()
        await pilot.pause()
        target = HERE / f"{name}.svg"
        target.write_text(app.export_screenshot(title=f"zett-browser — {name}"), encoding="utf-8")
    return target


def shoot_served(store: Path, directory: Path) -> Path:
    """``zett-browser serve`` on the demo store, photographed in headless Chromium."""
    import sys
    import time

    sys.path.insert(0, str(HERE.parent))  # tests/served.py drives the browser
    from tests.served import chromium, screen_text, serving, wait_for

    target = HERE / "serve.png"
    with (
        serving(store, "--no-index", "--session", MIGRATION) as url,
        chromium(directory / "profile", size=(1400, 860)) as driver,
    ):
        driver.get(url)
        wait_for(lambda: "RAW LOG" in screen_text(driver), 45, "the served app")
        time.sleep(2)  # the inspector and the page painted
        driver.save_screenshot(str(target))
    return target


async def main(names: list[str]) -> None:
    with tempfile.TemporaryDirectory() as directory:
        store = await build_demo_store(Path(directory) / "demo.sqlite3", now=NOW)
        for name, options, keys, size in SHOTS:
            if names and name not in names:
                continue
            if options.get("index"):
                options = {**options, "index_dir": Path(directory) / "index"}
            # Never the person's notes file: an empty one, or the notes shot's.
            notes = Path(directory) / "notes" / f"{name}.sqlite3"
            if options.pop("notes", False):
                await write_notes(store, notes)
            options = {**options, "notes_file": notes}
            svg = await shoot(store, name, options, keys, size)
            if shutil.which("rsvg-convert"):
                subprocess.run(["rsvg-convert", str(svg), "-o", str(svg.with_suffix(".png"))], check=True)
            print("wrote", svg)
        if not names:
            print("wrote", shoot_served(store, Path(directory)))


if __name__ == "__main__":
    import sys

    asyncio.run(main(sys.argv[1:]))
