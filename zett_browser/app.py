"""Provides the Textual app and its factory.

The app takes its storage (built by :func:`make_app`, or given by a test) and awaits it on
its own event loop; it closes the storage when it exits.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from functools import partial
from typing import Any

from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.screen import Screen

from .screens.main import MainScreen
from .storage import SQLSessionStorage, open_store


class ZettBrowserApp(App[None]):
    """Browse a zett-agent store: sessions, the Raw Log and compaction snapshots."""

    CSS_PATH = "app.tcss"
    TITLE = "zett-browser"
    BINDINGS = [Binding("q", "quit", "Quit"), Binding("question_mark", "help", "Help", show=False)]

    def __init__(
        self,
        storage: SQLSessionStorage,
        *,
        session: str | None = None,
        seq: int | None = None,
        page_size: int = 50,
        clock: Callable[[], datetime] | None = None,
        poll_interval: float = 1.0,
    ) -> None:
        super().__init__()
        #: Seconds between checks for changes written by another process (0: never).
        self.poll_interval = poll_interval
        self.storage = storage
        self.start_session = session
        self.start_seq = seq
        self.page_size = page_size
        self.clock: Callable[[], datetime] = clock or (lambda: datetime.now(UTC))

    def on_mount(self) -> None:
        self.push_screen(MainScreen())

    async def on_unmount(self) -> None:
        await self.storage.close()

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
) -> ZettBrowserApp:
    """Build the app on a store opened read-only (a path, URL, or an open storage).

    Raises:
        StoreError: The store cannot be browsed (missing, not SQLite, not zett-agent's...).
    """
    storage = store if isinstance(store, SQLSessionStorage) else open_store(store)
    if page_size < 1:
        raise ValueError("page size must be positive")
    return ZettBrowserApp(
        storage, session=session, seq=seq, page_size=page_size, clock=clock, poll_interval=poll_interval
    )
