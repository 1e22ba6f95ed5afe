"""SVG snapshots of the search view (fixed sizes, frozen clock, fixed store and index paths)."""

from __future__ import annotations

import shutil
import time
from typing import Any

from textual.pilot import Pilot

from tests.ui.helpers import SNAP_DIR, frozen_clock, settle, store_copy
from zett_browser.app import make_app
from zett_browser.screens.main import MainScreen
from zett_browser.screens.search import SearchScreen
from zett_browser.widgets.hits import HitList

QUERY = "red OR describe_image OR square"


async def results_shown(pilot: Pilot[None]) -> None:
    deadline = time.monotonic() + 30
    while True:
        screen = pilot.app.screen
        main = next((s for s in pilot.app.screen_stack if isinstance(s, MainScreen)), None)
        if (
            isinstance(screen, SearchScreen)
            and main is not None
            and main.index_state.built
            and screen.query_one(HitList).hits
            and not screen.partial
        ):
            break
        assert time.monotonic() < deadline, (
            screen,
            main and main.index_state,
            isinstance(screen, SearchScreen) and (screen.partial, len(screen.query_one(HitList).hits)),
        )
        await pilot.pause(0.05)
    await settle(pilot)


def search_app() -> Any:
    index_dir = SNAP_DIR / "search-index"
    shutil.rmtree(index_dir, ignore_errors=True)
    store = store_copy("storage_api", SNAP_DIR / "search")
    return make_app(str(store), clock=frozen_clock, index=True, index_dir=index_dir, poll_interval=0, search=QUERY)


def test_search_view_wide(snap_compare: Any) -> None:
    """Hits with session, agent, #seq, kind, time and highlighted matches, at 160x45."""
    assert snap_compare(search_app(), terminal_size=(160, 45), run_before=results_shown)


def test_search_view_narrow(snap_compare: Any) -> None:
    """The same at 80x24: rows cut with an ellipsis, the note and footer still there."""
    assert snap_compare(search_app(), terminal_size=(80, 24), run_before=results_shown)
