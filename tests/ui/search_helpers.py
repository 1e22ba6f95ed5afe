"""Shared helpers of the search tests: the app on a store with its index in a given
directory, waiting for the index, running a query in the search view and reading its hits."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from textual.pilot import Pilot

from zett_browser.app import ZettBrowserApp, make_app
from zett_browser.screens.main import MainScreen
from zett_browser.screens.search import SearchScreen
from zett_browser.widgets.hits import HitList


def app_on(store: Path, index_dir: Path, **kwargs: object) -> ZettBrowserApp:
    return make_app(str(store), index=True, index_dir=index_dir, poll_interval=0, **kwargs)  # type: ignore[arg-type]


async def until(pilot: Pilot[None], ready: Callable[[], bool], seconds: float = 20.0) -> None:
    deadline = time.monotonic() + seconds
    while not ready():
        assert time.monotonic() < deadline, "timed out"
        await pilot.pause(0.02)


def main_screen(app: ZettBrowserApp) -> MainScreen:
    screen = app.screen_stack[0] if isinstance(app.screen_stack[0], MainScreen) else app.screen_stack[1]
    assert isinstance(screen, MainScreen)
    return screen


async def built(pilot: Pilot[None]) -> MainScreen:
    app = pilot.app
    assert isinstance(app, ZettBrowserApp)
    await until(pilot, lambda: any(isinstance(s, MainScreen) for s in app.screen_stack))
    screen = main_screen(app)
    await until(pilot, lambda: getattr(screen, "index_state", None) is not None and screen.index_state.built)
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    return screen


async def search(pilot: Pilot[None], text: str) -> SearchScreen:
    if not isinstance(pilot.app.screen, SearchScreen):
        await pilot.press("slash")
    screen = pilot.app.screen
    assert isinstance(screen, SearchScreen)
    field = screen.query_one("#search-input")
    field.value = text  # type: ignore[attr-defined]
    field.focus()
    await pilot.press("enter")
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    return screen


def where(screen: SearchScreen) -> list[tuple[str, int, str]]:
    return [(hit.session_id, hit.sequence, hit.kind) for hit in screen.query_one(HitList).hits]


def rendered(widget: HitList) -> str:
    height = widget.size.height
    return "\n".join("".join(segment.text for segment in widget.render_line(y)) for y in range(height))


def note(screen: SearchScreen) -> str:
    return str(screen.query_one("#search-note").render())
