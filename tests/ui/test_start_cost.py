"""What the first screen costs (issue 16: first paint at 2x a bare Textual app).

Two costs found by profiling the start are checked here; the timed figures live in
``benchmarks/startup.py`` and ``benchmarks/app_bench.py``.

- Textual's ``FooterKey`` starts compact and is data-bound to its footer's value, so each
  key added and removed a class on mount: every change restyled the screen (~30 ms of
  ~150 ms from ``make_app`` to the first paint).
- The cyclic garbage collector walked start-up's long-lived objects again and again while
  they were made (~40 ms, in full collections of 10-15 ms inside the first frame). The
  command line holds it off until the first screen is up and the storage imported.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from textual.widgets._footer import FooterKey

from tests.ui.helpers import frozen_clock, settle, store_copy
from zett_browser.__main__ import main
from zett_browser.app import make_app
from zett_browser.startup import launch
from zett_browser.startup.launch import LazyStore, begin, lazy_store, pause_collection, resume_collection
from zett_browser.widgets.footer import KeyFooter


@pytest.fixture
def collector() -> Iterator[None]:
    """Whatever a test does to the collector, the next test finds it running."""
    yield
    resume_collection()
    gc.enable()


async def test_footer_keys_mount_without_restyling_the_screen(tmp_path: Path) -> None:
    app = make_app(store_copy("agent_run", tmp_path), clock=frozen_clock, poll_interval=0)
    restyled: list[Any] = []
    real = app.update_styles

    def update_styles(node: Any = None, animate: bool = True) -> None:
        restyled.append(node)
        real(node, animate)

    app.update_styles = update_styles  # type: ignore[method-assign]
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        footer = app.screen.query_one(KeyFooter)
        keys = list(footer.query(FooterKey))
        assert len(keys) >= 8, "the footer shows the screen's keys"
        bound = [key for key in keys if not key.has_class("-command-palette")]
        assert all(key.compact == footer.compact and not key.has_class("-compact") for key in bound)
        assert not [node for node in restyled if isinstance(node, FooterKey)], "a key restyled the screen"


async def test_the_command_lines_collection_hold_ends_once_the_storage_is_imported(
    tmp_path: Path, collector: None
) -> None:
    path = store_copy("agent_run", tmp_path)
    pause_collection()
    quick = begin(path, session=None, seq=None, page_size=50)
    assert quick is not None and not gc.isenabled()
    store = lazy_store(path, quick)
    app = make_app(store, warm=quick, clock=frozen_clock, poll_interval=0)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        await store.ready()
        assert gc.isenabled(), "collection runs again once the first screen is up"
        assert gc.get_freeze_count() > 0, "what start-up made is kept out of full collections"
    assert isinstance(store, LazyStore)


async def test_an_app_on_an_open_storage_ends_the_hold_after_its_first_paint(tmp_path: Path, collector: None) -> None:
    app = make_app(store_copy("agent_run", tmp_path), clock=frozen_clock, poll_interval=0)
    pause_collection()
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        assert gc.isenabled()


def test_no_hold_is_left_behind_by_a_command_that_fails(tmp_path: Path, collector: None) -> None:
    assert main([str(tmp_path / "missing.sqlite3")]) == 2
    assert gc.isenabled()
    foreign = tmp_path / "foreign.sqlite3"
    foreign.write_bytes(b"not a database" * 100)
    assert main([str(foreign)]) == 2
    assert gc.isenabled()


def test_a_hold_is_only_ended_by_its_owner(collector: None) -> None:
    """Someone else's disabled collector (an embedding program's) is left as it was."""
    gc.disable()
    pause_collection()
    resume_collection()
    assert not gc.isenabled()
    gc.enable()
    assert launch._collection_paused is False  # noqa: SLF001


async def test_the_first_keys_queries_are_prepared_once_the_first_page_shows(tmp_path: Path) -> None:
    """(tests/storage/test_warm_up.py checks what the warm-up prepares.)"""
    from zett_browser.storage import open_store

    storage = open_store(store_copy("agent_run", tmp_path))
    calls: list[dict[str, Any]] = []
    real = storage.warm_up

    async def warm_up(**kwargs: Any) -> None:
        calls.append(kwargs)
        await real(**kwargs)

    storage.warm_up = warm_up  # type: ignore[method-assign]
    app = make_app(storage, clock=frozen_clock, poll_interval=0)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        assert calls == [{"page_size": 50, "children_page": 200}]


async def test_an_update_after_a_pause_is_drawn_without_waiting_for_the_frame_timer(tmp_path: Path) -> None:
    """Textual draws pending updates at its 60 Hz timer's next tick (17 ms of idle loop
    measured before the first paint); the main screen draws the first update after a frame
    period without one as it goes idle."""
    import asyncio

    from zett_browser.widgets.status import StatusLine

    app = make_app(store_copy("agent_run", tmp_path), clock=frozen_clock, poll_interval=0)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        screen: Any = app.screen
        timer = screen._update_timer  # noqa: SLF001
        resumed: list[float] = []
        frames: list[float] = []
        real_resume, real_refresh = timer.resume, screen._compositor_refresh  # noqa: SLF001

        def resume() -> None:
            resumed.append(asyncio.get_running_loop().time())
            real_resume()

        def compositor_refresh() -> None:
            frames.append(asyncio.get_running_loop().time())
            real_refresh()

        timer.resume = resume
        screen._compositor_refresh = compositor_refresh  # noqa: SLF001
        await asyncio.sleep(0.1)
        status = screen.query_one(StatusLine)
        status.refresh()
        while not frames:
            await asyncio.sleep(0.001)
        assert not resumed, "it waited for the frame timer"
