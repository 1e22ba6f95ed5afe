"""SVG snapshots of pins, labels and notes at 160×45 and 80×24 (frozen clock, fixed store path).

The notes are written through the notes service before the app starts, as a person's
earlier session would have left them; one note holds hostile text, which shows literally.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.widgets import Input

from tests.ui.helpers import KITCHEN, frozen_clock, run_keys, settle, store_copy
from zett_browser.app import make_app
from zett_browser.notes.identity import of_argument
from zett_browser.notes.service import NotesBook
from zett_browser.screens.main import MainScreen
from zett_browser.widgets.session_tree import SessionTree
from zett_browser.widgets.textual_compat import tree_relabelled

HOSTILE = "\x1b]8;;http://x\x07click\x1b]8;;\x07 [bold red]x[/] \x1b[2J"


def marked_store(notes: Path) -> Path:
    """A copy of the fixture store with a pinned, labelled session and marked messages."""
    store = store_copy("storage_api")

    async def identity() -> tuple[str, Path | None]:
        return of_argument(str(store))

    async def write() -> None:
        book = NotesBook(notes, identity)
        await book.toggle_pin(KITCHEN, None)
        await book.set_labels(KITCHEN, None, ["good"])
        await book.set_note(KITCHEN, None, "The reference run for the tool views.")
        await book.toggle_pin(KITCHEN, 2)
        await book.set_labels(KITCHEN, 2, ["regression", "prompt"])
        await book.set_note(KITCHEN, 2, "The system prompt changed here.\nCompare with last week's run.")
        await book.set_note(KITCHEN, 3, HOSTILE)

    asyncio.run(write())
    return store


async def marks_shown(pilot: Pilot[None]) -> None:
    """Settle, then wait until the marks (read after the first screen, on threads) are shown."""
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, MainScreen)
    for _ in range(500):
        if screen.parts.review.marks:
            break
        await pilot.pause(0.02)
    for _ in range(3):
        await pilot.pause(0.05)
        await settle(pilot)
    # Session states relabel the tree too, before or after the marks, and Textual keeps the
    # tree's width (its horizontal scrollbar) from its last layout: lay it out once more, so
    # the picture does not depend on which came last.
    tree_relabelled(screen.query_one(SessionTree))
    await settle(pilot)


def test_notes_wide(snap_compare: Any, tmp_path: Path) -> None:
    """160×45: ★ and [good] on the session in the tree, cards under #2 and #3 (the hostile
    note literal), the session's review above the inspector's snapshots."""
    notes = tmp_path / "notes.sqlite3"
    app = make_app(str(marked_store(notes)), session=KITCHEN, clock=frozen_clock, notes_file=notes)
    assert snap_compare(app, terminal_size=(160, 45), run_before=marks_shown)


def test_notes_narrow(snap_compare: Any, tmp_path: Path) -> None:
    """80×24: the same marks in the two-pane layout."""
    notes = tmp_path / "notes.sqlite3"
    app = make_app(str(marked_store(notes)), session=KITCHEN, clock=frozen_clock, notes_file=notes)
    assert snap_compare(app, terminal_size=(80, 24), run_before=marks_shown)


def test_label_input_narrow(snap_compare: Any, tmp_path: Path) -> None:
    """80×24: ``l`` on a message opens the labels input with the labels it has."""
    notes = tmp_path / "notes.sqlite3"
    app = make_app(str(marked_store(notes)), session=KITCHEN, seq=2, clock=frozen_clock, notes_file=notes)

    async def run_before(pilot: Pilot[None]) -> None:
        await marks_shown(pilot)
        await run_keys("l")(pilot)
        field = pilot.app.screen.query_one(Input)
        field.cursor_blink = False  # the picture must not depend on the blink's phase
        await pilot.pause()

    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)
