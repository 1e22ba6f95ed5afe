"""The app paces CPython's full garbage collections (``gcpace``): its own timer runs them,
between its steps, and CPython's thresholds are given back when the app ends."""

from __future__ import annotations

import gc
from pathlib import Path

from tests.ui.helpers import frozen_clock, settle, store_copy
from zett_browser.app import make_app
from zett_browser.startup.gcpace import FULL_AFTER


async def test_the_app_paces_full_collections_and_restores_cpythons_own(tmp_path: Path) -> None:
    before = gc.get_threshold()
    app = make_app(str(store_copy("agent_run", tmp_path)), clock=frozen_clock)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert app.pacer.active and gc.get_threshold()[2] > 1_000_000
        for _ in range(FULL_AFTER):
            gc.collect(1)
        done = app.pacer.collections
        for _ in range(60):
            await pilot.pause(0.05)
            if app.pacer.collections > done:
                break
        assert app.pacer.collections > done, "the app's timer ran the due full collection"
    assert gc.get_threshold() == before
