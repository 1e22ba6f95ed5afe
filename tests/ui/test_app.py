"""Pilot tests of the browser through its factory, on copies of stores zett-agent wrote."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import xml.dom.minidom
from pathlib import Path

from textual.widgets import Input

from tests.ui.helpers import (
    CHILD,
    LONG,
    PAGINATION,
    PARENT,
    ROOT,
    frozen_clock,
    sequences,
    settle,
    status,
    store_copy,
    write_hostile_store,
)
from zett_browser.app import make_app
from zett_browser.model import SessionNode
from zett_browser.screens.detail import MessageDetail
from zett_browser.screens.main import MainScreen
from zett_browser.storage import AssistantMessage, SQLiteSessionStorage, ToolCall, ToolMessage, UserMessage
from zett_browser.widgets.footer import KeyFooter
from zett_browser.widgets.inspector import Inspector
from zett_browser.widgets.rawlog import RawLogView
from zett_browser.widgets.session_tree import SessionTree


async def test_opens_the_newest_session_and_pages_through_it(tmp_path: Path) -> None:
    app = make_app(str(store_copy("storage_api", tmp_path)), clock=frozen_clock)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)
        assert sequences(app) == list(range(1, 51))
        assert "#1–50 of 120" in status(app)
        app.screen.query_one(RawLogView).focus()
        for key, expected in [("n", (51, 100)), ("n", (101, 120)), ("n", (101, 120)), ("p", (51, 100))]:
            await pilot.press(key)
            await settle(pilot)
            assert (sequences(app)[0], sequences(app)[-1]) == expected, key
        await pilot.press("G")
        await settle(pilot)
        assert (sequences(app)[0], sequences(app)[-1]) == (71, 120)
        await pilot.press("g")
        await settle(pilot)
        assert sequences(app)[0] == 1


async def test_jump_to_sequence_and_page_size(tmp_path: Path) -> None:
    app = make_app(str(store_copy("storage_api", tmp_path)), page_size=20, clock=frozen_clock)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        assert sequences(app) == list(range(1, 21))
        footer_keys = list(app.screen.query_one(KeyFooter).children)
        await pilot.press("colon")
        await pilot.press(*"115", "enter")
        await settle(pilot)
        assert sequences(app) == list(range(101, 121))
        view = app.screen.query_one(RawLogView)
        assert view.current is not None and view.current.sequence == 115
        assert "#101–120 of 120" in status(app)
        assert app.focused is view, "enter hands the keys back to the Raw Log"
        app.screen.query_one(SessionTree).focus()
        await pilot.press("tab")
        assert app.focused is view, "tab skips the jump field"
        assert list(app.screen.query_one(KeyFooter).children) == footer_keys, "the footer was not rebuilt"
        # escape abandons a jump: nothing moves, the field is empty, the Raw Log has the keys.
        await pilot.press("colon", *"42", "escape")
        await settle(pilot)
        assert sequences(app) == list(range(101, 121)) and app.focused is view
        assert app.screen.query_one("#jump", Input).value == ""
        # Letters cannot be typed into the field; "#1,0" is read as 10.
        await pilot.press("colon", *"x#1,0", "enter")
        await settle(pilot)
        # A jump reads a quarter of a page before the message and the rest after it (issue 25).
        assert sequences(app) == list(range(5, 25)) and view.current.sequence == 10


async def test_cli_style_start_on_a_session_and_sequence(tmp_path: Path) -> None:
    app = make_app(str(store_copy("storage_api", tmp_path)), session=PAGINATION, seq=77, clock=frozen_clock)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        assert sequences(app) == list(range(65, 115)), "a quarter of a page before #77, the rest after"
        assert app.screen.query_one(RawLogView).current.sequence == 77  # type: ignore[union-attr]


async def test_tree_expands_children_and_opens_child_with_breadcrumb_and_back(tmp_path: Path) -> None:
    app = make_app(str(store_copy("storage_api", tmp_path)), clock=frozen_clock)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        tree = app.screen.query_one(SessionTree)
        parent = tree.find(PARENT)
        assert parent is not None and not parent.children
        parent.expand()
        await settle(pilot)
        child = tree.find(CHILD)
        assert child is not None, "children load when the node expands"
        tree.select_node(child)
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen) and screen.open is not None
        assert screen.open.node.session_id == CHILD
        crumb = str(screen.query_one("#breadcrumb").render())
        assert "Delegating parent" in crumb and "Find trains" in crumb
        screen.query_one(RawLogView).focus()
        await pilot.press("b")
        await settle(pilot)
        assert screen.open.node.session_id == PARENT


async def test_orphans_have_their_own_group(tmp_path: Path) -> None:
    app = make_app(str(store_copy("storage_api", tmp_path)), clock=frozen_clock)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        tree = app.screen.query_one(SessionTree)
        assert tree.orphans is not None
        tree.orphans.expand()
        await settle(pilot)
        assert tree.find(ROOT + "6") is not None


async def test_inspector_lists_versions_and_jumps_to_a_boundary(tmp_path: Path) -> None:
    app = make_app(str(store_copy("storage_api", tmp_path)), session=LONG, page_size=4, clock=frozen_clock)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        inspector = app.screen.query_one(Inspector)
        assert [s.version for s in inspector.snapshots] == [1, 2, 3]
        first = inspector.snapshots[0]
        inspector.post_message(Inspector.VersionChosen(first))
        await settle(pilot)
        view = app.screen.query_one(RawLogView)
        assert view.current is not None and view.current.sequence == first.compacted_through_sequence
        assert view.boundaries, "boundary markers are on the page"


async def test_model_view_shows_the_tail_after_the_latest_boundary(tmp_path: Path) -> None:
    app = make_app(str(store_copy("storage_api", tmp_path)), session=LONG, clock=frozen_clock)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen) and screen.open is not None
        boundary = screen.open.snapshots[-1].compacted_through_sequence
        assert sequences(app)[0] == 1
        screen.query_one(RawLogView).focus()
        await pilot.press("m")
        await settle(pilot)
        assert "MODEL VIEW" in status(app)
        assert all(sequence > boundary for sequence in sequences(app))
        await pilot.press("m")
        await settle(pilot)
        # Back in the Raw Log the message under the cursor stays selected (issue 10 item 7).
        view = screen.query_one(RawLogView)
        assert "RAW LOG" in status(app) and view.current is not None and view.current.sequence == boundary + 1


async def test_call_and_result_jump_both_ways(tmp_path: Path) -> None:
    path = tmp_path / "calls.sqlite3"
    storage = SQLiteSessionStorage(path)
    await storage.append("s", "r", UserMessage(content="go"), title="calls")
    call = ToolCall("call-9", "grep", {"pattern": "x"})
    await storage.append("s", "r", AssistantMessage(content="", tool_calls=(call,)))
    for index in range(5):
        await storage.append("s", "r", UserMessage(content=f"noise {index}"))
    await storage.append("s", "r", ToolMessage(tool_call_id="call-9", name="grep", content="found"))
    await storage.close()
    app = make_app(str(path), page_size=3, clock=frozen_clock)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        view = app.screen.query_one(RawLogView)
        view.focus()
        await pilot.press("down", "c")
        await settle(pilot)
        assert view.current is not None and view.current.sequence == 8
        await pilot.press("c")
        await settle(pilot)
        assert view.current is not None and view.current.sequence == 2


async def test_a_huge_message_shows_a_preview_and_show_all(tmp_path: Path) -> None:
    path = tmp_path / "huge.sqlite3"
    storage = SQLiteSessionStorage(path)
    await storage.append("s", "r", UserMessage(content="read it"), title="huge")
    await storage.append("s", "r", ToolMessage(tool_call_id="c", name="cat", content="line\n" * 60_000))
    await storage.close()
    app = make_app(str(path), clock=frozen_clock)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        view = app.screen.query_one(RawLogView)
        assert len(view.rendered_lines()) < 600, "a 300 KB message renders as a bounded preview"
        assert any("press enter to show all" in "".join(s.text for s in [line]) for line in view.rendered_lines())
        view.focus()
        await pilot.press("down", "enter")
        await settle(pilot)
        assert isinstance(app.screen, MessageDetail)
        assert app.screen.body.count("line") == 60_000
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)


async def test_a_corrupt_row_shows_an_error_row_and_the_rest_of_the_page(tmp_path: Path) -> None:
    path = store_copy("storage_api", tmp_path)
    with sqlite3.connect(path) as connection:
        connection.execute(
            "update raw_messages set message_json = '{not json' where session_id = ? and sequence = 2", (PAGINATION,)
        )
    app = make_app(str(path), clock=frozen_clock)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        assert sequences(app) == list(range(1, 51))
        text = "\n".join(strip.text for strip in app.screen.query_one(RawLogView).rendered_lines())
        assert "#2 unreadable" in text and "{not json" in text and "not valid JSON" in text


async def test_hostile_strings_show_literally_and_never_act(tmp_path: Path) -> None:
    path = tmp_path / "hostile.sqlite3"
    await write_hostile_store(path)
    app = make_app(str(path), clock=frozen_clock)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        view = app.screen.query_one(RawLogView)
        view.focus()
        await pilot.press("r")
        await settle(pilot)
        for y in range(0, 40):
            await pilot.click(RawLogView, offset=(5, y))
        await settle(pilot)
        assert app.is_running, "no injected action quit the app"
        text = "\n".join(strip.text for strip in view.rendered_lines())
        assert "[bold red]styled?[/]" in text and "[@click=app.quit]click me[/]" in text
        assert "[link=https://evil.example]a link[/link]" in text
        assert "\x1b" not in text and "\x9b" not in text and "\x07" not in text
        assert "␛[2Jclear screen" in text
        svg = app.export_screenshot()
        xml.dom.minidom.parseString(svg)  # raw ESC would make it invalid XML
        assert "\x1b" not in svg


def test_cli_reports_a_bad_store_in_one_line_and_exits_2(tmp_path: Path) -> None:
    missing = tmp_path / "nope.sqlite3"
    result = subprocess.run(
        [sys.executable, "-m", "zett_browser", str(missing)], capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "does not exist" in result.stderr
    assert "Traceback" not in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_cli_help_and_version() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "zett_browser", "--help"], capture_output=True, text=True, timeout=60, check=True
    )
    for option in ("--session", "--seq", "--page-size", "--version"):
        assert option in result.stdout


async def test_markdown_prose_highlights_code_but_links_stay_text(tmp_path: Path) -> None:
    path = tmp_path / "md.sqlite3"
    storage = SQLiteSessionStorage(path, clock=frozen_clock)
    await storage.append("s", "r", UserMessage(content="Show me"), title="markdown")
    answer = (
        "Here:\n\n```python\nprint('hi')\n```\n\nSee [the docs](https://evil.example) and **bold** [@click=app.quit]."
    )
    await storage.append("s", "r", AssistantMessage(content=answer))
    await storage.close()
    app = make_app(str(path), clock=frozen_clock)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        lines = app.screen.query_one(RawLogView).rendered_lines()
        text = "\n".join(strip.text for strip in lines)
        assert "print('hi')" in text and "```" not in text, "the code block is rendered, not shown raw"
        assert "https://evil.example" in text, "a link's target is shown as text"
        assert "[@click=app.quit]" in text
        styles = [segment.style for strip in lines for segment in strip if segment.style is not None]
        assert not any(style.link or (style.meta and "@click" in style.meta) for style in styles)
        assert any(style.color is not None for style in styles)
        for y in range(30):
            await pilot.click(RawLogView, offset=(10, y))
        await settle(pilot)
        assert app.is_running


async def test_more_node_pages_through_roots(tmp_path: Path, monkeypatch: object) -> None:
    import zett_browser.screens.wiring as wiring

    path = tmp_path / "many.sqlite3"
    storage = SQLiteSessionStorage(path)
    for index in range(7):
        await storage.create_session(session_id=f"s{index}", title=f"Session {index}")
    await storage.close()
    monkeypatch.setattr(wiring, "ROOTS_PAGE", 3)  # type: ignore[attr-defined]
    app = make_app(str(path), clock=frozen_clock)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        tree = app.screen.query_one(SessionTree)

        def loaded() -> list[str]:
            return [node.data.session_id for node in tree.root.children if isinstance(node.data, SessionNode)]

        assert loaded() == ["s6", "s5", "s4"]
        for expected in (["s6", "s5", "s4", "s3", "s2", "s1"], ["s6", "s5", "s4", "s3", "s2", "s1", "s0"]):
            more = tree.root.children[-1]
            assert str(more.label) == "more…"
            tree.select_node(more)
            await settle(pilot)
            assert loaded() == expected
        assert str(tree.root.children[-1].label) != "more…"


async def test_panes_toggle_and_resize(tmp_path: Path) -> None:
    app = make_app(str(store_copy("storage_api", tmp_path)), clock=frozen_clock)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        tree = app.screen.query_one(SessionTree)
        inspector = app.screen.query_one(Inspector)
        app.screen.query_one(RawLogView).focus()
        before = tree.outer_size.width
        await pilot.press("right_square_bracket")
        await pilot.pause()
        assert tree.outer_size.width == before + 4
        await pilot.press("i", "t")
        await pilot.pause()
        assert not inspector.display
        assert tree.has_class("hidden")
        await pilot.press("question_mark")
        await pilot.pause()
        assert type(app.screen).__name__ == "HelpScreen"


async def test_open_the_child_a_task_result_names_and_come_back(tmp_path: Path) -> None:
    from zett_browser.demo.store import build_demo_store

    path = await build_demo_store(tmp_path / "demo.sqlite3", now=frozen_clock())
    refactor, research = "0196d3e0-0000-7000-8000-000000000001", "0196d3e0-0000-7000-8000-000000000002"
    app = make_app(str(path), session=refactor, clock=frozen_clock)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen) and screen.open is not None
        view = screen.query_one(RawLogView)
        task_result = next(
            r.sequence for r in view.records if isinstance(r.message, ToolMessage) and r.message.name == "task"
        )
        view.select_sequence(task_result)
        view.focus()
        await pilot.press("o")
        await settle(pilot)
        assert screen.open.node.session_id == research
        assert "Refactor the pa" in str(screen.query_one("#breadcrumb").render()), "the parent, shortened"
        await pilot.press("b")
        await settle(pilot)
        assert screen.open.node.session_id == refactor
