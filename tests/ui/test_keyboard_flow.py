"""Issue 25, "a keyboard flow without surprises": ``G``, where a jump lands, keys typed during a
jump, and ``m`` opening on the summary — driven through the app as a user does (Pilot)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from tests.index.helpers import PARENT, copy_fixture
from tests.realstore.stable import stable_copy
from tests.realstore.stores import RealStores
from tests.ui.helpers import KITCHEN, LONG, PAGINATION, frozen_clock, sequences, settle, store_copy
from tests.ui.search_helpers import app_on, built, search
from zett_browser.app import make_app
from zett_browser.screens.context import ContextScreen
from zett_browser.screens.main import MainScreen
from zett_browser.widgets.rawlog import RawLogView

SIZES = [(160, 45), (80, 24)]


def main_of(app: object) -> tuple[MainScreen, RawLogView]:
    screen = app.screen  # type: ignore[attr-defined]
    assert isinstance(screen, MainScreen) and screen.open is not None
    return screen, screen.query_one(RawLogView)


def cursor_row(view: RawLogView) -> int:
    """The row of the view the cursor's message starts on (negative: above the view)."""
    return int(view._layout.starts[view.cursor] - view.scroll_y)  # noqa: SLF001


def in_upper_half(view: RawLogView) -> bool:
    return 0 <= cursor_row(view) < view.scrollable_content_region.height // 2


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("session", [KITCHEN, PAGINATION])
async def test_G_selects_the_last_message(tmp_path: Path, size: tuple[int, int], session: str) -> None:
    """On a one-page session ``G`` stayed on #1; on a long one it landed 49 before the end."""
    app = make_app(str(store_copy("storage_api", tmp_path)), session=session, clock=frozen_clock)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        screen, view = main_of(app)
        view.focus()
        await pilot.press("G")
        await settle(pilot)
        assert screen.open is not None
        assert view.current is not None and view.current.sequence == screen.open.last == sequences(app)[-1]
        assert 0 <= cursor_row(view) < view.scrollable_content_region.height, "the last message shows"
        await pilot.press("g")
        await settle(pilot)
        assert view.current is not None and view.current.sequence == sequences(app)[0]


@pytest.mark.parametrize("size", SIZES)
async def test_seq_gives_the_raw_log_the_keys_and_the_message_the_upper_half(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    """``--seq 96`` left the tree focused (``j``/``x`` did nothing) and #96 on the bottom row."""
    app = make_app(str(store_copy("storage_api", tmp_path)), session=PAGINATION, seq=96, clock=frozen_clock)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        _, view = main_of(app)
        assert app.focused is view
        assert view.current is not None and view.current.sequence == 96
        assert in_upper_half(view), (cursor_row(view), view.scrollable_content_region.height)
        await pilot.press("j")
        assert view.current is not None and view.current.sequence == 97


@pytest.mark.parametrize("size", SIZES)
async def test_a_jump_lands_in_the_upper_half(tmp_path: Path, size: tuple[int, int]) -> None:
    """``:N`` to another page and to a message of the shown page both land a quarter down."""
    app = make_app(str(store_copy("storage_api", tmp_path)), session=PAGINATION, clock=frozen_clock)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        _, view = main_of(app)
        view.focus()
        for target in (80, 60, 95):  # another page, then the same page down and up
            await pilot.press("colon", *str(target), "enter")
            await settle(pilot)
            assert app.focused is view
            assert view.current is not None and view.current.sequence == target
            assert in_upper_half(view), (target, cursor_row(view))


def lockable_store(tmp_path: Path) -> Path:
    """A copy of the fixture in rollback-journal mode: a writer's ``BEGIN EXCLUSIVE`` then
    holds the app's reads (they wait, up to the reader's busy timeout of 1 s) — a slow store."""
    path = store_copy("storage_api", tmp_path)
    with sqlite3.connect(path) as connection:
        assert connection.execute("PRAGMA journal_mode=DELETE").fetchone() == ("delete",)
    return path


async def test_keys_typed_during_a_jump_apply_to_the_message_jumped_to(tmp_path: Path) -> None:
    """``:110 enter x`` opened the context of the old cursor (#1): ``x`` now waits for #110."""
    path = lockable_store(tmp_path)
    app = make_app(str(path), session=PAGINATION, clock=frozen_clock, poll_interval=0)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        screen, view = main_of(app)
        view.focus()
        await pilot.press("colon", *"110")
        lock = sqlite3.connect(path, isolation_level=None)
        try:
            lock.execute("BEGIN EXCLUSIVE")
            await pilot.press("enter", "x")  # the page read waits on the lock; x is typed meanwhile
            assert app.screen is screen, "x waits for the page"
            assert view.current is not None and view.current.sequence == 1
        finally:
            lock.execute("ROLLBACK")
            lock.close()
        await settle(pilot)
        assert isinstance(app.screen, ContextScreen), app.screen
        assert app.screen.at == 110


async def test_keys_typed_during_a_failed_read_run_on_the_page_shown(tmp_path: Path) -> None:
    """The page read fails (the store stays locked past the busy timeout): the keys typed
    meanwhile are not lost, they run on what is shown."""
    path = lockable_store(tmp_path)
    app = make_app(str(path), session=PAGINATION, clock=frozen_clock, poll_interval=0)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        _, view = main_of(app)
        view.focus()
        await pilot.press("colon", *"110")
        lock = sqlite3.connect(path, isolation_level=None)
        try:
            lock.execute("BEGIN EXCLUSIVE")
            await pilot.press("enter", "j", "j")
            assert view.current is not None and view.current.sequence == 1, "j waits for the page"
            await app.workers.wait_for_complete()  # the read gives up after the busy timeout
            await pilot.pause()
            assert view.current is not None and view.current.sequence == 3, "each j once, on the page shown"
        finally:
            lock.execute("ROLLBACK")
            lock.close()
        await settle(pilot)
        assert view.current is not None and view.current.sequence == 3


async def test_held_keys_run_once_in_order(tmp_path: Path) -> None:
    """Several keys typed during a jump run after it, each once, in the order typed."""
    app = make_app(str(store_copy("storage_api", tmp_path)), session=PAGINATION, clock=frozen_clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        _, view = main_of(app)
        view.focus()
        await pilot.press("colon", *"100", "enter", "j", "j", "k", "j")
        await settle(pilot)
        assert view.current is not None and view.current.sequence == 102
        # G then k at once: the last page, one up.
        await pilot.press("G", "k")
        await settle(pilot)
        assert view.current is not None and view.current.sequence == 119


async def test_keys_are_released_when_the_jump_reads_nothing(tmp_path: Path) -> None:
    """A jump outside the session reads no page: the keys typed after it still run, once."""
    app = make_app(str(store_copy("storage_api", tmp_path)), session=PAGINATION, clock=frozen_clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        _, view = main_of(app)
        view.focus()
        await pilot.press("colon", *"999", "enter", "j")
        await settle(pilot)
        assert view.current is not None and view.current.sequence == 2


def view_text(view: RawLogView) -> str:
    """The lines the view shows now."""
    top = int(view.scroll_y)
    return "\n".join(strip.text for strip in view.rendered_lines()[top : top + view.scrollable_content_region.height])


@pytest.mark.parametrize("size", SIZES)
async def test_m_opens_with_the_summary_on_screen(
    real_stores: RealStores, tmp_path: Path, size: tuple[int, int]
) -> None:
    """From the end of a compacted session (``G`` then ``m``) the model view opened scrolled to
    the cursor's message, its summary above the view. It opens on the summary; the cursor
    moves to a message shown under it."""
    path = stable_copy(real_stores, tmp_path)
    app = make_app(str(path), session=real_stores.session("compaction"), clock=frozen_clock, poll_interval=0)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        screen, view = main_of(app)
        view.focus()
        await pilot.press("G", "m")
        await settle(pilot)
        assert screen.open is not None and screen.open.model_view and view.preface
        assert view.scroll_y == 0 and "Summary v4" in view_text(view), view_text(view)
        assert view.current is not None
        assert 0 <= cursor_row(view) < view.scrollable_content_region.height, "the cursor's message shows"
        await pilot.press("m")
        await settle(pilot)
        assert not screen.open.model_view


async def test_m_keeps_the_cursor_when_it_shows_under_the_summary(tmp_path: Path) -> None:
    app = make_app(str(store_copy("storage_api", tmp_path)), session=LONG, page_size=4, clock=frozen_clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        _, view = main_of(app)
        view.focus()
        await pilot.press("colon", *"12", "enter", "m")
        await settle(pilot)
        assert view.current is not None and view.current.sequence == 12
        assert "summary v3" in view_text(view).lower(), view_text(view)


async def test_a_search_hit_gives_the_raw_log_the_keys(tmp_path: Path) -> None:
    store = copy_fixture("agent_run", tmp_path / "store")
    app = app_on(store, tmp_path / "index")
    async with app.run_test(size=(80, 24)) as pilot:
        main = await built(pilot)
        main.query_one("#tree").focus()
        await search(pilot, '"Verify the word count"')
        await pilot.press("enter")
        await settle(pilot)
        view = main.query_one(RawLogView)
        assert pilot.app.screen is main and main.open is not None and main.open.node.session_id == PARENT
        assert app.focused is view
        assert view.current is not None and view.current.sequence == 7
        assert 0 <= cursor_row(view) < view.scrollable_content_region.height
