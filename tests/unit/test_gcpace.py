"""The collection pacer: CPython's automatic full collections are held off while the app
runs and done from the app's own timer, between its steps (issue 16: a full collection
started inside a frame was the longest UI block of the busy follow run)."""

from __future__ import annotations

import gc
from pathlib import Path

from tests.ui.helpers import frozen_clock, settle, store_copy
from zett_browser.app import make_app
from zett_browser.gcpace import FULL_AFTER, CollectionPacer


def young_collections(count: int) -> None:
    """Allocate until ``count`` generation 1 collections have happened."""
    for _ in range(count):
        gc.collect(1)


def test_it_holds_full_collections_off_and_gives_the_thresholds_back() -> None:
    before = gc.get_threshold()
    pacer = CollectionPacer()
    pacer.start()
    try:
        young, middle, full = gc.get_threshold()
        assert (young, middle) == before[:2] and full > 1_000_000
        gc.collect()  # a clean start: no generation 1 collection counted
        young_collections(FULL_AFTER - 1)
        assert not pacer.collect_if_due(), "not due yet"
        young_collections(1)
        gc.disable()
        try:
            assert not pacer.collect_if_due(), "never while the collector is held off"
        finally:
            gc.enable()
        assert pacer.collect_if_due() and pacer.collections == 1
        assert gc.get_count()[2] == 0
    finally:
        pacer.stop()
    assert gc.get_threshold() == before
    pacer.stop()  # twice is harmless
    assert gc.get_threshold() == before


async def test_the_app_paces_full_collections_and_restores_cpythons_own(tmp_path: Path) -> None:
    before = gc.get_threshold()
    app = make_app(str(store_copy("agent_run", tmp_path)), clock=frozen_clock)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert app.pacer.active and gc.get_threshold()[2] > 1_000_000
        young_collections(FULL_AFTER)
        done = app.pacer.collections
        for _ in range(60):
            await pilot.pause(0.05)
            if app.pacer.collections > done:
                break
        assert app.pacer.collections > done, "the app's timer ran the due full collection"
    assert gc.get_threshold() == before
