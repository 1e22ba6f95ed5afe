"""Paging the Raw Log in the app over damaged sequences: every row once, the store untouched.

Duplicate sequences at a page edge and sequences <= 0 (a shifted log) used to hide rows
or repeat a page; the screen now continues after the exact last row (``after_id``) and
starts at the very first row (``after_sequence=None``).
"""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

from tests.ui.helpers import frozen_clock, settle
from zett_browser.app import make_app
from zett_browser.storage import SQLSessionStorage
from zett_browser.widgets.rawlog import RawLogView

# The damage builders live on the storage branch (tests/adversarial/damage.py).
damage = pytest.importorskip("tests.adversarial.damage")
PAGINATION = damage.PAGINATION

pytestmark = pytest.mark.skipif(
    "after_id" not in inspect.signature(SQLSessionStorage.raw_page).parameters,
    reason="needs the storage that pages after an exact row (after_id)",
)


async def page_through(path: Path) -> tuple[list[str], list[str]]:
    """Row ids seen pressing n to the end, then p back to the start."""
    app = make_app(str(path), session=PAGINATION, clock=frozen_clock)
    forward: list[str] = []
    backward: list[str] = []
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        view = app.screen.query_one(RawLogView)
        view.focus()
        for _ in range(10):
            ids = [record.id for record in view.records]
            if forward and ids == forward[-len(ids) :]:
                break
            forward.extend(ids)
            await pilot.press("n")
            await settle(pilot)
        for _ in range(10):
            ids = [record.id for record in view.records]
            if backward and ids == backward[: len(ids)]:
                break
            backward[:0] = ids
            await pilot.press("p")
            await settle(pilot)
    return forward, backward


async def test_duplicate_sequences_at_a_page_edge_show_every_row_once(tmp_path: Path) -> None:
    path = damage.copy_fixture("storage_api", tmp_path)
    damage.duplicate_sequence(path, PAGINATION, 50, copies=3)
    found = damage.query(path, "select id from raw_messages where session_id=?", PAGINATION)
    rows = [row[0].decode() if isinstance(row[0], bytes) else str(row[0]) for row in found]
    before = damage.sha256(path)
    forward, backward = await page_through(path)
    assert sorted(forward) == sorted(rows) and len(forward) == len(set(forward)) == 123
    assert backward == forward
    assert damage.sha256(path) == before


async def test_sequences_at_or_below_zero_are_on_the_first_page(tmp_path: Path) -> None:
    path = damage.copy_fixture("storage_api", tmp_path)
    damage.shift_sequences(path, PAGINATION, -60)
    before = damage.sha256(path)
    forward, backward = await page_through(path)
    assert len(forward) == len(set(forward)) == 120
    assert backward == forward
    assert damage.sha256(path) == before
