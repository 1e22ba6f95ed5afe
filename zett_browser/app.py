"""Provides the Textual app and its factory.

The app takes its storage (built by :func:`make_app`, or given by a test) and awaits it on
its own event loop; it closes the storage when it exits.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from functools import partial
from typing import TYPE_CHECKING, Any

from textual import work
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.screen import Screen

from .lifecycle import install_exit_signals
from .screens.main import MainScreen
from .storage import SQLSessionStorage, StoreConnectionError, open_store

if TYPE_CHECKING:  # the live demo is imported only by ``zett-browser demo --live``
    from .live_demo import LiveDemo


class ZettBrowserApp(App[None]):
    """Browse a zett-agent store: sessions, the Raw Log and compaction snapshots."""

    CSS_PATH = "app.tcss"
    TITLE = "zett-browser"
    #: Screens under 100 columns get ``-narrow``: app.tcss lays them out for 80×24.
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-wide")]
    BINDINGS = [Binding("q", "quit", "Quit"), Binding("question_mark", "help", "Help", show=False)]
    #: Seconds between live-demo steps at speed 1.
    LIVE_STEP_SECONDS = 1.5

    def __init__(
        self,
        storage: SQLSessionStorage,
        *,
        session: str | None = None,
        seq: int | None = None,
        page_size: int = 50,
        clock: Callable[[], datetime] | None = None,
        poll_interval: float = 1.0,
        live: LiveDemo | None = None,
    ) -> None:
        super().__init__()
        #: The live compaction demo writing into the store, if any.
        self.live = live
        self.live_paused = False
        self.live_speed = 1.0
        #: Seconds between checks for changes written by another process (0: never).
        self.poll_interval = poll_interval
        self.storage = storage
        self.start_session = session
        self.start_seq = seq
        self.page_size = page_size
        self.clock: Callable[[], datetime] = clock or (lambda: datetime.now(UTC))

    @staticmethod
    def is_connection_failure(error: BaseException) -> bool:
        """True when ``error`` means the database server cannot be reached right now."""
        return isinstance(error, StoreConnectionError)

    def on_mount(self) -> None:
        install_exit_signals(self)  # SIGTERM/SIGHUP exit like q: storage closed, terminal restored
        screen = MainScreen()
        self.push_screen(screen)
        if self.live is not None:
            screen.follow = True
            self.bind("s", "live_pause", description="Pause/Play")
            self.bind("plus", "live_speed(2.0)", description="Faster")
            self.bind("minus", "live_speed(0.5)", description="Slower")
            self.play_live()

    async def on_unmount(self) -> None:
        if self.live is not None:
            await self.live.close()
        await self.storage.close()

    @work(group="live", exit_on_error=False)
    async def play_live(self) -> None:
        """Write the live demo's next message at a readable pace, on this loop."""
        live = self.live
        assert live is not None
        while True:
            if not self.live_paused:
                what = await live.step()
                self._show_live(what)
            await asyncio.sleep(self.LIVE_STEP_SECONDS / self.live_speed)

    def _show_live(self, what: str = "") -> None:
        if self.live is None:
            return
        state = "paused" if self.live_paused else f"playing ×{self.live_speed:g}"
        self.screen.sub_title = f"{self.live.describe()} · {state}" + (f" · {what}" if what else "")

    def action_live_pause(self) -> None:
        self.live_paused = not self.live_paused
        self._show_live()

    def action_live_speed(self, factor: float) -> None:
        self.live_speed = max(0.25, min(16.0, self.live_speed * factor))
        self._show_live()

    def action_help(self) -> None:
        screen = self.screen
        if isinstance(screen, MainScreen):
            screen.action_help()

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        if not isinstance(screen, MainScreen):
            return
        commands: list[tuple[str, str, Callable[[], Any]]] = [
            ("Next page", "Show the next page of the Raw Log", partial(screen.action_page, "next")),
            ("Previous page", "Show the previous page of the Raw Log", partial(screen.action_page, "prev")),
            ("First page", "Show the first page of the Raw Log", partial(screen.action_page, "first")),
            ("Last page", "Show the last page of the Raw Log", partial(screen.action_page, "last")),
            ("Jump to sequence", "Open the page holding a sequence number", screen.action_jump),
            ("Toggle inspector", "Show or hide the snapshot inspector", screen.action_toggle_inspector),
            ("Toggle model view", "Raw Log or the model's context (summary + tail)", screen.action_toggle_model_view),
            ("Toggle tree", "Show or hide the session tree", screen.action_toggle_tree),
            ("Back to parent", "Return to the session that delegated this one", screen.action_back),
            ("Key help", "Every key binding", screen.action_help),
        ]
        for title, help_text, callback in commands:
            yield SystemCommand(title, help_text, callback)


def make_app(
    store: str | SQLSessionStorage | None,
    *,
    session: str | None = None,
    seq: int | None = None,
    page_size: int = 50,
    clock: Callable[[], datetime] | None = None,
    poll_interval: float = 1.0,
    live: LiveDemo | None = None,
) -> ZettBrowserApp:
    """Build the app on a store opened read-only (a path, URL, or an open storage).

    Raises:
        StoreError: The store cannot be browsed (missing, not SQLite, not zett-agent's...).
    """
    storage = store if isinstance(store, SQLSessionStorage) else open_store(store)
    if page_size < 1:
        raise ValueError("page size must be positive")
    return ZettBrowserApp(
        storage,
        session=session,
        seq=seq,
        page_size=page_size,
        clock=clock,
        poll_interval=poll_interval,
        live=live,
    )
