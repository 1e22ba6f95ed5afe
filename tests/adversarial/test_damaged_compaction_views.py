"""Damaged snapshots in the compaction views: the ledger, the diff and the inspector keep going.

Built from the zett-agent-written agent run (versions v1@9, v2@11, v3@17), damaged with
the stdlib: a summary that is not JSON, a created_at that is no time, a summary holding
escape sequences, and boundaries that are not numbers. Browsing changes no byte and no
file, no ESC byte reaches the text shown, and every other version still reads.
"""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

from tests.adversarial.damage import copy_fixture, execute, sha256
from tests.support import AGENT_RUN_ROOT, listing
from tests.ui.helpers import frozen_clock, settle
from zett_browser.app import make_app
from zett_browser.screens.diff import DiffScreen
from zett_browser.screens.ledger import LedgerScreen
from zett_browser.widgets.inspector import Inspector
from zett_browser.widgets.ledger import CurveView
from zett_browser.widgets.rawlog import RawLogView
from zett_browser.widgets.versions import VersionList

ESCAPES = (
    '[{"kind": 5, "data": {"attributes": {}, "persist": true, "include_in_messages": true, '
    '"content": "\\u001b]52;c;aGk=\\u0007 [bold]x[/] \\u001b[2J"}}]'
)


def rendered(renderable: object) -> str:
    console = Console(width=200, record=True, file=open("/dev/null", "w"))  # noqa: SIM115
    console.print(renderable)
    return console.export_text(styles=False)


async def test_damaged_versions_leave_the_ledger_and_the_diff_readable(tmp_path: Path) -> None:
    path = copy_fixture("agent_run", tmp_path)
    where = "session_id = ? and version = ?"
    execute(path, f"update session_snapshots set message_json = 'not json' where {where}", AGENT_RUN_ROOT, 1)
    execute(path, f"update session_snapshots set created_at = 'yesterday-ish' where {where}", AGENT_RUN_ROOT, 2)
    execute(path, f"update session_snapshots set message_json = ? where {where}", ESCAPES, AGENT_RUN_ROOT, 3)
    before, files = sha256(path), listing(tmp_path)
    app = make_app(str(path), session=AGENT_RUN_ROOT, clock=frozen_clock, poll_interval=0)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        inspector = app.screen.query_one(Inspector)
        assert [m.version for m in inspector.snapshots] == [1, 2, 3]
        assert inspector.snapshots[1].problems, "the bad created_at is reported, not fatal"
        app.screen.query_one(RawLogView).focus()
        await pilot.press("L")
        await settle(pilot)
        ledger = app.screen
        assert isinstance(ledger, LedgerScreen)
        rows = {row.version: row for row in ledger.rows.values()}
        assert rows[1].summary_tokens is None and rows[1].ratio is None, "an unreadable summary has no size"
        assert rows[2].since_previous is None and rows[2].covered_rows == 2
        assert rows[3].summary_tokens is not None and rows[3].covered_rows == 6
        await pilot.press("D")  # v2 -> v3 (the cursor is on the latest)
        await settle(pilot)
        first = app.screen
        assert isinstance(first, DiffScreen) and first.ready
        text = rendered(first.shown)
        assert "\x1b" not in text and "\x07" not in text
        assert "[bold]x[/]" in text, "markup in a summary stays literal"
        await pilot.press("escape", "up", "up", "D")  # v1 (unreadable) has no previous: a notice, no diff
        await settle(pilot)
        assert isinstance(app.screen, LedgerScreen)
        await pilot.press("space", "down", "D")  # v1 marked, v2 highlighted
        await settle(pilot)
        second = app.screen
        assert isinstance(second, DiffScreen) and second.ready
        assert (second.older.version, second.newer.version) == (1, 2)
        assert "not json" in rendered(second.shown), "the unreadable summary shows as its stored text"
        assert ledger.query_one(VersionList).marked == 0
    assert sha256(path) == before and listing(tmp_path) == files


async def test_a_token_value_that_is_not_a_number_costs_only_its_own_step(tmp_path: Path) -> None:
    """Review case: one ``input_tokens = 'lots'`` used to fail the whole curve query, and the
    ledger showed no version at all; now only that step is left out of the curve and the facts."""
    path = copy_fixture("agent_run", tmp_path)
    execute(path, "update raw_messages set input_tokens = 'lots' where session_id = ? and sequence = 7", AGENT_RUN_ROOT)
    before, files = sha256(path), listing(tmp_path)
    app = make_app(str(path), session=AGENT_RUN_ROOT, clock=frozen_clock, poll_interval=0)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        columns = await app.storage.input_curve(AGENT_RUN_ROOT, columns=60, first=1, last=21)
        assert [c.first_sequence for c in columns] == [4, 9, 11, 15, 17, 21], "every other step keeps its column"
        app.screen.query_one(RawLogView).focus()
        await pilot.press("L")
        await settle(pilot)
        ledger = app.screen
        assert isinstance(ledger, LedgerScreen)
        assert [meta.version for meta in ledger.versions] == [1, 2, 3]
        assert ledger.query_one(CurveView).curve is not None
        rows = {row.version: row for row in ledger.rows.values()}
        assert set(rows) == {1, 2, 3} and rows[1].covered_rows == 9
    assert sha256(path) == before and listing(tmp_path) == files
