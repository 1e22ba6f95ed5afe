"""The compare view in the app: ``=`` marks, ``=`` on a second session compares; ``n``/``N``, escape.

Through the app factory on the real runtime's pairs (and a hostile store written by the
project's own storage), with Pilot.
"""

from __future__ import annotations

import asyncio
import shutil
import sqlite3
from pathlib import Path

import pytest

from tests.ui.helpers import HOSTILE, frozen_clock, settle
from zett_browser.app import make_app
from zett_browser.screens.compare import CompareScreen
from zett_browser.screens.main import MainScreen
from zett_browser.widgets.compare import CompareView, row_text
from zett_browser.widgets.session_tree import SessionTree

from .pairs import Pairs


async def open_compare(app: object, pilot: object, moves: tuple[str, ...]) -> CompareScreen:
    """Focus the tree, ``=`` on the open session, ``moves``, ``=`` again: the compare screen."""
    await settle(pilot)  # type: ignore[arg-type]
    app.screen.query_one(SessionTree).focus()  # type: ignore[attr-defined]
    await pilot.press("equals_sign", *moves, "equals_sign")  # type: ignore[attr-defined]
    await settle(pilot)  # type: ignore[arg-type]
    screen = app.screen  # type: ignore[attr-defined]
    assert isinstance(screen, CompareScreen)
    return screen


async def test_equals_twice_compares_and_escape_goes_back(compare_pairs: Pairs) -> None:
    a, b = compare_pairs.ids["result"]
    app = make_app(str(compare_pairs.store), session=a, clock=frozen_clock, poll_interval=0)
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await open_compare(app, pilot, ("up",))  # the tree lists newest first: B above A
        assert (screen.left.session_id, screen.right.session_id) == (a, b)
        view = screen.query_one(CompareView)
        assert len(view.rows) == 10 and screen.comparison.complete
        assert view.first == 4 and view.cursor == 4  # the cursor starts on the first divergence
        first = str(screen.query_one("#compare-first").render())
        assert first.startswith("first divergence at row 5 (A #5 / B #5): different result (lookup)")
        deltas = str(screen.query_one("#compare-deltas").render())
        assert "steps 5→5" in deltas and "calls 3→3" in deltas and "(so far)" not in deltas
        await pilot.press("g")
        assert view.cursor == 0
        await pilot.press("n")
        assert view.cursor == 4
        await pilot.press("n")  # no further divergence: the cursor stays
        assert view.cursor == 4
        await pilot.press("N", "G")
        assert view.cursor == 9
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, MainScreen) and app.screen.compare_mark is None


async def test_equals_on_the_marked_session_unmarks_it(compare_pairs: Pairs) -> None:
    a, _ = compare_pairs.ids["fanout"]
    app = make_app(str(compare_pairs.store), session=a, clock=frozen_clock, poll_interval=0)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        main = app.screen
        assert isinstance(main, MainScreen)
        main.query_one(SessionTree).focus()
        await pilot.press("equals_sign")
        assert main.compare_mark is not None and main.compare_mark.session_id == a
        await pilot.press("equals_sign")
        await settle(pilot)
        assert main.compare_mark is None and app.screen is main


async def _hostile_pair(path: Path) -> None:
    from zett_browser.storage import AssistantMessage, SQLiteSessionStorage, ToolCall, ToolMessage, UserMessage

    storage = SQLiteSessionStorage(path, clock=frozen_clock)
    joined = " | ".join(HOSTILE)
    for session, answer in (("hostile-a", joined), ("hostile-b", "[b]other[/b] \x1b[2J")):
        await storage.append(session, "r", UserMessage(content=joined), title="[bold]run[/] \x1b]0;pwned\x07")
        call = ToolCall("c1", "[@click=app.bell]tool", {"[b]": "\x1b[31m"})
        await storage.append(session, "r", AssistantMessage(content=joined, tool_calls=(call,)))
        await storage.append(session, "r", ToolMessage(tool_call_id="c1", name="t", content=answer))
    await storage.close()


async def test_hostile_text_shows_literally(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = tmp_path / "hostile.sqlite3"
    await _hostile_pair(store)
    app = make_app(str(store), session="hostile-a", clock=frozen_clock, poll_interval=0)
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await open_compare(app, pilot, ("up",))
        view = screen.query_one(CompareView)
        shown = [row_text(row, 300, first=False).plain for row in view.rows]
        assert any("[@click=app.bell]tool" in line for line in shown)
        assert any("[b]other[/b]" in line for line in shown)
        assert not any("\x1b" in line or "\x9b" in line for line in shown)
        assert view.first == 2 and view.rows[2].reason == "different result"
        assert app.is_running  # no markup fired, nothing crashed
    from zett_browser.__main__ import run_command

    assert await asyncio.to_thread(run_command, ["compare", str(store), "hostile-a", "hostile-b"]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x9b" not in out and "[@click=app.bell]tool" in out


def _with_children(pairs: Pairs, target: Path) -> Path:
    """A copy of the pairs' store holding the delegated children too (the runtime wrote them elsewhere)."""
    shutil.copy(pairs.store, target)
    with sqlite3.connect(target) as connection:
        connection.execute("ATTACH DATABASE ? AS children", (str(pairs.children),))
        connection.execute("INSERT INTO agent_sessions SELECT * FROM children.agent_sessions")
        connection.execute("INSERT INTO raw_messages SELECT * FROM children.raw_messages")
        connection.commit()
        connection.execute("DETACH DATABASE children")
    connection.close()
    return target


async def test_enter_on_two_delegations_compares_the_children(compare_pairs: Pairs, tmp_path: Path) -> None:
    """The fan-out's matched ``task`` call (same brief in both runs): ``enter`` compares the two
    children; with the children in another store, it says so and stays."""
    a, _ = compare_pairs.ids["fanout"]
    for store, present in (
        (compare_pairs.store, False),
        (_with_children(compare_pairs, tmp_path / "all.sqlite3"), True),
    ):
        app = make_app(str(store), session=a, clock=frozen_clock, poll_interval=0)
        async with app.run_test(size=(160, 45)) as pilot:
            screen = await open_compare(app, pilot, ("up",))
            view = screen.query_one(CompareView)
            view.move_to(2)  # task({"description": "Audit auth", ...}) on both sides
            left_child, right_child = view.rows[2].children
            assert left_child and right_child and left_child != right_child
            await pilot.press("enter")
            await settle(pilot)
            if not present:
                assert app.screen is screen
                continue
            children = app.screen
            assert isinstance(children, CompareScreen) and children is not screen
            assert (children.left.session_id, children.right.session_id) == (left_child, right_child)
            rows = children.query_one(CompareView).rows
            assert rows and all(row.status.value == "same" for row in rows)  # the same brief, the same work
            await pilot.press("escape")
            await settle(pilot)
            assert app.screen is screen
