"""The app on a server store (PostgreSQL, MariaDB): browsing, following, a lost connection, a masked password."""

from __future__ import annotations

import asyncio

import pytest

from tests.backends import Backend
from tests.proxy import TcpProxy
from tests.servers import READER
from tests.support import PAGINATION
from tests.ui.helpers import frozen_clock, settle
from zett_browser.app import ZettBrowserApp, make_app
from zett_browser.screens.main import MainScreen
from zett_browser.storage import UserMessage
from zett_browser.widgets.rawlog import RawLogView
from zett_browser.widgets.session_tree import SessionTree

pytestmark = pytest.mark.parametrize("backend", ["postgresql", "mysql"], indirect=True)


def screen_text(app: object) -> str:
    """Everything the terminal would show (the exported screen, with the title bar)."""
    return str(app.export_screenshot())  # type: ignore[attr-defined]


def main(app: ZettBrowserApp) -> MainScreen:
    """The main screen, typed (the connection state lives there)."""
    assert isinstance(app.screen, MainScreen)
    return app.screen


def sequences(app: object) -> list[int]:
    return [record.sequence for record in app.screen.query_one(RawLogView).records]  # type: ignore[attr-defined]


async def _until(pilot: object, condition: object, timeout: float = 10.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not condition():  # type: ignore[operator]
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError("condition not reached in time")
        await pilot.pause(0.05)  # type: ignore[attr-defined]


async def test_browse_follow_lose_and_regain_a_server_store(backend: Backend) -> None:
    loaded = backend.load_fixture("storage_api")
    await loaded.close()
    assert backend.reader_url is not None and backend.reader_url.port is not None
    proxy = TcpProxy("127.0.0.1", backend.reader_url.port)
    await proxy.start()
    url = backend.reader_url.set(port=proxy.port).render_as_string(hide_password=False)
    app = make_app(url, session=PAGINATION, clock=frozen_clock, poll_interval=0.2)
    writer = backend.writer()
    try:
        async with app.run_test(size=(160, 45)) as pilot:
            await settle(pilot)
            # Browsing: the tree, the first page, pages, all through the SELECT-only role.
            tree = app.screen.query_one(SessionTree)
            assert len(tree.root.children) >= 5
            assert sequences(app) == list(range(1, 51))
            app.screen.query_one(RawLogView).focus()
            await pilot.press("G")
            await settle(pilot)
            assert sequences(app)[-1] == 120
            text = screen_text(app)
            assert READER[1] not in text and "***" in text, "the password is masked everywhere"

            # Following: a message appended by a writer appears.
            await pilot.press("f")
            await writer.append(PAGINATION, "r", UserMessage(content="written while browsing"))
            await _until(pilot, lambda: sequences(app)[-1] == 121)

            # The connection dies: the header and a notification say so; the app keeps running.
            await proxy.cut()
            await _until(pilot, lambda: main(app).offline is not None)
            assert "connection lost" in str(app.screen.sub_title)
            await pilot.press("g")
            await settle(pilot)
            assert app.is_running
            assert READER[1] not in screen_text(app)

            # The server is back: the next action reconnects, and browsing carries on.
            await proxy.restore()
            await _until(pilot, lambda: main(app).offline is None)
            await pilot.press("g")
            await settle(pilot)
            assert sequences(app)[0] == 1
            assert "connection lost" not in str(app.screen.sub_title)
            assert READER[1] not in screen_text(app)
    finally:
        await writer.close()
        await proxy.close()
