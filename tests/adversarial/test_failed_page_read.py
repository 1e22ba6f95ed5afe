"""A page that cannot be read never leaves another session's rows under the new breadcrumb.

The damaged store is a copy of the zett-agent-written ``storage_api`` fixture in which one
leaf page of ``raw_messages`` holding the long "Pagination" session's first rows is
overwritten with garbage: the session's row, bounds and snapshots read fine (they live in
other pages and indexes), but reading its Raw Log fails with "malformed".
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from tests.adversarial.damage import copy_fixture
from tests.ui.helpers import KITCHEN, PAGINATION, frozen_clock, settle
from zett_browser.app import make_app
from zett_browser.widgets.rawlog import RawLogView


def _first_page_fails(path: Path) -> bool:
    connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        connection.execute("SELECT max(sequence) FROM raw_messages WHERE session_id = ?", (PAGINATION,)).fetchall()
        connection.execute("SELECT * FROM agent_sessions").fetchall()
        connection.execute("SELECT * FROM raw_messages WHERE session_id = ?", (KITCHEN,)).fetchall()
    except sqlite3.DatabaseError:
        return False
    try:
        connection.execute(
            "SELECT * FROM raw_messages WHERE session_id = ? ORDER BY sequence LIMIT 50", (PAGINATION,)
        ).fetchall()
    except sqlite3.DatabaseError:
        return True
    finally:
        connection.close()
    return False


def store_with_an_unreadable_log(tmp_path: Path) -> Path:
    """A copy whose Pagination session's first Raw Log page cannot be read."""
    (tmp_path / "source").mkdir()
    source = copy_fixture("storage_api", tmp_path / "source")
    with sqlite3.connect(source) as connection:
        page_size = connection.execute("PRAGMA page_size").fetchone()[0]
        pages = [
            row[0]
            for row in connection.execute(
                "SELECT pageno FROM dbstat WHERE name = 'raw_messages' AND pagetype = 'leaf' ORDER BY pageno"
            )
        ]
    pristine = source.read_bytes()
    target = tmp_path / "damaged.sqlite3"
    for page in pages:
        data = bytearray(pristine)
        start = (page - 1) * page_size
        data[start + 8 : start + page_size] = b"\xa5" * (page_size - 8)
        target.write_bytes(bytes(data))
        if _first_page_fails(target):
            return target
    raise AssertionError("no raw_messages page holds only the Pagination session's first rows")


async def test_a_failed_page_read_clears_the_previous_sessions_rows(tmp_path: Path) -> None:
    path = store_with_an_unreadable_log(tmp_path)
    app = make_app(str(path), session=KITCHEN, clock=frozen_clock, poll_interval=0)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        view = app.screen.query_one(RawLogView)
        assert view.records and {record.session_id for record in view.records} == {KITCHEN}
        app.screen.parts.pane.open_session(PAGINATION, None)  # type: ignore[attr-defined]
        await settle(pilot)
        breadcrumb = str(app.screen.query_one("#breadcrumb").render())
        assert "Pagination" in breadcrumb
        assert all(record.session_id == PAGINATION for record in view.records), "old rows under a new breadcrumb"
        lines = view.rendered_lines()
        assert all("\n" not in segment.text for line in lines for segment in line), "one line per line"
        shown = "\n".join(line.text for line in lines)
        assert "could not be read" in shown
