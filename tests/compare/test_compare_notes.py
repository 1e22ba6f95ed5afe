"""``compare --notes``: the pins, labels and notes on both sessions and their messages come with
the comparison (issue 27: marks carried into ``compare``), from the notes file, never the store."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.compare.pairs import Pairs
from tests.support import listing
from zett_browser.__main__ import run_command
from zett_browser.notes import db as notes_db
from zett_browser.notes.identity import of_argument

HOSTILE = "\x1b]8;;http://x\x07click\x1b]8;;\x07 [bold red]x[/] \x1b[2J"


def test_compare_carries_the_marks_of_both_sessions(
    compare_pairs: Pairs, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = tmp_path / "store" / "pairs.sqlite3"
    store.parent.mkdir()
    shutil.copy(compare_pairs.store, store)
    a, b = compare_pairs.ids["result"]
    notes = tmp_path / "notes" / "notes.sqlite3"
    notes.parent.mkdir()
    identity, path = of_argument(str(store))
    db = notes_db.open_file(notes, path, create=True)
    assert db is not None
    try:
        notes_db.toggle_pin(db, identity, a, None)
        notes_db.set_labels(db, identity, b, None, ["regression"])
        notes_db.set_note(db, identity, b, 5, HOSTILE)
    finally:
        db.close()
    before = listing(store.parent)
    assert run_command(["compare", str(store), a, b, "--notes", "--notes-file", str(notes), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    review = data["review"]
    assert [(item["seq"], item["pinned"]) for item in review["a"]] == [(None, True)]
    assert [(item["seq"], item["labels"], item["note"]) for item in review["b"]] == [
        (None, ["regression"], None),
        (5, [], HOSTILE),
    ]
    assert run_command(["compare", str(store), a, b, "--notes", "--notes-file", str(notes)]) == 0
    out = capsys.readouterr().out
    assert "Review (your pins, labels and notes):" in out and "[regression]" in out and "★" in out
    assert "\x1b" not in out and "␛]8;;http://x" in out  # the note's escapes shown, never sent
    # Without --notes nothing of them; the store and its directory unchanged either way.
    assert run_command(["compare", str(store), a, b, "--json"]) == 0
    assert "review" not in json.loads(capsys.readouterr().out)
    assert listing(store.parent) == before
