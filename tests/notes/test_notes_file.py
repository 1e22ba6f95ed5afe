"""The notes file itself: created only at the first mark, never through a link, never on the store,
and a damaged one is one line (command line) or a notice (app), never a crash or a changed store."""

from __future__ import annotations

import asyncio
import hashlib
import sqlite3
from pathlib import Path

import pytest

from tests.ui.helpers import LONG, frozen_clock, settle, store_copy
from zett_browser.__main__ import main
from zett_browser.app import make_app
from zett_browser.model.notes import split_labels
from zett_browser.notes import db as notes_db
from zett_browser.notes.service import NotesBook
from zett_browser.safefiles import UnsafePath
from zett_browser.widgets.rawlog import RawLogView


def book(path: Path, identity: str = "/stores/a.sqlite3", store: Path | None = None) -> NotesBook:
    async def known() -> tuple[str, Path | None]:
        return identity, store

    return NotesBook(path, known)


def test_reads_create_nothing_and_marks_are_per_store(tmp_path: Path) -> None:
    path = tmp_path / "data" / "notes.sqlite3"

    async def scenario() -> None:
        assert await book(path).every() == []
        assert not path.parent.exists()  # a read made no directory, no file
        await book(path).toggle_pin("s1", None)
        await book(path).set_labels("s1", 4, split_labels(" good ,Good, regression,, "))
        assert await book(path, "/stores/b.sqlite3").every() == []
        marks = await book(path).every()
        assert [(m.session_id, m.seq, m.pinned, m.labels) for m in marks] == [
            ("s1", None, True, ()),
            ("s1", 4, False, ("good", "regression")),
        ]
        # Clearing everything leaves no row behind.
        cleared = await book(path).set_labels("s1", 4, [])
        assert cleared.empty and cleared.session_id == "s1" and cleared.seq == 4
        assert (await book(path).toggle_pin("s1", None)).empty
        assert await book(path).every() == []

    asyncio.run(scenario())
    assert oct(path.stat().st_mode & 0o777) == "0o600"


def test_a_link_or_the_store_is_refused(tmp_path: Path) -> None:
    store = store_copy("storage_api", tmp_path / "store")
    target = tmp_path / "elsewhere.sqlite3"
    link = tmp_path / "notes.sqlite3"
    link.symlink_to(target)
    with pytest.raises(UnsafePath, match="symbolic link"):
        notes_db.open_file(link, None, create=True)
    assert not target.exists()
    with pytest.raises(UnsafePath):
        notes_db.open_file(store, store, create=True)
    with pytest.raises(UnsafePath, match="store's own directory"):
        notes_db.open_file(store.parent / "n.sqlite3", store, create=True)


def test_a_damaged_notes_file_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = store_copy("storage_api", tmp_path / "store")
    notes = tmp_path / "notes.sqlite3"
    notes.write_bytes(b"not a database at all" * 100)
    assert main(["notes", str(store), "--notes-file", str(notes)]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "not a database" in err


async def test_a_damaged_notes_file_in_the_app_is_a_notice(tmp_path: Path) -> None:
    store = store_copy("storage_api", tmp_path / "store")
    before = hashlib.sha256(store.read_bytes()).hexdigest()
    notes = tmp_path / "notes.sqlite3"
    notes.write_bytes(b"\x00garbage" * 500)
    app = make_app(str(store), session=LONG, clock=frozen_clock, notes_file=notes)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.screen.query_one(RawLogView).focus()
        await pilot.press("asterisk")
        await settle(pilot)
        notices = [str(notice.message) for notice in app._notifications]
        assert any(line.startswith("Not saved:") for line in notices)
        assert app.return_code is None
    assert hashlib.sha256(store.read_bytes()).hexdigest() == before
    with pytest.raises(sqlite3.DatabaseError):
        sqlite3.connect(notes).execute("select * from notes").fetchall()
