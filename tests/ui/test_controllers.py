"""The main screen's controllers alone, and wired together (``MainControllers``): each built
with its narrow constructor inside a small Textual app over a real fixture store (no main
screen, no mocks of the store)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.app import App, ComposeResult

from tests.support import PAGINATION, PARENT
from tests.ui.helpers import frozen_clock, store_copy
from zett_browser.model import RawMessageRecord
from zett_browser.model.store import BrowsingStore
from zett_browser.screens.options import BrowserOptions
from zett_browser.screens.reads import Failed, ReadHelper, Services
from zett_browser.screens.session import PaneWidgets, SessionPane
from zett_browser.screens.watch import ChangePoller
from zett_browser.screens.wiring import MainControllers
from zett_browser.storage import open_store
from zett_browser.widgets.inspector import Inspector
from zett_browser.widgets.rawlog import RawLogView
from zett_browser.widgets.session_tree import SessionTree
from zett_browser.widgets.status import Breadcrumb, StatusLine


class Host(App[None]):
    """The panes a controller talks to, and what it tells the screen."""

    def __init__(self, store: BrowsingStore) -> None:
        super().__init__()
        self.store = store
        self.notices: list[str] = []
        self.offline_shown: list[str | None] = []
        self.reader = ReadHelper(self.note, lambda line: None, lambda error: True, self.offline_shown.append)
        self.session_tree = SessionTree(clock=frozen_clock)
        self.view = RawLogView()
        self.inspector = Inspector()
        self.status = StatusLine()
        self.breadcrumb = Breadcrumb()

    def note(self, message: str, **_: Any) -> None:
        self.notices.append(message)

    def services(self) -> Services:
        return Services(self.store, self.reader, self.run_worker, self.note, self.push_screen)

    def compose(self) -> ComposeResult:
        yield self.breadcrumb
        yield self.status
        yield self.session_tree
        yield self.view
        yield self.inspector


def pane_in(app: Host, shown: list[list[int]], firsts: list[int]) -> SessionPane:
    return SessionPane(
        app.services(),
        PaneWidgets(app.view, app.inspector, app.status, app.breadcrumb, app.session_tree),
        page_size=50,
        follow=False,
        set_title=lambda title: None,
        opened=lambda session_id, latest: None,
        page_shown=lambda records: shown.append([r.sequence for r in records]),
        first_page=lambda: firsts.append(len(shown)),
    )


def on_page(records: list[RawMessageRecord]) -> list[int]:
    return [record.sequence for record in records]


async def test_the_session_pane_opens_pages_jumps_and_goes_back(tmp_path: Path) -> None:
    store = open_store(store_copy("storage_api", tmp_path))
    app = Host(store)
    shown: list[list[int]] = []
    firsts: list[int] = []
    async with app.run_test(size=(140, 40)) as pilot:
        pane = pane_in(app, shown, firsts)
        await pane.open_session(PAGINATION, None).wait()
        assert pane.open is not None and pane.open.node.session_id == PAGINATION
        assert on_page(app.view.records) == list(range(1, 51))
        assert firsts == [1], "the first page is announced once"
        await pane.page("next").wait()
        assert on_page(app.view.records) == list(range(51, 101))
        await pane.jump_to(115).wait()
        assert app.view.current is not None and app.view.current.sequence == 115
        await pane.jump_to(500).wait()
        assert app.notices[-1] == "#500 is outside #1–120"
        await pane.open_session(PARENT, None, push=True).wait()
        assert pane.open.node.session_id == PARENT and len(pane.history) == 1
        pane.back()
        await pilot.app.workers.wait_for_complete()
        assert pane.open.node.session_id == PAGINATION
        assert app.view.current is not None and app.view.current.sequence == 115, "back to the place left"
        assert firsts == [1] and shown[:2] == [list(range(1, 51)), list(range(51, 101))]


async def test_a_page_turn_cancels_the_stale_one_of_its_group(tmp_path: Path) -> None:
    """Two page turns at once: the first is cancelled by the second (``session`` group, exclusive)."""
    store = open_store(store_copy("storage_api", tmp_path))
    app = Host(store)
    shown: list[list[int]] = []
    async with app.run_test(size=(140, 40)) as pilot:
        pane = pane_in(app, shown, [])
        await pane.open_session(PAGINATION, None).wait()
        first, second = pane.page("last"), pane.page("next")
        await second.wait()
        await pilot.pause()
        assert first.is_cancelled and not second.is_cancelled
        assert on_page(app.view.records) == list(range(51, 101))


async def test_the_reader_turns_a_failed_read_into_one_notice_and_says_when_the_store_is_back(
    tmp_path: Path,
) -> None:
    path = store_copy("storage_api", tmp_path)
    store = open_store(path)
    app = Host(store)
    async with app.run_test(size=(140, 40)):
        reader = app.reader
        assert (await reader.fetch(store.get_node(PARENT))) is not None
        await store.close()
        path.unlink()  # a real failure: the store is gone (a read-only open never creates it)
        failed = await reader.fetch(store.get_node(PARENT), "Could not open the session")
        assert isinstance(failed, Failed)
        assert app.notices[-1].startswith("Could not open the session: ")
        assert reader.offline is not None and app.offline_shown == [reader.offline]
        quiet = await reader.fetch(store.get_node(PARENT))  # a background read: no second notice
        assert isinstance(quiet, Failed) and len(app.notices) == 1
        assert await reader.quietly(store.get_node(PARENT), "default", "decoration") == "default"
        in_place = await reader.attempt(store.get_node(PARENT))  # the view words it: no notice
        assert isinstance(in_place, Failed) and isinstance(in_place.error, Exception) and len(app.notices) == 1
        reader.connected()
        assert app.notices[-1] == "Reconnected to the store" and app.offline_shown[-1] is None


async def test_the_change_poller_waits_for_the_roots_and_rereads_only_after_a_change(tmp_path: Path) -> None:
    store = open_store(store_copy("storage_api", tmp_path))
    app = Host(store)
    changed: list[str] = []

    async def rest() -> None:
        changed.append("rest")

    async with app.run_test(size=(140, 40)) as pilot:
        poller = ChangePoller(
            app.services(), app.session_tree, store_changed=lambda: changed.append("store"), refresh_rest=rest
        )
        poller.poll()
        await pilot.app.workers.wait_for_complete()
        assert changed == [], "no poll before the first read of the roots answered"
        poller.roots_answered(None)  # the roots' read failed: the first poll takes the token
        poller.poll()
        await pilot.app.workers.wait_for_complete()
        assert changed == ["rest"] and poller.token is not None, "the first token is no change"
        poller.poll()
        await pilot.app.workers.wait_for_complete()
        assert changed == ["rest"], "an unchanged token re-reads nothing"
        poller.token = ("an older token",)
        poller.poll()
        await pilot.app.workers.wait_for_complete()
        assert changed == ["rest", "store", "rest"]
        assert len(app.session_tree.root.children) > 0, "the roots were merged into the tree"


async def test_the_wired_controllers_start_the_screen_without_a_main_screen(tmp_path: Path) -> None:
    """``MainControllers`` alone: started, the roots fill the tree, the session asked for opens,
    and the first page is announced once (what waited for it starts)."""
    store = open_store(store_copy("storage_api", tmp_path))
    app = Host(store)
    announced: list[str] = []
    titles: list[str] = []
    options = BrowserOptions(session=PAGINATION, after_first_page=lambda: announced.append("first page"))
    async with app.run_test(size=(140, 40)) as pilot:
        parts = MainControllers(
            app.services(),
            PaneWidgets(app.view, app.inspector, app.status, app.breadcrumb, app.session_tree),
            app.status,
            options,
            set_title=titles.append,
            call_after_refresh=app.call_after_refresh,
            set_timer=app.set_timer,
            screens=lambda: app.screen_stack,
        )
        parts.start()
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        assert len(app.session_tree.root.children) > 0, "the roots are in the tree"
        assert parts.open_id() == PAGINATION and on_page(app.view.records) == list(range(1, 51))
        assert announced == ["first page"] and titles, "the first page is announced once; the title is set"
        parts.show_hit(PARENT, 1)
        await pilot.app.workers.wait_for_complete()
        assert parts.open_id() == PARENT and len(parts.pane.history) == 1, "a hit remembers the place left"
