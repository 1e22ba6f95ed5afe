"""Pins, labels and notes in the app (Pilot through the factory, a real store copy, a real notes file).

What is written survives a restart (a new app on the same store sees it), goes to the
notes file only (the store's bytes and its directory's listing stay the same), and
hostile text in a note or label shows literally (no markup, no escape reaches the screen).
"""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

from textual.pilot import Pilot
from textual.widgets import Static

from tests.ui.helpers import KITCHEN, LONG, frozen_clock, settle, store_copy
from tests.ui.search_helpers import app_on, built, search, where
from zett_browser.app import make_app
from zett_browser.screens.main import MainScreen
from zett_browser.screens.review_input import ReviewInput
from zett_browser.widgets.rawlog import RawLogView
from zett_browser.widgets.session_tree import SessionTree

HOSTILE_NOTE = "\x1b]8;;http://x\x07click\x1b]8;;\x07 [bold red]x[/] \x1b[2J"
HOSTILE_LABEL = "[@click=app.quit]bad[/]"


def fingerprint(store: Path) -> tuple[str, list[str]]:
    """The store's bytes (hashed) and its directory's listing."""
    return hashlib.sha256(store.read_bytes()).hexdigest(), sorted(path.name for path in store.parent.iterdir())


def view_text(app: object) -> str:
    view = app.screen.query_one(RawLogView)  # type: ignore[attr-defined]
    return "\n".join(strip.text for strip in view.rendered_lines())


def tree_label(app: object, session_id: str) -> str:
    tree = app.screen.query_one(SessionTree)  # type: ignore[attr-defined]
    node = tree.find(session_id)
    assert node is not None
    return str(node.label.plain)  # type: ignore[union-attr]


async def type_into_input(pilot: Pilot[None], text: str) -> None:
    """Type ``text`` into the open review input (replacing what it holds) and press enter."""
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, ReviewInput)
    field = screen.query_one("#review-text")
    field.value = text  # type: ignore[attr-defined]
    await pilot.press("enter")
    await settle(pilot)


async def test_pin_label_note_survive_restart_and_leave_the_store_alone(tmp_path: Path) -> None:
    store = store_copy("storage_api", tmp_path / "store")
    notes = tmp_path / "data" / "notes.sqlite3"
    before = fingerprint(store)
    app = make_app(str(store), session=LONG, clock=frozen_clock, notes_file=notes)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen)
        # The tree: pin the open session (the tree's cursor on it) and label it.
        tree = screen.query_one(SessionTree)
        node = tree.find(LONG)
        assert node is not None
        tree.focus()
        tree.move_cursor(node)
        await pilot.press("asterisk")
        await settle(pilot)
        await pilot.press("l")
        await type_into_input(pilot, f"good, regression, {HOSTILE_LABEL}")
        assert tree_label(app, LONG).startswith("★ ")
        assert f"[good, regression, {HOSTILE_LABEL}]" in tree_label(app, LONG)
        # The details pane shows the open session's own marks.
        review = screen.query_one("#inspector-review", Static)
        assert review.display and "★ pinned" in str(review.render())
        # The Raw Log: a note and a pin on the current message.
        view = screen.query_one(RawLogView)
        view.focus()
        record = view.current
        assert record is not None
        await pilot.press("a")
        await type_into_input(pilot, HOSTILE_NOTE)
        await pilot.press("asterisk")
        await settle(pilot)
        shown = view_text(app)
        assert "★ pinned" in shown
        assert "[bold red]x[/]" in shown  # literally: no markup
        assert "\x1b" not in shown and "\x07" not in shown
        assert app.return_code is None  # the hostile [@click=app.quit] did nothing
    assert fingerprint(store) == before
    assert notes.exists() and not any(p.name.startswith("notes") for p in store.parent.iterdir())
    # What another tool sees: plain tables.
    with sqlite3.connect(notes) as db:
        assert db.execute("SELECT count(*) FROM pins").fetchone()[0] == 2
        (text,) = db.execute(
            "SELECT text FROM notes WHERE session_id = ? AND seq = ?", (LONG, record.sequence)
        ).fetchone()
    assert text == HOSTILE_NOTE  # kept as typed; only its display is cleaned

    # Restart: a new app on the same store and notes file shows them at once.
    again = make_app(str(store), session=LONG, clock=frozen_clock, notes_file=notes)
    async with again.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        assert tree_label(again, LONG).startswith("★ ")
        assert "[bold red]x[/]" in view_text(again)
        # Unpin the message, remove the note: the card goes.
        view = again.screen.query_one(RawLogView)
        view.focus()
        assert view.select_sequence(record.sequence)
        await pilot.press("asterisk")
        await pilot.press("a")
        await type_into_input(pilot, "")
        assert "[bold red]x[/]" not in view_text(again)
        assert "★ pinned" not in view_text(again)
        assert tree_label(again, LONG).startswith("★ ")  # the session's pin stays
    assert fingerprint(store) == before


async def test_escape_leaves_everything_as_it_was(tmp_path: Path) -> None:
    store = store_copy("storage_api", tmp_path / "store")
    notes = tmp_path / "notes.sqlite3"
    app = make_app(str(store), session=LONG, clock=frozen_clock, notes_file=notes)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        app.screen.query_one(RawLogView).focus()
        await pilot.press("a")
        await settle(pilot)
        assert isinstance(app.screen, ReviewInput)
        await pilot.press("x", "y", "escape")
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)
    assert not notes.exists()  # nothing written, not even an empty file


async def test_served_app_offers_no_notes(tmp_path: Path) -> None:
    store = store_copy("storage_api", tmp_path / "store")
    notes = tmp_path / "notes.sqlite3"
    app = make_app(str(store), clock=frozen_clock, notes_file=notes, no_writes="served: no files are written")
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        app.screen.query_one(RawLogView).focus()
        await pilot.press("asterisk", "a")
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)
    assert not notes.exists()


async def test_search_and_the_tree_filter_find_what_was_pinned_and_labelled(tmp_path: Path) -> None:
    store = store_copy("storage_api", tmp_path / "store")
    notes = tmp_path / "notes.sqlite3"
    app = app_on(store, tmp_path / "index", session=KITCHEN, notes_file=notes, clock=frozen_clock)
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await built(pilot)
        view = screen.query_one(RawLogView)
        view.focus()
        assert view.select_sequence(3)
        await pilot.press("asterisk")
        await pilot.press("l")
        await type_into_input(pilot, "regression")
        found = await search(pilot, "pinned:true")
        assert where(found) == [(KITCHEN, 3, where(found)[0][2])]
        found = await search(pilot, "label:REGRESSION")  # labels match whatever their case
        assert [(hit[0], hit[1]) for hit in where(found)] == [(KITCHEN, 3)]
        found = await search(pilot, "label:good")
        assert where(found) == []
        # The tree filter (F) asks the same service which sessions match.
        service = screen.options.search
        assert service is not None
        assert (await service.sessions_matching("pinned:true")).matching == {KITCHEN}
